"""Soft confidence (issue 21, item 3): a juror with ``logprobs = true`` asks its model for the
reply's token log-probabilities, in each protocol's shape, and its vote carries the
probability of its verdict read from the tokens of the verdict's value. The strict fake serves
them as the real APIs do, and refuses them where the real APIs do (OpenAI's reasoning models,
Gemini models that do not offer ``responseLogprobs``); the adapters do not ask those models,
and the panel warns at load."""

from __future__ import annotations

from pathlib import Path

import aiohttp
import pytest
from extras import needs, needs_sdk, sdk_params
from provider_helpers import COMPATIBLE, OLLAMA, OPENAI, judge, model_id, panel
from test_request_shape import case_for, validate

from jury import Juror, VoteStatus, load_rubric
from jury.adapters import JudgeRequest, Message
from jury.adapters._registry import resolve_model
from jury.panel._warnings import panel_warnings
from jury.providers._wire import WireModel
from jury.testing import Confident, FakeProviderServer

#: A Gemini model that offers responseLogprobs on the Gemini API. 2.0 Flash is retired by the
#: lifecycle table's day (2026-06-01), and the later models refuse log-probabilities on that
#: API: the tests judge with it all the same (``allow_retired``), as the wire is the same.
GEMINI_LOGPROBS = "google/gemini-2.0-flash-001"
#: Models that cannot give them: an OpenAI reasoning model, a Gemini 2.5 and a Gemini 3.5.
OPENAI_REASONING = "openai/gpt-5.4-mini-2026-03-17"
GEMINI_25 = "google/gemini-2.5-flash"
GEMINI_35 = "google/gemini-3.5-flash-lite"
OFFERING = (OPENAI, GEMINI_LOGPROBS, COMPATIBLE, OLLAMA)

SURE_ENOUGH = Confident(
    {"reason": "The answer states the 30-day window.", "pass": True},
    {"pass": {"true": 0.8, "false": 0.2}},
)


