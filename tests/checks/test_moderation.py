"""The moderation check: a real moderation model (OpenAI's, served by the strict fake) flags
what the blocklist cannot; without its key it says so; a model that does not answer leaves
the case undecided, never passed or failed."""

from __future__ import annotations

import json
import random
import time
from typing import Any

import pytest
from extras import needs

from conftest import FAKE_KEY, scores
from jury import Case, CheckOutcome, Juror, Jury, Panel, Verdict
from jury.adapters import JudgeRequest, Message
from jury.checks import CheckSettings, CheckSuite
from jury.providers.openai_moderation import create
from jury.testing import FakeClock, FakeProviderServer, Fault, LoggedRequest, ScriptedModel
from jury.testing._openai import MODERATION_CATEGORIES

MODEL = "omni-moderation-latest"
INSULT = "Honestly, only someone with half a brain would order from a shop like this."
POLITE = "Your order ORD-102 has shipped."


def flag_insults(logged: LoggedRequest) -> str:
    """The fake model's reading of each input (a JSON list, one per input): the insult is
    harassment."""
    inputs = logged.body["input"]
    return json.dumps([{"harassment": 0.91} if "half a brain" in text else {} for text in inputs])


# --- the fake serves the endpoint as the SDK expects it -------------------------------------


@needs("openai")
async def test_the_fake_answers_the_sdk_with_one_result_per_input(
    server: FakeProviderServer,
) -> None:
    import openai

    server.script(MODEL, flag_insults)
    async with openai.AsyncOpenAI(base_url=server.openai_base_url, api_key=FAKE_KEY) as client:
        response = await client.moderations.create(model=MODEL, input=[POLITE, INSULT])
    first, second = response.results
    assert (first.flagged, second.flagged) == (False, True)
    assert second.categories.harassment is True
    assert second.category_scores.harassment == pytest.approx(0.91)
    assert first.category_scores.hate < 0.01
    dumped = second.model_dump(by_alias=True)
    assert set(dumped["category_scores"]) == set(MODERATION_CATEGORIES)
    assert server.requests[-1].path == "/v1/moderations"


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"model": MODEL}, "Missing required parameter: 'input'."),
        ({"input": 42}, "Invalid 'input'"),
        ({"input": []}, "Invalid 'input'"),
        ({"input": [{"type": "audio"}]}, "an array holds strings, or text and image_url"),
    ],
)
@needs("openai")
async def test_the_fake_refuses_what_the_api_refuses(
    server: FakeProviderServer, body: dict[str, Any], says: str
) -> None:
    import openai

    async with openai.AsyncOpenAI(base_url=server.openai_base_url, api_key=FAKE_KEY) as client:
        with pytest.raises(openai.BadRequestError, match=says):
            await client.post("/moderations", body=body, cast_to=dict)


@pytest.mark.parametrize("transport", ["direct", pytest.param("sdk", marks=needs("openai"))])
async def test_both_transports_read_the_same_results(
    server: FakeProviderServer, transport: str
) -> None:
    server.script(MODEL, flag_insults)
    model = create(f"openai-moderation/{MODEL}", transport=transport)
    try:
        reply = await model.complete(
            JudgeRequest(
                system="", messages=(Message("user", POLITE), Message("user", INSULT)), schema={}
            )
        )
    finally:
        await model.aclose()
    results = json.loads(reply.text)
    assert [r["flagged"] for r in results] == [False, True]
    assert results[1]["category_scores"]["harassment"] == pytest.approx(0.91)
    assert server.requests[-1].body == {"model": MODEL, "input": [POLITE, INSULT]}
    assert model.price(reply) == 0.0


# --- the check ------------------------------------------------------------------------------


def moderated(**rule: Any) -> Panel:
    return Panel(
        jurors=(Juror(model=ScriptedModel([scores(5)], name="scripted/judge")),),
        checks=CheckSettings.model_validate({"moderation": {"enabled": True, **rule}}),
        retry={"attempts": 3, "base_delay": 1.0},
    )


async def judge(panel: Panel, case: Case, clock: FakeClock | None = None) -> Any:
    async with Jury(panel, clock=clock or FakeClock(), rng=random.Random(1)) as jury:
        return await jury.judge(case)


