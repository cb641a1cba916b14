"""The engine's concurrency contract: isolation, failure containment, cancellation, timeouts,
retries and fallbacks."""

from __future__ import annotations

import asyncio
import random
import re
from typing import Any

import pytest

from conftest import case, scores
from jury import (
    AuthenticationError,
    Juror,
    Jury,
    Panel,
    RetrySettings,
    Verdict,
    VoteStatus,
    evaluate,
)
from jury.adapters import InvalidRequestError, JudgeRequest, RateLimitedError, TransientError
from jury.testing import FakeClock, ScriptedModel


def good(_: JudgeRequest) -> dict[str, Any]:
    return scores(5)


async def test_one_juror_raising_never_cancels_the_others() -> None:
    slow = ScriptedModel(good, name="scripted/slow", latency=0.05)
    broken = ScriptedModel([RuntimeError("boom")], name="scripted/broken")

    def typo(_: JudgeRequest) -> Any:
        raise TypeError("a bug in the harness")

    buggy = ScriptedModel(typo, name="scripted/buggy", latency=0.01)
    panel = Panel(jurors=tuple(Juror(model=m) for m in (slow, broken, buggy)), quorum=1)
    async with Jury(panel) as jury:
        verdict = await jury.judge(case())
    status = {v.juror: v.status for v in verdict.votes}
    assert status == {
        "scripted/slow": VoteStatus.VALID,
        "scripted/broken": VoteStatus.UNAVAILABLE,
        "scripted/buggy": VoteStatus.UNAVAILABLE,
    }
    assert slow.calls == 1
    errors = {v.juror: v.error for v in verdict.votes}
    assert "RuntimeError: boom" in (errors["scripted/broken"] or "")
    assert "TypeError: a bug in the harness" in (errors["scripted/buggy"] or "")
    assert verdict.verdict is Verdict.PASS


async def test_cancelling_a_run_raises_and_leaves_no_task_behind() -> None:
    model = ScriptedModel(good, latency=0.02)
    panel = Panel(jurors=(Juror(model=model),), concurrency=8)
    seen: list[str] = []
    ten = asyncio.Event()
    before = asyncio.all_tasks()

    async def consume() -> None:
        async for verdict in evaluate((case(f"c{i}") for i in range(1000)), panel):
            seen.append(verdict.case_id)
            if len(seen) == 10:
                ten.set()

    task = asyncio.create_task(consume())
    await ten.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0)
    assert asyncio.all_tasks() - before == set()
    assert 10 <= len(seen) < 1000


async def test_leaving_the_loop_early_leaves_no_task_behind() -> None:
    model = ScriptedModel(good, latency=0.01)
    before = asyncio.all_tasks()
    async with Jury(Panel(jurors=(Juror(model=model),), concurrency=4)) as jury:
        stream = jury.evaluate(case(f"c{i}") for i in range(100))
        async for verdict in stream:
            assert verdict.verdict is Verdict.PASS
            break
        await stream.aclose()
    assert asyncio.all_tasks() - before == set()
    assert model.calls < 100


async def test_isolation_500_cases_at_once() -> None:
    rng = random.Random(7)

    def echo(request: JudgeRequest) -> dict[str, Any]:
        # The judge repeats the case ID it was sent; a mix-up between cases would show.
        found = re.search(r"Case (\S+) asks", request.user)
        assert found is not None
        return scores(5, reason=f"judged {found.group(1)}")

    models = [
        ScriptedModel(echo, name=f"scripted/j{i}", latency=lambda _: rng.uniform(0, 0.02))
        for i in range(3)
    ]
    panel = Panel(jurors=tuple(Juror(model=m) for m in models), concurrency=500)
    cases = [
        case(f"case-{i}", question=f"Case case-{i} asks: can I return it?") for i in range(500)
    ]
    verdicts = [v async for v in evaluate(cases, panel)]
    assert sorted(v.case_id for v in verdicts) == sorted(c.id for c in cases)
    for verdict in verdicts:
        assert [vote.reason for vote in verdict.votes] == [f"judged {verdict.case_id}"] * 3
    # Every request carried its own case only.
    for model in models:
        for request in model.requests:
            assert request.case is not None
            assert f"Case {request.case.id} asks" in request.user


