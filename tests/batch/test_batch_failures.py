"""Batch failure paths against the strict fake: a batch over OpenAI's enqueued-token limit,
batches refused for their bytes, requests that time out inside a batch, downloads of results
that fail for a while, results an archive took away, and Gemini's failed batches over the
SDK transport. Each is sent again, smaller or later, and never paid twice; what cannot be
had says why."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from batch_helpers import (
    ANTHROPIC,
    GOOGLE,
    OPENAI,
    inner_bodies,
    make_cases,
    model_id,
    request_for,
    run_batches,
    script_jurors,
)
from extras import needs
from test_batch_wire import batches_of, entries, outcomes

from jury import Juror, Panel, RetrySettings, Verdict, VoteStatus
from jury.adapters._registry import resolve_model
from jury.batch._dispatch import Dispatcher
from jury.batch._store import BatchStore, tokens_of
from jury.panel._batch_settings import BatchSettings
from jury.testing import FakeProviderServer, Fault
from jury.testing._batches import BATCHES, RESULTS


def line_of(spec: str) -> bytes:
    """One request's line in `spec`'s batch input, as the run writes it."""
    api = resolve_model(spec).batches()
    assert api is not None
    return api.entry("t1-" + "0" * 56, request_for(make_cases(1)[0])) + b"\n"


def one_juror(spec: str, **settings: object) -> Panel:
    batch = settings.pop("batch", BatchSettings(poll=0.01))
    return Panel(
        jurors=(Juror(model=spec),),
        batch=batch,
        retry=RetrySettings(attempts=2, base_delay=0.01, max_delay=0.05),
        **settings,
    )


def failed_jobs(server: FakeProviderServer) -> list[str]:
    return [str(error["code"]) for job in server.batches.jobs.values() for error in job.failure]


# --- OpenAI's enqueued-token limit ------------------------------------------------------


async def test_a_batch_over_the_enqueued_token_limit_is_sent_again_smaller_not_unavailable(
    server: FakeProviderServer, tmp_path: Path
) -> None:
    script_jurors(server)
    cases = make_cases(12)
    # The account takes about five requests' tokens in flight; the run sends twelve at once.
    server.batches.enqueued = 5 * tokens_of(line_of(OPENAI))
    verdicts, result = await run_batches(one_juror(OPENAI), cases, tmp_path / "run")
    assert result.finished
    assert len(verdicts) == 12
    votes = [vote for verdict in verdicts.values() for vote in verdict.votes]
    assert all(vote.status is VoteStatus.VALID for vote in votes), [v.error for v in votes]
    assert all(vote.calls.batched == 1 for vote in votes)
    assert "token_limit_exceeded" in failed_jobs(server)
    # The batches that passed were smaller than the one refused, and nothing ran twice.
    passed = [len(job.results) for job in server.batches.jobs.values() if not job.failure]
    assert max(passed) < 12
    assert sum(passed) == 12
    bodies = inner_bodies(server.batched)
    assert len(bodies) == len(set(bodies)) == 12


@pytest.mark.parametrize("split", ["before", "during"])
async def test_a_run_killed_while_resending_a_batch_smaller_loses_nothing_and_pays_once(
    server: FakeProviderServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split: str
) -> None:
    script_jurors(server)
    cases = make_cases(12)
    run = tmp_path / "run"
    server.batches.enqueued = 5 * tokens_of(line_of(OPENAI))

    def killed(*args: object) -> None:
        raise KeyboardInterrupt  # the process dies there

    with monkeypatch.context() as patch:
        if split == "before":
            patch.setattr(Dispatcher, "_split", killed)
        else:
            real = BatchStore.split

            def dies_in_split(self: BatchStore, label: str, labels: Any) -> Any:
                # Its parts written, the transaction that moves the requests not committed,
                # and nothing committed on the way out.
                self.commit = killed  # type: ignore[method-assign]
                self.close = self._db.close  # type: ignore[method-assign]
                return real(self, label, labels)

            patch.setattr(BatchStore, "split", dies_in_split)
        with pytest.raises(KeyboardInterrupt):
            await run_batches(one_juror(OPENAI), cases, run)
    store = BatchStore(run)
    rows = [(row.state, row.requests) for row in store.all_batches()]
    store.close()
    assert rows == [("sealed", 12)]  # the refused batch, whole, ready to be sent again
    verdicts, result = await run_batches(one_juror(OPENAI), cases, run)
    assert result.finished
    votes = [vote for verdict in verdicts.values() for vote in verdict.votes]
    assert len(votes) == 12
    assert all(vote.status is VoteStatus.VALID for vote in votes), [v.error for v in votes]
    bodies = inner_bodies(server.batched)
    assert len(bodies) == len(set(bodies)) == 12


async def test_batches_keep_to_the_token_budget_in_each_batch_and_in_flight(
    server: FakeProviderServer, tmp_path: Path
) -> None:
    script_jurors(server)
    budget = 3 * tokens_of(line_of(OPENAI))
    # The fake fails any batch that would take the model's batches in flight over the
    # budget; its batches stay in flight for a while, so that several would overlap.
    server.batches.enqueued = budget
    server.batches.delay = 0.2
    panel = one_juror(OPENAI, batch=BatchSettings(poll=0.01, tokens=budget, in_flight=8))
    verdicts, result = await run_batches(panel, make_cases(10), tmp_path / "run")
    assert result.finished
    assert all(v.verdict is not Verdict.INCONCLUSIVE for v in verdicts.values())
    store = BatchStore(tmp_path / "run")
    rows = store.all_batches()
    store.close()
    assert len(rows) >= 4
    assert all(0 < row.tokens <= budget for row in rows)
    # Never refused: the next batch waited until the one in flight ended.
    assert failed_jobs(server) == []


# --- bytes -----------------------------------------------------------------------------


def test_byte_limits_are_decimal_megabytes() -> None:
    from jury.providers._anthropic_batch import AnthropicBatches
    from jury.providers._openai_batch import OpenAIBatches

    assert OpenAIBatches.limits.bytes == 200_000_000
    assert AnthropicBatches.limits.bytes == 256_000_000


@pytest.mark.parametrize(
    ("spec", "module", "refusal"),
    [
        (ANTHROPIC, "jury.testing._anthropic_batch", 413),
        (OPENAI, "jury.testing._openai_batch", 400),
    ],
)
async def test_a_batch_refused_for_its_bytes_is_split_and_sent_again(
    server: FakeProviderServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    spec: str,
    module: str,
    refusal: int,
) -> None:
    script_jurors(server)
    # The provider takes about five requests' bytes in a batch; the run sends eight.
    monkeypatch.setattr(f"{module}.MAX_BYTES", 5 * len(line_of(spec)))
    verdicts, result = await run_batches(one_juror(spec), make_cases(8), tmp_path / "run")
    assert result.finished
    votes = [vote for verdict in verdicts.values() for vote in verdict.votes]
    assert len(votes) == 8
    assert all(vote.status is VoteStatus.VALID for vote in votes), [v.error for v in votes]
    refused = [r for r in server.requests if r.model == BATCHES and r.status == refusal]
    assert len(refused) == 1
    bodies = inner_bodies(server.batched)
    assert len(bodies) == len(set(bodies)) == 8


def test_a_split_killed_before_its_commit_leaves_the_batch_whole(tmp_path: Path) -> None:
    store = BatchStore(tmp_path)
    label = store.next_label(1)
    path = store.open_batch(label, OPENAI)
    lines = [json.dumps({"custom_id": f"c{n}"}).encode() + b"\n" for n in range(5)]
    for n in range(5):
        store.queue(f"key{n}", 1, OPENAI, f"case{n}", label)
    path.write_bytes(b"".join(lines))
    store.update(label, "sealed", requests=5, bytes=sum(map(len, lines)))
    labels = [store.next_label(1), store.next_label(1)]

    def killed() -> None:
        raise KeyboardInterrupt

    store.commit = killed  # type: ignore[method-assign]
    with pytest.raises(KeyboardInterrupt):
        store.split(label, labels)
    store._db.close()  # the process dies: nothing uncommitted survives
    again = BatchStore(tmp_path)
    assert [(r.label, r.state, r.requests) for r in again.all_batches()] == [(label, "sealed", 5)]
    assert again.input(label).read_bytes() == b"".join(lines)
    made = again.split(label, [again.next_label(1), again.next_label(1)])
    rows = again.all_batches()
    assert [(r.label, r.state, r.requests) for r in rows] == [
        (made[0], "sealed", 2),
        (made[1], "sealed", 3),
    ]
    assert b"".join(again.input(m).read_bytes() for m in made) == b"".join(lines)
    assert not again.input(label).exists()
    moved = Counter(batch for _, _, _, _, batch, _ in again.rows())
    again.close()
    assert moved == {made[0]: 2, made[1]: 3}


# --- request_timeout -------------------------------------------------------------------


async def test_openai_request_timeout_lines_are_read_as_expired_and_retried(
    server: FakeProviderServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.batches.faults(timed_out=0.5)
    async with batches_of(OPENAI, "direct", monkeypatch) as (_model, api):
        created = await api.create(entries(api, tmp_path / "in.jsonl", 20), 20, "jury-t-timeout")
        got = await outcomes(api, created.id)
    error_file = server.batches.files[str(server.batches.jobs[created.id].data["errors"])][2]
    timed_out = [
        json.loads(line)["custom_id"]
        for line in error_file.splitlines()
        if json.loads(line)["error"]["code"] == "request_timeout"
    ]
    assert timed_out
    assert all(got[custom].kind == "expired" for custom in timed_out)


async def test_a_run_whose_requests_time_out_in_their_batch_retries_them(
    server: FakeProviderServer, tmp_path: Path
) -> None:
    script_jurors(server)
    server.batches.faults(timed_out=0.3)
    # Each try of a request meets its own fate (the fake hashes the custom ID, try included).
    panel = one_juror(OPENAI, batch=BatchSettings(poll=0.01, retries=3))
    verdicts, result = await run_batches(panel, make_cases(20), tmp_path / "run")
    assert result.finished
    votes = [vote for verdict in verdicts.values() for vote in verdict.votes]
    assert all(vote.status is VoteStatus.VALID for vote in votes), [v.error for v in votes]
    store = BatchStore(tmp_path / "run")
    tries = Counter(tries for _, _, tries, *_ in store.rows())
    store.close()
    assert tries[2] > 0


# --- downloads of results --------------------------------------------------------------


@pytest.mark.parametrize("spec", [OPENAI, ANTHROPIC])
async def test_downloading_results_rides_out_transient_errors_and_raises_none(
    server: FakeProviderServer, tmp_path: Path, spec: str
) -> None:
    script_jurors(server)
    # More failures than one read's attempts (two): the batch is read again at a later poll.
    for fault in (Fault.http(503), Fault.drop(), Fault.http(502)):
        server.inject(fault, model=RESULTS)
    notes: list[str] = []
    verdicts, result = await run_batches(
        one_juror(spec), make_cases(4), tmp_path / "run", notify=notes.append
    )
    assert result.finished
    votes = [vote for verdict in verdicts.values() for vote in verdict.votes]
    assert all(vote.status is VoteStatus.VALID for vote in votes), [v.error for v in votes]
    assert any("results not read yet" in note for note in notes)
    bodies = inner_bodies(server.batched)
    assert len(bodies) == len(set(bodies)) == 4


# --- Anthropic's archived results ------------------------------------------------------


@pytest.mark.parametrize("fallback", ["online", "batch"])
async def test_archived_results_fall_back_online_or_leave_the_case_inconclusive_saying_why(
    server: FakeProviderServer, tmp_path: Path, fallback: str
) -> None:
    script_jurors(server)
    server.batches.delay = 3600.0
    cases = make_cases(3)
    run = tmp_path / "run"
    panel = one_juror(ANTHROPIC, batch_fallback=fallback)
    _, pending = await run_batches(panel, cases, run, submit_only=True)
    assert pending.waiting == 3
    server.batches.end()
    server.batches.archive()
    notes: list[str] = []
    verdicts, result = await run_batches(panel, cases, run, notify=notes.append)
    assert result.finished
    assert any("archived at" in note for note in notes)
    online = server.requests_for(model_id(ANTHROPIC))
    if fallback == "online":
        assert len(online) == 3
        assert all(v.verdict is not Verdict.INCONCLUSIVE for v in verdicts.values())
    else:
        assert online == []
        for verdict in verdicts.values():
            assert verdict.verdict is Verdict.INCONCLUSIVE
            (vote,) = verdict.votes
            assert vote.status is VoteStatus.UNAVAILABLE
            assert "archived at" in (vote.error or "")


# --- Gemini over the SDK ---------------------------------------------------------------


@needs("google")
@pytest.mark.parametrize("fail", [False, True])
async def test_gemini_statuses_keep_batch_stats_and_the_operations_error_over_both_transports(
    server: FakeProviderServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fail: bool
) -> None:
    script_jurors(server)
    server.batches.faults(fail_batches=1.0 if fail else 0.0)
    seen = {}
    for transport in ("direct", "sdk"):
        async with batches_of(GOOGLE, transport, monkeypatch) as (_model, api):
            path = entries(api, tmp_path / f"{transport}.jsonl", 3)
            created = await api.create(path, 3, f"jury-t-{transport}")
            status = await api.retrieve(created.id)
        seen[transport] = (status.state, dict(status.counts), status.failure)
    assert seen["sdk"] == seen["direct"]
    state, counts, failure = seen["sdk"]
    assert counts["requestCount"] == 3
    if fail:
        assert state == "BATCH_STATE_FAILED"
        assert failure == "injected: the batch failed"
    else:
        assert counts["successfulRequestCount"] == 3
        assert failure is None


@needs("openai")
def test_the_fake_words_the_token_limit_as_the_api_does() -> None:
    # The shape the SDK reads (``Batch.errors.data[]``: code, line, message, param).
    from openai.types import Batch

    job = {
        "id": "batch_1",
        "object": "batch",
        "endpoint": "/v1/chat/completions",
        "input_file_id": "file-1",
        "completion_window": "24h",
        "status": "failed",
        "created_at": 1,
        "errors": {"object": "list", "data": [_token_limit_error()]},
    }
    parsed = Batch.model_validate(job)
    assert parsed.errors is not None
    assert parsed.errors.data is not None
    assert parsed.errors.data[0].code == "token_limit_exceeded"


def _token_limit_error() -> dict[str, object]:
    from jury.testing._openai_batch import _token_limit

    return _token_limit("gpt-5.4-mini", 100, 90)