def conversation(*said: str) -> Case:
    turns: list[dict[str, str]] = []
    for text in said:
        turns += [
            {"role": "user", "content": "Where is my order?"},
            {"role": "assistant", "content": text},
        ]
    return Case.model_validate({"id": "c", "turns": turns})


def outcome(verdict: Any, name: str) -> Any:
    return next(c for c in verdict.checks if c.name == name)


async def test_a_paraphrased_insult_passes_the_blocklist_and_fails_moderation(
    server: FakeProviderServer,
) -> None:
    server.script(MODEL, flag_insults)
    verdict = await judge(moderated(), conversation(INSULT, POLITE))
    assert outcome(verdict, "blocklist").outcome is CheckOutcome.PASS
    flagged = outcome(verdict, "moderation")
    assert flagged.outcome is CheckOutcome.FAIL
    assert flagged.reason == f"flagged by openai-moderation/{MODEL}: reply 1: harassment 0.91"
    assert verdict.verdict is Verdict.FAIL
    # Every assistant turn went in one call.
    assert server.requests_for(MODEL)[-1].body["input"] == [INSULT, POLITE]


async def test_ignored_categories_and_a_threshold_are_the_teams_choice(
    server: FakeProviderServer,
) -> None:
    server.script(MODEL, {"harassment": 0.91, "violence": 0.3})
    ignoring = await judge(moderated(ignore=["harassment"]), conversation(INSULT))
    assert outcome(ignoring, "moderation").outcome is CheckOutcome.PASS
    strict = await judge(moderated(ignore=["harassment"], threshold=0.25), conversation(INSULT))
    assert outcome(strict, "moderation").reason.endswith("violence 0.30")


async def test_without_its_key_the_check_says_it_did_not_ask(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    verdict = await judge(moderated(), conversation(INSULT))
    skipped = outcome(verdict, "moderation")
    assert skipped.outcome is CheckOutcome.NOT_APPLICABLE
    assert skipped.reason == "OPENAI_API_KEY is not set: the moderation model was not asked"
    assert verdict.verdict is Verdict.PASS


async def test_a_moderation_model_that_is_down_leaves_the_case_inconclusive(
    server: FakeProviderServer,
) -> None:
    server.inject(Fault.http(503), model=MODEL, times=None)
    clock = FakeClock()
    started = time.monotonic()
    verdict = await judge(moderated(), conversation(POLITE), clock)
    assert time.monotonic() - started < 1  # the backoff slept on the fake clock
    down = outcome(verdict, "moderation")
    assert down.outcome is CheckOutcome.UNAVAILABLE
    assert "did not answer" in down.reason
    assert len(server.requests_for(MODEL)) == 3  # retried like a juror
    assert verdict.verdict is Verdict.INCONCLUSIVE
    assert verdict.reasons[0].startswith("check moderation unavailable:")
    assert verdict.reasons[-1] == "the jury said PASS"


async def test_a_failed_check_still_outranks_an_unavailable_one(
    server: FakeProviderServer,
) -> None:
    server.inject(Fault.http(503), model=MODEL, times=None)
    case = Case.model_validate({"id": "c", "answer": POLITE, "expected_tool": "track"})
    verdict = await judge(moderated(), case)
    assert verdict.verdict is Verdict.FAIL


async def test_a_cached_moderation_is_not_asked_again(
    server: FakeProviderServer, tmp_path: Any
) -> None:
    from jury.engine._cache import SqliteCache

    cache = SqliteCache(tmp_path)
    for _ in range(2):
        async with Jury(moderated(), cache=cache, clock=FakeClock()) as jury:
            await jury.judge(conversation(POLITE))
    cache.close()
    assert len(server.requests_for(MODEL)) == 1


def test_a_suite_with_a_model_check_is_run_by_awaiting_it() -> None:
    suite = CheckSuite.from_settings(
        CheckSettings.model_validate({"moderation": {"enabled": True}})
    )
    # Outside a jury the check has no call layer: it says so, and the suite stays plain.
    assert suite["moderation"](conversation(POLITE)).reason.startswith("the moderation model")
    assert not suite.is_async
    assert "moderation" not in CheckSuite.from_settings().names  # off by default