async def test_an_authentication_error_stops_the_run() -> None:
    model = ScriptedModel(
        [AuthenticationError("401 invalid x-api-key", variable="ANTHROPIC_API_KEY")],
        name="scripted/locked",
    )
    other = ScriptedModel(good, name="scripted/ok", latency=0.01)
    panel = Panel(jurors=(Juror(model=model), Juror(model=other)), concurrency=2)
    with pytest.raises(AuthenticationError) as caught:
        async for _ in evaluate([case(f"c{i}") for i in range(20)], panel):
            pass
    assert caught.value.variable == "ANTHROPIC_API_KEY"
    # Not retried, and no case after the two in flight was started.
    assert model.calls <= 2


async def test_retries_honour_retry_after_and_record_attempts() -> None:
    clock = FakeClock()
    model = ScriptedModel(
        good,
        failures={0: TransientError("503"), 1: RateLimitedError("429", retry_after=7.5)},
    )
    async with Jury(Panel(jurors=(Juror(model=model),)), clock=clock) as jury:
        verdict = await jury.judge(case())
    vote = verdict.votes[0]
    assert vote.status is VoteStatus.VALID
    assert vote.calls.attempts == 3
    assert model.calls == 3
    assert len(clock.sleeps) == 2
    assert 0 <= clock.sleeps[0] <= 1.0  # first backoff: up to base_delay
    assert clock.sleeps[1] >= 7.5  # never sooner than the server asked


async def test_retries_stop_after_the_configured_attempts() -> None:
    clock = FakeClock()
    model = ScriptedModel([TransientError("502 bad gateway")])
    # One asking's attempts are counted: no second chance (tests/engine/test_second_chance.py).
    retry = RetrySettings(attempts=3, second_chance=False)
    async with Jury(Panel(jurors=(Juror(model=model),), retry=retry), clock=clock) as jury:
        verdict = await jury.judge(case())
    vote = verdict.votes[0]
    assert vote.status is VoteStatus.UNAVAILABLE
    assert vote.calls.attempts == 3
    assert "502 bad gateway" in (vote.error or "")
    assert "after 3 attempts" in (vote.error or "")
    assert verdict.verdict is Verdict.INCONCLUSIVE


async def test_a_retry_after_beyond_the_cap_gives_up() -> None:
    clock = FakeClock()
    model = ScriptedModel([RateLimitedError("429", retry_after=3600)])
    retry = RetrySettings(retry_after_cap=60, second_chance=False)
    async with Jury(Panel(jurors=(Juror(model=model),), retry=retry), clock=clock) as jury:
        verdict = await jury.judge(case())
    assert verdict.votes[0].status is VoteStatus.UNAVAILABLE
    assert model.calls == 1
    assert clock.sleeps == []


async def test_invalid_requests_are_not_retried() -> None:
    model = ScriptedModel([InvalidRequestError("400 bad request", status=400)])
    async with Jury(Panel(jurors=(Juror(model=model),)), clock=FakeClock()) as jury:
        verdict = await jury.judge(case())
    assert model.calls == 1
    assert verdict.votes[0].status is VoteStatus.UNAVAILABLE


async def test_a_hanging_attempt_times_out_and_is_retried() -> None:
    model = ScriptedModel(good, latency=lambda call: 10.0 if call == 0 else 0.0)
    panel = Panel(jurors=(Juror(model=model),), timeout=0.05)
    async with Jury(panel, clock=FakeClock()) as jury:
        verdict = await jury.judge(case())
    vote = verdict.votes[0]
    assert vote.status is VoteStatus.VALID
    assert vote.calls.attempts == 2


async def test_the_case_timeout_makes_unfinished_votes_unavailable() -> None:
    fast = ScriptedModel(good, name="scripted/fast")
    stuck = ScriptedModel(good, name="scripted/stuck", latency=10.0)
    # No cool-down: the stuck vote's second chance (tests/engine/test_second_chance.py) is
    # asked at once, and runs out of time again.
    panel = Panel(
        jurors=(Juror(model=fast), Juror(model=stuck)),
        quorum=1,
        case_timeout=0.1,
        timeout=30,
        retry=RetrySettings(cool_down=0),
    )
    async with Jury(panel) as jury:
        verdict = await jury.judge(case())
    status = {v.juror: (v.status, v.error) for v in verdict.votes}
    assert status["scripted/fast"][0] is VoteStatus.VALID
    assert status["scripted/stuck"][0] is VoteStatus.UNAVAILABLE
    assert "ran out of time" in (status["scripted/stuck"][1] or "")
    assert verdict.verdict is Verdict.PASS


