"""Each provider's batch API, over the direct transport and through its official SDK, against
the fake server: what is sent is the online call's body, and both transports read the same
statuses and results."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from batch_helpers import (
    ANTHROPIC,
    GOOGLE,
    JURORS,
    OPENAI,
    make_cases,
    model_id,
    request_for,
    script_jurors,
)
from extras import needs, require, sdk, sdk_params

from jury.adapters import (
    BatchAPI,
    BatchOutcome,
    InvalidRequestError,
    RateLimitedError,
    TransientError,
)
from jury.adapters._registry import resolve_model
from jury.providers._wire import HttpStatusError, WireModel
from jury.testing import FakeProviderServer, Fault
from jury.testing._batches import BATCHES

TRANSPORTS = ("direct", "sdk")


@asynccontextmanager
async def batches_of(
    spec: str, transport: str, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[WireModel, BatchAPI]]:
    """A provider's model over `transport`, and its batch API; closed after."""
    if transport == "sdk":
        require(sdk(spec))
    monkeypatch.setenv("JURY_TRANSPORT", transport)
    model = resolve_model(spec)
    assert isinstance(model, WireModel)
    api = model.batches()
    assert api is not None
    try:
        yield model, api
    finally:
        await model.aclose()


def entries(api: BatchAPI, path: Path, count: int, prefix: str = "r") -> Path:
    cases = make_cases(count)
    path.write_bytes(
        b"".join(api.entry(f"{prefix}{n}", request_for(c)) + b"\n" for n, c in enumerate(cases))
    )
    return path