@pytest.fixture(autouse=True)
def _compatible_servers(server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch) -> None:
    # The OpenAI-compatible servers are served by the fake's Chat Completions route.
    monkeypatch.setenv("ACME_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("ACME_API_KEY", "acme-key-not-secret")
    monkeypatch.setenv("OLLAMA_BASE_URL", server.openai_base_url)


def _asked(spec: str, body: dict[str, object]) -> bool:
    """Whether a request body asks for log-probabilities, in its protocol's words."""
    if spec.startswith("google/"):
        config = body["generationConfig"]
        assert isinstance(config, dict)
        return config.get("responseLogprobs") is True and config.get("logprobs") == 5
    return body.get("logprobs") is True and body.get("top_logprobs") == 5


@needs_sdk()
@pytest.mark.parametrize("transport", ["sdk", "direct"])
@pytest.mark.parametrize("spec", OFFERING)
async def test_a_juror_asking_for_logprobs_votes_with_the_probability_of_its_verdict(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch, spec: str, transport: str
) -> None:
    monkeypatch.setenv("JURY_TRANSPORT", transport)
    server.script(model_id(spec), SURE_ENOUGH)
    juror = Juror(model=spec, logprobs=True)
    verdict = await judge(
        panel(juror, rubric="grounded-answer", allow_retired=True), case=case_for("grounded-answer")
    )
    vote = verdict.votes[0]
    assert vote.status is VoteStatus.VALID, vote.error
    assert vote.probability == pytest.approx(0.8)
    assert vote.distribution == pytest.approx({"PASS": 0.8, "FAIL": 0.2})
    assert vote.probability_from == "logprobs"
    (sent,) = server.requests_for(model_id(spec))
    assert _asked(spec, sent.body)


@pytest.mark.parametrize("spec", OFFERING)
async def test_a_juror_that_does_not_ask_is_sent_no_logprobs_and_votes_without_a_probability(
    server: FakeProviderServer, spec: str
) -> None:
    server.script(model_id(spec), SURE_ENOUGH)
    verdict = await judge(
        panel(spec, rubric="grounded-answer", allow_retired=True), case=case_for("grounded-answer")
    )
    vote = verdict.votes[0]
    assert vote.status is VoteStatus.VALID
    assert vote.probability is None
    (sent,) = server.requests_for(model_id(spec))
    assert not _asked(spec, sent.body)
    assert "logprobs" not in sent.body
    assert "top_logprobs" not in sent.body


@pytest.mark.parametrize("spec", [OPENAI, GEMINI_LOGPROBS])
async def test_a_pairwise_juror_gets_its_distribution_from_both_orders_through_the_rubric(
    server: FakeProviderServer, spec: str
) -> None:
    # "1" is the answer shown first: A in the AB order, B in the BA order. The judge prefers
    # A in both orders, surer with A shown first (the orders are asked AB, then BA).
    orders = iter(
        [
            Confident({"reason": "A is right.", "winner": "1"}, {"winner": {"1": 0.9, "2": 0.1}}),
            Confident({"reason": "A is right.", "winner": "2"}, {"winner": {"2": 0.6, "1": 0.4}}),
        ]
    )
    server.script(model_id(spec), lambda logged: next(orders))
    juror = Juror(model=spec, logprobs=True)
    rubric = "pairwise-preference"
    verdict = await judge(panel(juror, rubric=rubric, allow_retired=True), case=case_for(rubric))
    vote = verdict.votes[0]
    assert vote.status is VoteStatus.VALID, vote.error
    # A both times: 0.9 x 0.6; B both times: 0.1 x 0.4; the orders disagree otherwise.
    agreed_a, agreed_b = 0.9 * 0.6, 0.1 * 0.4
    assert vote.distribution is not None
    assert vote.distribution["abstained"] == pytest.approx(1 - agreed_a - agreed_b)
    assert vote.probability == pytest.approx(agreed_a)
    assert sum(vote.distribution.values()) == pytest.approx(1.0)


@needs_sdk()
@pytest.mark.parametrize("transport", ["sdk", "direct"])
@pytest.mark.parametrize("spec", [OPENAI_REASONING, GEMINI_25, GEMINI_35])
async def test_a_model_that_cannot_give_logprobs_is_not_asked_and_its_vote_still_counts(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch, spec: str, transport: str
) -> None:
    monkeypatch.setenv("JURY_TRANSPORT", transport)
    server.script(model_id(spec), SURE_ENOUGH)
    juror = Juror(model=spec, logprobs=True)
    verdict = await judge(
        panel(juror, rubric="grounded-answer", allow_retired=True), case=case_for("grounded-answer")
    )
    vote = verdict.votes[0]
    assert vote.status is VoteStatus.VALID, vote.error
    assert vote.probability is None
    (sent,) = server.requests_for(model_id(spec))
    assert not _asked(spec, sent.body)


@pytest.mark.parametrize("spec", [OPENAI_REASONING, GEMINI_25, GEMINI_35])
def test_asking_a_model_that_cannot_give_logprobs_is_a_configuration_warning(spec: str) -> None:
    warnings = panel_warnings(panel(Juror(model=spec, logprobs=True)))
    said = [w for w in warnings if "logprobs = true" in w]
    assert len(said) == 1
    assert spec in said[0]
    assert not [w for w in panel_warnings(panel(Juror(model=spec))) if "logprobs" in w]


@pytest.mark.parametrize("spec", OFFERING)
def test_asking_a_model_that_gives_logprobs_is_not_warned_about(spec: str) -> None:
    assert not [
        w for w in panel_warnings(panel(Juror(model=spec, logprobs=True))) if "logprobs" in w
    ]


def test_asking_an_anthropic_model_for_logprobs_is_warned_about() -> None:
    warnings = panel_warnings(
        panel(Juror(model="anthropic/claude-haiku-4-5-20251001", logprobs=True))
    )
    assert any("anthropic provider gives no token log-probabilities" in w for w in warnings)


async def _post(server: FakeProviderServer, path: str, body: dict[str, object]) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session:
        headers = {"authorization": "Bearer k", "x-goog-api-key": "k"}
        async with session.post(server.url + path, json=body, headers=headers) as reply:
            return reply.status, await reply.text()


def _chat(model: str, **extra: object) -> dict[str, object]:
    return {"model": model, "messages": [{"role": "user", "content": "hi"}], **extra}


async def test_the_fake_refuses_logprobs_to_an_openai_reasoning_model_as_the_api_does(
    server: FakeProviderServer,
) -> None:
    status, text = await _post(
        server, "/v1/chat/completions", _chat("o4-mini-2025-04-16", logprobs=True)
    )
    assert status == 403
    assert "not allowed to request logprobs" in text


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ({"top_logprobs": 5}, "'logprobs' must be set to true"),
        ({"logprobs": True, "top_logprobs": 21}, "between 0 and 20"),
    ],
)
async def test_the_fake_refuses_top_logprobs_the_api_refuses(
    server: FakeProviderServer, extra: dict[str, object], words: str
) -> None:
    status, text = await _post(server, "/v1/chat/completions", _chat("gpt-4.1-mini", **extra))
    assert status == 400
    assert words in text


