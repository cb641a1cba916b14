"""A juror with ``logprobs = true`` judged through a provider's batch API (issue 21): the
request inside the batch asks for log-probabilities as the online call does, the vote reads
its probability from the batch's result line as from an online reply, and the fake refuses
inside a batch what the API refuses online."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from batch_helpers import model_id, run_batches
from extras import needs_sdk

from jury import Juror, Panel, RetrySettings, VoteStatus, load_cases, load_rubric
from jury.adapters import JudgeRequest, Message
from jury.adapters._registry import resolve_model
from jury.panel._batch_settings import BatchSettings
from jury.providers._wire import HttpStatusError, WireModel
from jury.testing import Confident, FakeProviderServer

#: Models that give log-probabilities and have a batch API: Chat Completions (OpenAI Batch)
#: and Gemini 2.0 Flash (Gemini batch mode; retired by the lifecycle table's day, judged all
#: the same: the wire is the same).
OPENAI = "openai/gpt-4.1-mini-2025-04-14"
GEMINI = "google/gemini-2.0-flash-001"
ANTHROPIC = "anthropic/claude-haiku-5-5"
CASE = load_cases(Path(__file__).resolve().parents[2] / "examples" / "shopnest" / "cases.jsonl")[0]
SURE_ENOUGH = Confident(
    {"reason": "The answer states the 30-day window.", "pass": True},
    {"pass": {"true": 0.8, "false": 0.2}},
)


def one_juror(spec: str, **juror: Any) -> Panel:
    return Panel(
        jurors=(Juror(model=spec, **juror),),
        rubric="grounded-answer",
        allow_retired=True,
        quorum=1,
        batch=BatchSettings(poll=0.01),
        retry=RetrySettings(attempts=2, base_delay=0.01, max_delay=0.05, second_chance=False),
    )


def asked(spec: str, body: dict[str, Any]) -> bool:
    if spec.startswith("google/"):
        config = body["generationConfig"]
        return config.get("responseLogprobs") is True and config.get("logprobs") == 5
    return body.get("logprobs") is True and body.get("top_logprobs") == 5


@needs_sdk()
@pytest.mark.parametrize("transport", ["direct", "sdk"])
@pytest.mark.parametrize("spec", [OPENAI, GEMINI])
async def test_a_batched_juror_reads_its_probability_from_the_batch_result_as_online(
    server: FakeProviderServer,
    spec: str,
    transport: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("JURY_TRANSPORT", transport)
    server.script(model_id(spec), SURE_ENOUGH)
    verdicts, _ = await run_batches(one_juror(spec, logprobs=True), [CASE], tmp_path / "run")
    vote = verdicts[CASE.id].votes[0]
    assert vote.status is VoteStatus.VALID, vote.error
    assert vote.probability == pytest.approx(0.8)
    assert vote.distribution == pytest.approx({"PASS": 0.8, "FAIL": 0.2})
    assert vote.probability_from == "logprobs"
    (inside,) = [r for r in server.batched if r.model == model_id(spec)]
    assert asked(spec, inside.body)
    # Nothing went online: the probability came from the batch's result line.
    assert not server.requests_for(model_id(spec))


@pytest.mark.parametrize("spec", [OPENAI, GEMINI])
async def test_a_batched_juror_that_does_not_ask_votes_without_a_probability(
    server: FakeProviderServer, spec: str, tmp_path: Path
) -> None:
    server.script(model_id(spec), SURE_ENOUGH)
    verdicts, _ = await run_batches(one_juror(spec), [CASE], tmp_path / "run")
    vote = verdicts[CASE.id].votes[0]
    assert vote.status is VoteStatus.VALID
    assert vote.probability is None
    (inside,) = [r for r in server.batched if r.model == model_id(spec)]
    assert not asked(spec, inside.body)


async def test_an_anthropic_juror_asking_for_logprobs_in_a_batch_is_never_sent_the_ask(
    server: FakeProviderServer, tmp_path: Path
) -> None:
    # Messages has no log-probabilities: the juror is warned about at load (tests/providers/
    # test_logprobs.py) and its batched requests carry no such key.
    server.script(model_id(ANTHROPIC), SURE_ENOUGH)
    verdicts, _ = await run_batches(one_juror(ANTHROPIC, logprobs=True), [CASE], tmp_path / "r")
    vote = verdicts[CASE.id].votes[0]
    assert vote.status is VoteStatus.VALID, vote.error
    assert vote.probability is None
    (inside,) = [r for r in server.batched if r.model == model_id(ANTHROPIC)]
    assert not {key for key in inside.body if "logprob" in key}


def request() -> JudgeRequest:
    prompt = load_rubric("grounded-answer").prompts(CASE)[0]
    return JudgeRequest(
        system=prompt.system,
        messages=(Message("user", prompt.user),),
        schema=prompt.schema,
        schema_name=prompt.schema_name,
    )


@pytest.mark.parametrize(
    ("spec", "asking"),
    [
        # An OpenAI reasoning model: 403 "You are not allowed to request logprobs from this
        # model" (the fake's rule cites deepeval #2184 and inspect_ai #2739).
        ("openai/gpt-5.4-mini-2026-03-17", {"logprobs": True, "top_logprobs": 5}),
        # top_logprobs past 20 ("an integer between 0 and 20", the API reference).
        ("openai/gpt-4.1-mini-2025-04-14", {"logprobs": True, "top_logprobs": 21}),
        # Gemini 2.5 on the Gemini API: "Logprobs is not enabled for models/..." (the
        # fake's rule cites the reports it comes from).
        ("google/gemini-2.5-flash", {"responseLogprobs": True, "logprobs": 5}),
    ],
)
async def test_the_fake_refuses_inside_a_batch_the_logprobs_it_refuses_online(
    server: FakeProviderServer,
    spec: str,
    asking: dict[str, Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("JURY_TRANSPORT", "direct")
    server.script(model_id(spec), SURE_ENOUGH)
    model = resolve_model(spec)
    assert isinstance(model, WireModel)
    api = model.batches()
    assert api is not None
    try:
        lines = [json.loads(api.entry(f"r{n}", request())) for n in range(2)]
        body = lines[0].get("body") or lines[0].get("request")
        assert isinstance(body, dict)
        if spec.startswith("google/"):
            body["generationConfig"].update(asking)
        else:
            body.update(asking)
        path = tmp_path / "in.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        with pytest.raises(HttpStatusError) as online:
            await model.transport.post(model.model, body)
        created = await api.create(path, 2, "jury-t-logprobs")
        status = await api.retrieve(created.id)
        got = {o.custom_id: o async for o in api.results(status)}
    finally:
        await model.aclose()
    refused = got["r0"]
    assert refused.kind == "errored"
    assert refused.error is not None
    # The same status and words as the online refusal; the other request is served.
    assert refused.error.status == online.value.status
    words = json.loads(online.value.body)["error"]["message"]
    assert words in str(refused.error)
    assert got["r1"].kind == "succeeded"
