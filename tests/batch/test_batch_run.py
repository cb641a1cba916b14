"""Batch runs against the fake server: the verdicts of the same run online, re-asks in a
follow-up batch, failed requests retried and then unavailable (never a fail), 429s on
create waited out, submit-and-come-back, and a kill while a batch was being created."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from batch_helpers import (
    ANTHROPIC,
    GOOGLE,
    JURORS,
    OPENAI,
    batch_panel,
    inner_bodies,
    make_cases,
    model_id,
    run_batches,
    script_jurors,
)

from jury import Case, CaseVerdict, Juror, Jury, Panel, Verdict, VoteStatus
from jury.batch import _dispatch as dispatch
from jury.batch._store import BatchStore
from jury.panel._batch_settings import BatchSettings
from jury.testing import FakeClock, FakeProviderServer, Fault
from jury.testing._batches import BATCHES


async def online(panel: Panel, cases: list[Case]) -> dict[str, CaseVerdict]:
    async with Jury(panel, checks=None, clock=FakeClock()) as jury:
        return {v.case_id: v async for v in jury.evaluate(cases)}


def decided(verdict: CaseVerdict) -> tuple[Any, ...]:
    """What a verdict decided, without timings and accounting."""
    votes = sorted((v.juror, v.status, tuple(sorted(v.scores.items()))) for v in verdict.votes)
    metrics = {name: result.value for name, result in verdict.metrics.items()}
    return verdict.verdict, metrics, votes


async def test_a_batch_run_gives_the_verdicts_of_the_same_run_online(
    server: FakeProviderServer, tmp_path: Path
) -> None:
    # Unmarked, the fake is priced as a real provider's batches are (its marked replies cost
    # $0: see test_batch_cli), so that the batch discount shows.
    server.mark = False
    script_jurors(server)
    cases = make_cases(200)
    panel = batch_panel()
    batched, result = await run_batches(panel, cases, tmp_path / "run")
    assert result.finished
    sent = len(server.requests)
    assert {k: decided(v) for k, v in batched.items()} == {
        k: decided(v) for k, v in (await online(panel, cases)).items()
    }
    # One batch per model, and not one online call during the batch run.
    assert Counter(r.path for r in server.requests[:sent] if r.method == "POST") == {
        "/v1/files": 1,
        "/v1/batches": 1,
        "/v1/messages/batches": 1,
        "/v1beta/models/gemini-3.5-flash-lite:batchGenerateContent": 1,
    }
    assert {v.verdict for v in batched.values()} == {Verdict.PASS, Verdict.FAIL}
    for verdict in batched.values():
        assert [vote.calls.batched for vote in verdict.votes] == [1, 1, 1]
        for vote in verdict.votes:
            assert vote.calls.cost is not None
            assert vote.calls.batch_saving is not None
            assert vote.calls.batch_saving > 0


async def test_invalid_replies_are_asked_again_in_a_follow_up_batch(
    server: FakeProviderServer, tmp_path: Path
) -> None:
    script_jurors(server)
    server.inject(Fault.out_of_range(), model=model_id(ANTHROPIC), times=5)
    cases = make_cases(20)
    verdicts, result = await run_batches(batch_panel(), cases, tmp_path / "run")
    assert result.finished
    store = BatchStore(tmp_path / "run")
    models = Counter(row.model for row in store.all_batches())
    store.close()
    assert models == {OPENAI: 1, ANTHROPIC: 2, GOOGLE: 1}
    reasked = [vote for verdict in verdicts.values() for vote in verdict.votes if vote.calls.reasks]
    assert len(reasked) == 5
    assert all(v.juror == ANTHROPIC and v.status is VoteStatus.VALID for v in reasked)
    assert all(v.calls.attempts == 2 and v.calls.batched == 2 for v in reasked)
    # The follow-up carries the invalid reply and the re-ask, as an online re-ask would.
    asked = [r for r in server.batched if r.model == model_id(ANTHROPIC)]
    follow_ups = [r for r in asked if len(r.body["messages"]) == 3]
    assert len(follow_ups) == 5


async def test_requests_that_error_or_expire_are_retried_and_never_fail_a_case(
    server: FakeProviderServer, tmp_path: Path
) -> None:
    script_jurors(server)
    cases = make_cases(300)
    clean = await online(batch_panel(), cases)
    server.batches.faults(errored=0.05, expired=0.02)
    verdicts, result = await run_batches(batch_panel(), cases, tmp_path / "run")
    assert result.finished
    assert set(verdicts) == set(clean)
    retried = BatchStore(tmp_path / "run")
    tries = Counter(tries for _, _, tries, *_ in retried.rows())
    retried.close()
    assert tries[2] > 0  # the failed requests went into second batches
    for case_id, verdict in verdicts.items():
        if verdict.verdict is Verdict.INCONCLUSIVE:
            assert verdict.reasons, case_id  # always a named reason
        else:
            assert verdict.verdict is clean[case_id].verdict, case_id


async def test_a_request_that_keeps_failing_is_an_unavailable_vote_with_its_story(
    server: FakeProviderServer, tmp_path: Path
) -> None:
    script_jurors(server)
    cases = make_cases(60)
    server.batches.faults(errored=0.6)
    panel = batch_panel(batch=BatchSettings(poll=0.01, retries=0))
    verdicts, _ = await run_batches(panel, cases, tmp_path / "run")
    unavailable = [v for verdict in verdicts.values() for v in verdict.votes if v.error]
    assert unavailable
    assert all(v.status is VoteStatus.UNAVAILABLE for v in unavailable)
    assert all("batch: the request errored in 1 batch" in (v.error or "") for v in unavailable)
    short = [v for v in verdicts.values() if v.valid_votes < 2]
    assert short
    assert all(v.verdict is Verdict.INCONCLUSIVE for v in short)
    assert all(any("quorum" in reason for reason in v.reasons) for v in short)


async def test_a_request_expired_in_every_batch_says_how_often_it_was_sent_as_its_attempts(
    server: FakeProviderServer, tmp_path: Path
) -> None:
    script_jurors(server)
    cases = make_cases(4)
    server.batches.faults(expire_batches=1.0)
    # The default: an expired request is sent once more, in a new batch, then given up.
    assert BatchSettings().retries == 1
    verdicts, _ = await run_batches(batch_panel(), cases, tmp_path / "run")
    votes = [vote for verdict in verdicts.values() for vote in verdict.votes]
    assert len(votes) == len(cases) * len(JURORS)
    assert len(server.batched) == 2 * len(votes)  # each request went into two batches
    for vote in votes:
        assert vote.status is VoteStatus.UNAVAILABLE
        assert "the request expired in 2 batches (sent twice)" in (vote.error or "")
        assert "attempt" not in (vote.error or "")  # no "(after 1 attempt)" beside it
        assert "expired in 2 batches (sent twice): expired" not in (vote.error or "")
        assert vote.calls.attempts == 2


async def test_every_batch_a_request_went_into_is_one_of_its_attempts(
    server: FakeProviderServer, tmp_path: Path
) -> None:
    script_jurors(server)
    server.batches.faults(expired=0.3)
    verdicts, _ = await run_batches(batch_panel(), make_cases(40), tmp_path / "run")
    votes = [vote for verdict in verdicts.values() for vote in verdict.votes]
    resent = [vote for vote in votes if vote.calls.attempts == 2]
    # Answered in its second batch, or expired in both: either way sent twice.
    assert any(vote.status is VoteStatus.VALID for vote in resent)
    assert any(vote.status is VoteStatus.UNAVAILABLE for vote in resent)
    assert sum(vote.calls.attempts for vote in votes) == len(server.batched)


async def test_batch_fallback_online_asks_failed_requests_online(
    server: FakeProviderServer, tmp_path: Path
) -> None:
    script_jurors(server)
    cases = make_cases(100)
    clean = await online(batch_panel(), cases)
    server.requests.clear()
    server.batches.faults(errored=0.1)
    panel = batch_panel(batch_fallback="online")
    verdicts, _ = await run_batches(panel, cases, tmp_path / "run")
    asked_online = [r for r in server.requests if r.model != BATCHES]
    store = BatchStore(tmp_path / "run")
    tries = Counter((tries, state) for _, _, tries, _, _, state in store.rows())
    batches = len(store.all_batches())
    store.close()
    # Each request that errored in its batch was asked once more, online, and kept.
    assert tries[(1, "errored")] > 0
    assert len(asked_online) == tries[(1, "errored")] == tries[(2, "online")]
    assert batches == 3  # no second batch: the retries went online
    # Each send is an attempt: its batch, then online.
    votes = [vote for verdict in verdicts.values() for vote in verdict.votes]
    assert sum(vote.calls.attempts for vote in votes) == len(server.batched) + len(asked_online)
    assert {k: decided(v) for k, v in verdicts.items()} == {k: decided(v) for k, v in clean.items()}


async def test_a_429_on_create_is_waited_out(server: FakeProviderServer, tmp_path: Path) -> None:
    script_jurors(server)
    server.inject(Fault.http(429, retry_after=5), model=BATCHES, times=2)
    clock = FakeClock()
    verdicts, result = await run_batches(
        batch_panel(), make_cases(10), tmp_path / "run", clock=clock
    )
    assert result.finished
    assert len(verdicts) == 10
    assert len([s for s in clock.sleeps if s >= 5]) == 2
    creates = [r for r in server.requests if r.model == BATCHES and r.method == "POST"]
    assert [r.status for r in creates].count(429) == 2


async def test_submit_only_sends_and_a_resumed_run_collects_without_sending_again(
    server: FakeProviderServer, tmp_path: Path
) -> None:
    script_jurors(server)
    server.batches.delay = 3600.0
    cases = make_cases(30)
    run = tmp_path / "run"
    verdicts, pending = await run_batches(batch_panel(), cases, run, submit_only=True)
    assert (verdicts, pending.waiting, len(pending.pending)) == ({}, 30, 3)
    assert all(row.provider_id for row in pending.pending)
    again, still = await run_batches(batch_panel(), cases, run, submit_only=True)
    assert (again, still.waiting) == ({}, 30)
    for job in server.batches.jobs.values():
        job.ends = time.time()  # the providers finish
    done, result = await run_batches(batch_panel(), cases, run, submit_only=True)
    assert result.finished
    assert len(done) == 30
    bodies = inner_bodies(server.batched)
    assert len(bodies) == len(set(bodies)) == 90


async def test_a_run_killed_while_creating_its_batches_finds_them_instead_of_sending_again(
    server: FakeProviderServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script_jurors(server)
    cases = make_cases(12)
    run = tmp_path / "run"

    def killed(store: Any, notify: Any, row: Any, status: Any) -> None:
        raise KeyboardInterrupt  # the process dies as the provider's answer arrives

    with monkeypatch.context() as patch:
        patch.setattr(dispatch, "submitted", killed)
        with pytest.raises(KeyboardInterrupt):
            await run_batches(batch_panel(), cases, run)
    store = BatchStore(run)
    states = Counter(row.state for row in store.all_batches())
    store.close()
    assert states == {"creating": 1, "sealed": 2}
    verdicts, result = await run_batches(batch_panel(), cases, run)
    assert result.finished
    assert len(verdicts) == 12
    bodies = inner_bodies(server.batched)
    assert len(bodies) == len(set(bodies)) == 36


async def test_a_juror_without_a_batch_api_is_judged_online_beside_the_batches(
    server: FakeProviderServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script_jurors(server)
    monkeypatch.setenv("ACME_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("ACME_API_KEY", "k")
    compatible = "openai-api/acme/llama-3.1-8b-instruct"
    jurors = (Juror(model=OPENAI), Juror(model=ANTHROPIC), Juror(model=compatible))
    panel = Panel(jurors=jurors, batch=BatchSettings(poll=0.01))
    notes: list[str] = []
    verdicts, result = await run_batches(
        panel, make_cases(8), tmp_path / "run", notify=notes.append
    )
    assert result.finished
    for verdict in verdicts.values():
        batched = {vote.juror: vote.calls.batched for vote in verdict.votes}
        assert batched == {OPENAI: 1, ANTHROPIC: 1, compatible: 0}
    assert len(server.requests_for("llama-3.1-8b-instruct")) == 8


async def test_a_batch_refused_as_a_whole_leaves_its_votes_unavailable(
    server: FakeProviderServer, tmp_path: Path
) -> None:
    script_jurors(server)
    server.inject(Fault.http(400, message="input refused"), model=BATCHES, times=1)
    verdicts, result = await run_batches(batch_panel(), make_cases(6), tmp_path / "run")
    assert result.finished
    refused = [vote for verdict in verdicts.values() for vote in verdict.votes if vote.error]
    assert len(refused) == 6
    assert all("the batch was refused" in (vote.error or "") for vote in refused)
    # Two valid votes of three still make a quorum: the cases are decided.
    assert all(v.verdict is not Verdict.INCONCLUSIVE for v in verdicts.values())


def test_batch_jurors_follow_the_juror_then_the_panel_then_the_command_line() -> None:
    from jury.batch._run import batch_jurors

    jurors = (
        Juror(model=OPENAI, batch=False),
        Juror(model=ANTHROPIC),
        Juror(model=GOOGLE, batch=True),
    )
    assert batch_jurors(Panel(jurors=jurors), all_jurors=False) == [False, False, True]
    assert batch_jurors(Panel(jurors=jurors), all_jurors=True) == [False, True, True]
    with_table = Panel(jurors=jurors, batch=BatchSettings())
    assert batch_jurors(with_table, all_jurors=False) == [False, True, True]
    assert JURORS == (OPENAI, ANTHROPIC, GOOGLE)