async def outcomes(api: BatchAPI, batch_id: str) -> dict[str, BatchOutcome]:
    status = await api.retrieve(batch_id)
    assert status.ended, status
    return {o.custom_id: o async for o in api.results(status)}


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("spec", JURORS)
async def test_a_batch_sends_the_online_body_and_reads_back_the_online_reply(
    server: FakeProviderServer,
    spec: str,
    transport: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    script_jurors(server)
    async with batches_of(spec, transport, monkeypatch) as (model, api):
        status = await api.create(entries(api, tmp_path / "in.jsonl", 3), 3, "jury-t-label-1")
        got = await outcomes(api, status.id)
        online = await model.complete(request_for(make_cases(1)[0]))
    assert set(got) == {"r0", "r1", "r2"}
    assert all(o.kind == "succeeded" for o in got.values())
    # The same request asked online gets the same reply, read the same way.
    reply = got["r0"].reply
    assert reply is not None
    assert (reply.text, reply.model) == (online.text, online.model)
    inside = [r for r in server.batched if r.model == model_id(spec)]
    assert len(inside) == 3
    assert inside[0].body == server.requests_for(model_id(spec))[-1].body


@pytest.mark.parametrize("marked", [True, False])
@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("spec", JURORS)
async def test_replies_read_from_the_fakes_batch_are_fake_and_cost_nothing(
    server: FakeProviderServer,
    spec: str,
    transport: str,
    marked: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The fake marks every response, batch routes included, as its online ones; a server
    # without the mark (``mark=False``, as a real provider's) is priced at the batch rate.
    server.mark = marked
    script_jurors(server)
    async with batches_of(spec, transport, monkeypatch) as (_model, api):
        status = await api.create(entries(api, tmp_path / "in.jsonl", 2), 2, "jury-t-fake")
        got = await outcomes(api, status.id)
    replies = [o.reply for o in got.values()]
    assert len(replies) == 2
    for reply in replies:
        assert reply is not None
        assert reply.fake is marked
        price = api.price(reply)
        assert price is not None
        assert (price == 0.0) is marked


@pytest.mark.parametrize("spec", sdk_params(*JURORS))
async def test_both_transports_submit_the_same_requests_and_read_the_same_statuses(
    server: FakeProviderServer, spec: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script_jurors(server)
    seen = {}
    for transport in TRANSPORTS:
        server.batched.clear()
        async with batches_of(spec, transport, monkeypatch) as (_model, api):
            path = entries(api, tmp_path / f"{transport}.jsonl", 2)
            created = await api.create(path, 2, f"jury-t-{transport}")
            ended = await api.retrieve(created.id)
            found = await api.find(f"jury-t-{transport}", 2, time.time() - 60)
            results = await outcomes(api, created.id)
        assert found is not None
        assert found.id == created.id
        replies = {k: (o.kind, o.reply.text if o.reply else None) for k, o in results.items()}
        seen[transport] = (
            [(r.model, r.body) for r in server.batched],
            (created.ended, ended.ended, ended.state),
            replies,
        )
    assert seen["direct"] == seen["sdk"]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("spec", JURORS)
async def test_a_cancelled_batch_ends_without_replies(
    server: FakeProviderServer,
    spec: str,
    transport: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server.batches.delay = 60.0
    async with batches_of(spec, transport, monkeypatch) as (_model, api):
        created = await api.create(entries(api, tmp_path / "in.jsonl", 2), 2, "jury-t-cancel")
        assert not created.ended
        await api.cancel(created.id)
        got = await outcomes(api, created.id)
    # Requests never run are canceled (Gemini returns no output at all).
    assert all(o.kind == "canceled" for o in got.values())
    assert len(got) == (0 if spec.startswith("google/") else 2)


@pytest.mark.parametrize("spec", JURORS)
async def test_find_names_no_batch_the_account_did_not_create(
    server: FakeProviderServer, spec: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with batches_of(spec, "direct", monkeypatch) as (_model, api):
        await api.create(entries(api, tmp_path / "in.jsonl", 2), 2, "jury-t-made")
        # Anthropic keeps no label: a batch of another size is not ours.
        missing = await api.find("jury-t-never", 5, time.time() - 60)
    assert missing is None


@pytest.mark.parametrize("spec", ["openai/gpt-5.4-mini-2026-03-17", "anthropic/claude-haiku-5-5"])
async def test_errored_and_expired_requests_are_told_apart(
    server: FakeProviderServer, spec: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.batches.faults(errored=0.3, expired=0.3)
    async with batches_of(spec, "direct", monkeypatch) as (_model, api):
        created = await api.create(entries(api, tmp_path / "in.jsonl", 40), 40, "jury-t-faults")
        got = await outcomes(api, created.id)
    kinds = {o.kind for o in got.values()}
    assert kinds == {"succeeded", "errored", "expired"}
    errored = [o for o in got.values() if o.kind == "errored"]
    # A failure inside a batch is classified as the same failure online: a 500 is transient.
    assert all(isinstance(o.error, TransientError) for o in errored)


async def test_a_refused_request_inside_a_batch_is_an_invalid_request_not_a_retry(
    server: FakeProviderServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.inject(Fault.http(400, message="bad params"), model="claude-haiku-5-5")
    async with batches_of("anthropic/claude-haiku-5-5", "direct", monkeypatch) as (
        _model,
        api,
    ):
        created = await api.create(entries(api, tmp_path / "in.jsonl", 2), 2, "jury-t-400")
        got = await outcomes(api, created.id)
    assert got["r0"].kind == "errored"
    assert isinstance(got["r0"].error, InvalidRequestError)
    assert got["r1"].kind == "succeeded"


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("spec", JURORS)
async def test_a_429_on_create_is_classified_with_its_retry_after(
    server: FakeProviderServer,
    spec: str,
    transport: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server.inject(Fault.http(429, retry_after=7), model=BATCHES)
    async with batches_of(spec, transport, monkeypatch) as (model, api):
        try:
            await api.create(entries(api, tmp_path / "in.jsonl", 1), 1, "jury-t-429")
        except Exception as exc:  # each transport raises its own; the adapter classifies
            error = model.classify_error(exc)
        else:
            pytest.fail("the create was not refused")
    assert isinstance(error, RateLimitedError)
    assert error.retry_after == 7


async def test_compatible_servers_and_offline_jurors_have_no_batch_api(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ACME_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("ACME_API_KEY", "k")
    assert resolve_model("openai-api/acme/llama-3.1-8b").batches() is None
    assert resolve_model("offline/reference").batches() is None


def _refused_by_its_api(spec: str, line: dict[str, Any]) -> dict[str, Any]:
    """`line` (one request of a batch input) changed as its provider's API refuses online
    (the strict fake's rules): the body inside the line, changed in place."""
    body: dict[str, Any] = line.get("body") or line.get("params") or line["request"]
    if spec == OPENAI:
        body["temperature"] = 0.5  # a reasoning family takes no temperature
    elif spec == ANTHROPIC:
        body["reasoning_effort"] = "low"  # not a key of Anthropic's Messages request
    else:
        body["generationConfig"]["frequencyPenalty"] = 0.5  # 3.5 Flash-Lite refuses penalties
    return body


# Anthropic's unknown key is refused by the rule the fake reads from the SDK's request types.
@pytest.mark.parametrize(
    "spec", [OPENAI, pytest.param(ANTHROPIC, marks=needs("anthropic")), GOOGLE]
)
async def test_a_request_inside_a_batch_is_held_to_the_rules_of_its_online_call(
    server: FakeProviderServer, spec: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script_jurors(server)
    async with batches_of(spec, "direct", monkeypatch) as (model, api):
        lines = [
            json.loads(api.entry(f"r{n}", request_for(c))) for n, c in enumerate(make_cases(2))
        ]
        body = _refused_by_its_api(spec, lines[0])
        path = tmp_path / "in.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        with pytest.raises(HttpStatusError) as online:
            await model.transport.post(model.model, body)
        got = await outcomes(api, (await api.create(path, 2, "jury-t-strict")).id)
        # The lenient double takes the same batch: the refusal is the strict rule's.
        server.strict = False
        lenient = await outcomes(api, (await api.create(path, 2, "jury-t-lenient")).id)
    assert online.value.status == 400
    refused = got["r0"]
    assert refused.kind == "errored"
    assert isinstance(refused.error, InvalidRequestError)
    # The same words as the online refusal, not a batch-level failure.
    words = json.loads(online.value.body)["error"]["message"]
    assert words in str(refused.error)
    assert got["r1"].kind == "succeeded"
    assert {o.kind for o in lenient.values()} == {"succeeded"}