async def test_fallbacks_serve_when_the_first_model_is_down() -> None:
    down = ScriptedModel([TransientError("503")], name="scripted/down")
    spare = ScriptedModel(good, name="scripted/spare")
    juror = Juror(model=down, fallbacks=(spare,), name="seat")
    panel = Panel(jurors=(juror,), retry=RetrySettings(attempts=2))
    async with Jury(panel, clock=FakeClock()) as jury:
        verdict = await jury.judge(case())
    vote = verdict.votes[0]
    assert vote.status is VoteStatus.VALID
    assert vote.served_by == "scripted/spare"
    assert vote.juror == "seat"
    assert vote.calls.attempts == 3  # two on the model that was down, one on the spare


async def test_when_every_fallback_fails_the_vote_summarises_every_error() -> None:
    first = ScriptedModel([TransientError("503 overloaded")], name="scripted/first")
    second = ScriptedModel([InvalidRequestError("404 no such model")], name="scripted/second")
    panel = Panel(
        jurors=(Juror(model=first, fallbacks=(second,)),), retry=RetrySettings(attempts=1)
    )
    async with Jury(panel, clock=FakeClock()) as jury:
        verdict = await jury.judge(case())
    error = verdict.votes[0].error or ""
    assert "scripted/first: 503 overloaded" in error
    assert "scripted/second: 404 no such model" in error


async def test_samples_are_aggregated_within_the_juror() -> None:
    model = ScriptedModel([scores(5), scores(3), scores(5)], cycle=False)
    async with Jury(Panel(jurors=(Juror(model=model, samples=3),))) as jury:
        verdict = await jury.judge(case())
    vote = verdict.votes[0]
    assert vote.status is VoteStatus.VALID
    assert vote.scores["correctness"] == 5
    assert [b.scores["correctness"] for b in vote.samples] == [5, 3, 5]
    assert [r.sample for r in model.requests] == [0, 1, 2]


async def test_samples_that_split_evenly_abstain() -> None:
    model = ScriptedModel([scores(5), scores(3)], cycle=False)
    async with Jury(Panel(jurors=(Juror(model=model, samples=2),))) as jury:
        verdict = await jury.judge(case())
    assert verdict.votes[0].status is VoteStatus.ABSTAINED
    assert "split" in verdict.votes[0].reason


async def test_a_case_the_rubric_cannot_render_is_inconclusive() -> None:
    model = ScriptedModel(good)
    # Without checks: by default `answer_present` would fail the case before the rubric.
    async with Jury(Panel(jurors=(Juror(model=model),)), checks=None) as jury:
        verdict = await jury.judge(case(answer=None))
    assert verdict.verdict is Verdict.INCONCLUSIVE
    assert "no answer to judge" in verdict.reasons[0]
    assert model.calls == 0


async def test_evaluate_accepts_async_iterables() -> None:
    async def cases() -> Any:
        for i in range(5):
            await asyncio.sleep(0)
            yield case(f"c{i}")

    panel = Panel(jurors=(Juror(model=ScriptedModel(good)),))
    ids = sorted([v.case_id async for v in evaluate(cases(), panel)])
    assert ids == [f"c{i}" for i in range(5)]


@pytest.mark.parametrize("checks", ["panel", None, False])
async def test_a_jury_runs_the_panels_checks_unless_told_not_to(checks: Any) -> None:
    # The answer is right but the trace never called the expected tool: `jury run` fails it.
    model = ScriptedModel(good)
    skipped_tool = case(expected_tool="getOrderStatus", trace={"tool_calls": []})
    async with Jury(Panel(jurors=(Juror(model=model),)), checks=checks) as jury:
        verdict = await jury.judge(skipped_tool)
    if checks == "panel":
        assert verdict.verdict is Verdict.FAIL
        assert verdict.judges_spared
        assert model.calls == 0
        assert "check tool_choice failed" in verdict.reasons[0]
    else:
        assert verdict.verdict is Verdict.PASS
        assert verdict.checks == ()


async def test_by_default_a_jury_checks_as_jury_run_does() -> None:
    model = ScriptedModel(good)
    skipped_tool = case(expected_tool="getOrderStatus", trace={"tool_calls": []})
    async with Jury(Panel(jurors=(Juror(model=model),))) as jury:
        verdict = await jury.judge(skipped_tool)
    assert verdict.verdict is Verdict.FAIL
    assert [c.name for c in verdict.checks if c.outcome.value == "fail"] == ["tool_choice"]