def _gemini(**config: object) -> dict[str, object]:
    return {"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "generationConfig": config}


@pytest.mark.parametrize(
    ("model", "config", "words"),
    [
        (
            "gemini-2.5-flash",
            {"responseLogprobs": True},
            "Logprobs is not enabled for models/gemini-2.5-flash",
        ),
        ("gemini-2.0-flash-001", {"logprobs": 3}, "only valid if responseLogprobs"),
        ("gemini-2.0-flash-001", {"responseLogprobs": True, "logprobs": 21}, "between 1 and 20"),
    ],
)
async def test_the_fake_refuses_logprobs_where_the_gemini_api_does(
    server: FakeProviderServer, model: str, config: dict[str, object], words: str
) -> None:
    status, text = await _post(server, f"/v1beta/models/{model}:generateContent", _gemini(**config))
    assert status == 400
    assert words in text


@needs("openai")
async def test_the_fake_serves_chat_completions_logprobs_in_the_sdks_shape(
    server: FakeProviderServer,
) -> None:
    from openai.types.chat import ChatCompletion

    server.script("gpt-4.1-mini", SURE_ENOUGH)
    status, text = await _post(
        server, "/v1/chat/completions", _chat("gpt-4.1-mini", logprobs=True, top_logprobs=2)
    )
    assert status == 200
    choice = ChatCompletion.model_validate_json(text).choices[0]
    assert choice.logprobs is not None
    assert choice.logprobs.content
    tokens = choice.logprobs.content
    assert "".join(t.token for t in tokens) == choice.message.content
    assert all(len(t.top_logprobs) <= 2 and t.bytes == list(t.token.encode()) for t in tokens)


@needs("google")
async def test_the_fake_serves_gemini_logprobs_in_the_sdks_shape(
    server: FakeProviderServer,
) -> None:
    from google.genai import types

    server.script("gemini-2.0-flash-001", SURE_ENOUGH)
    status, text = await _post(
        server,
        "/v1beta/models/gemini-2.0-flash-001:generateContent",
        _gemini(responseLogprobs=True, logprobs=2),
    )
    assert status == 200
    candidate = types.GenerateContentResponse.model_validate_json(text).candidates[0]  # type: ignore[index]
    result = candidate.logprobs_result
    assert result is not None
    assert result.chosen_candidates
    assert result.top_candidates
    assert len(result.chosen_candidates) == len(result.top_candidates)
    written = "".join(c.token or "" for c in result.chosen_candidates)
    assert written == candidate.content.parts[0].text  # type: ignore[union-attr,index]


@pytest.mark.parametrize("spec", [OPENAI, GEMINI_LOGPROBS])
def test_a_body_that_asks_for_logprobs_validates_against_the_sdks_request_types(
    server: FakeProviderServer, spec: str
) -> None:
    model = resolve_model(spec)
    assert isinstance(model, WireModel)
    prompt = load_rubric("grounded-answer").prompts(case_for("grounded-answer"))[0]
    request = JudgeRequest(
        prompt.system, (Message("user", prompt.user),), prompt.schema, logprobs=True
    )
    body = model.wire.body(model.model, request)
    assert _asked(spec, body)
    validate(model.wire.provider, body)


@pytest.mark.parametrize("spec", sdk_params(OPENAI, GEMINI_LOGPROBS))
async def test_both_transports_send_the_same_body_when_asking_for_logprobs(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch, spec: str
) -> None:
    sent = {}
    for transport in ("sdk", "direct"):
        monkeypatch.setenv("JURY_TRANSPORT", transport)
        server.clear()
        server.script(model_id(spec), SURE_ENOUGH)
        juror = Juror(model=spec, logprobs=True)
        verdict = await judge(
            panel(juror, rubric="grounded-answer", allow_retired=True),
            case=case_for("grounded-answer"),
        )
        assert verdict.votes[0].probability == pytest.approx(0.8)
        sent[transport] = [(r.path, r.body) for r in server.requests_for(model_id(spec))]
    assert sent["sdk"] == sent["direct"]


def _recorded_votes(run_in: Path) -> list[dict[str, object]]:
    import json

    (recorded,) = run_in.rglob("verdicts.jsonl")
    votes: list[dict[str, object]] = json.loads(recorded.read_text().splitlines()[0])["votes"]
    return votes


async def test_jury_run_warns_of_a_model_without_logprobs_and_records_the_probability(
    server: FakeProviderServer, tmp_path: Path
) -> None:
    from provider_helpers import run_cli

    for spec in (OPENAI, OPENAI_REASONING):
        server.script(model_id(spec), SURE_ENOUGH)
    code, output = await run_cli(
        server,
        tmp_path,
        'rubric = "grounded-answer"\n'
        f'[[jurors]]\nmodel = "{OPENAI}"\nlogprobs = true\n'
        f'[[jurors]]\nmodel = "{OPENAI_REASONING}"\nlogprobs = true\n',
    )
    assert code in (0, 1), output
    assert f"{OPENAI_REASONING}: logprobs = true, but OpenAI's reasoning models" in output
    votes = {v["juror"]: v for v in _recorded_votes(tmp_path)}
    assert votes[OPENAI]["probability"] == pytest.approx(0.8)
    assert votes[OPENAI]["distribution"] == pytest.approx({"PASS": 0.8, "FAIL": 0.2})
    assert votes[OPENAI_REASONING]["status"] == "valid"
    assert votes[OPENAI_REASONING].get("probability") is None


async def test_a_points_juror_reads_the_probability_of_a_per_point_verdict(
    server: FakeProviderServer,
) -> None:
    from jury.testing import valid_reply

    rubric, case = load_rubric("shopnest-points"), case_for("shopnest-points")
    reply = valid_reply(rubric.prompts(case)[0].schema)
    for point in reply["points"].values():
        # A "yes" stands only with words of the answer that show it.
        point.update(verdict="yes", quotes=[(case.answer or "")[:24]], reason="met")
    # The last point is a penalty: not incurred.
    reply["points"]["4"].update(verdict="no", quotes=[])
    # The fake gives odds to the first point's verdict (the first "verdict" of the reply).
    server.script(
        model_id(OPENAI),
        Confident(reply, {"verdict": {"yes": 0.7, "no": 0.2, "cant_tell": 0.1}}),
    )
    juror = Juror(model=OPENAI, logprobs=True)
    verdict = await judge(panel(juror, rubric="shopnest-points"), case=case)
    vote = verdict.votes[0]
    assert vote.status is VoteStatus.VALID, vote.error
    # The first point is a must point: met (0.7) the case passes; not met, or not told, fails.
    assert vote.verdict is not None
    assert vote.verdict.value == "PASS"
    assert vote.distribution == pytest.approx({"PASS": 0.7, "FAIL": 0.3})
