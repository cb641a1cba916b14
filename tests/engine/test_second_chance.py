"""A second chance: votes lost to transient errors are asked once more, after a cool-down,
before their cases are decided; votes lost for good reasons are not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import case, scores
from jury import (
    Juror,
    Jury,
    Panel,
    RetrySettings,
    Verdict,
    VoteStatus,
    load_panel,
)
from jury.adapters import InvalidRequestError, JudgeRequest, RateLimitedError, TransientError
from jury.testing import FakeClock, ScriptedModel

COOL_DOWN = 30.0


def good(_: JudgeRequest) -> dict[str, Any]:
    return scores(5)


def bad(_: JudgeRequest) -> dict[str, Any]:
    return scores(2)


def flaky(*errors: BaseException, reply: Any = good, name: str = "scripted/flaky") -> ScriptedModel:
    """A judge whose first calls fail with `errors`, one each, and then answer `reply`."""
    return ScriptedModel(reply, name=name, failures=dict(enumerate(errors)))


def panel(*models: ScriptedModel, **retry: Any) -> Panel:
    # One attempt a call: each scripted error is a call that failed for good.
    settings = RetrySettings(attempts=1, cool_down=COOL_DOWN, **retry)
    return Panel(jurors=tuple(Juror(model=m) for m in models), retry=settings)


async def test_a_vote_lost_to_a_5xx_is_asked_again_after_the_cool_down_and_decides_the_case() -> (
    None
):
    clock = FakeClock()
    steady = ScriptedModel(good, name="scripted/steady")
    model = flaky(TransientError("503 service unavailable"))
    async with Jury(panel(steady, model), clock=clock) as jury:
        verdict = await jury.judge(case())
    assert verdict.verdict is Verdict.PASS
    assert model.calls == 2
    assert steady.calls == 1
    assert COOL_DOWN in clock.sleeps
    vote = next(v for v in verdict.votes if v.juror == "scripted/flaky")
    assert vote.status is VoteStatus.VALID
    assert vote.second_chance is not None
    assert "503 service unavailable" in vote.second_chance.first_error
    assert vote.second_chance.first_attempts == 1
    assert vote.second_chance.waited_s >= COOL_DOWN
    # The vote's calls count both askings.
    assert vote.calls.attempts == 2


async def test_a_vote_lost_to_a_429_past_its_wait_gets_a_second_chance() -> None:
    clock = FakeClock()
    model = flaky(RateLimitedError("429 slow down", retry_after=3600))
    steady = ScriptedModel(good, name="scripted/steady")
    async with Jury(panel(steady, model, retry_after_cap=60), clock=clock) as jury:
        verdict = await jury.judge(case())
    assert verdict.verdict is Verdict.PASS
    assert model.calls == 2


async def test_a_rejected_request_is_not_asked_again() -> None:
    clock = FakeClock()
    steady = ScriptedModel(good, name="scripted/steady")
    model = flaky(InvalidRequestError("400 the request is malformed"))
    async with Jury(panel(steady, model), clock=clock) as jury:
        verdict = await jury.judge(case())
    assert verdict.verdict is Verdict.INCONCLUSIVE
    assert model.calls == 1
    assert COOL_DOWN not in clock.sleeps
    vote = next(v for v in verdict.votes if v.juror == "scripted/flaky")
    assert vote.status is VoteStatus.UNAVAILABLE
    assert vote.second_chance is None


async def test_garbage_replies_make_an_invalid_vote_that_is_not_asked_again() -> None:
    clock = FakeClock()
    steady = ScriptedModel(good, name="scripted/steady")
    garbage = ScriptedModel(["not json at all"], name="scripted/garbage")
    async with Jury(panel(steady, garbage), clock=clock) as jury:
        verdict = await jury.judge(case())
    assert verdict.verdict is Verdict.INCONCLUSIVE
    vote = next(v for v in verdict.votes if v.juror == "scripted/garbage")
    assert vote.status is VoteStatus.INVALID
    assert garbage.calls == 1 + jury.panel.reasks
    assert COOL_DOWN not in clock.sleeps


async def test_a_second_asking_that_fails_again_leaves_the_case_inconclusive_with_both_errors() -> (
    None
):
    clock = FakeClock()
    steady = ScriptedModel(good, name="scripted/steady")
    model = flaky(TransientError("503 the first outage"), TransientError("502 the second one"))
    async with Jury(panel(steady, model), clock=clock) as jury:
        verdict = await jury.judge(case())
    assert verdict.verdict is Verdict.INCONCLUSIVE
    assert model.calls == 2
    vote = next(v for v in verdict.votes if v.juror == "scripted/flaky")
    assert vote.status is VoteStatus.UNAVAILABLE
    assert "502 the second one" in (vote.error or "")
    assert vote.second_chance is not None
    assert "503 the first outage" in vote.second_chance.first_error
    assert vote.calls.attempts == 2


async def test_a_case_whose_verdict_stands_without_the_lost_vote_is_decided_at_once() -> None:
    clock = FakeClock()
    one = ScriptedModel(good, name="scripted/one")
    two = ScriptedModel(good, name="scripted/two")
    model = flaky(TransientError("503 service unavailable"))
    async with Jury(panel(one, two, model), clock=clock) as jury:
        verdict = await jury.judge(case())
    # Two of three jurors give every metric 5: whatever the third says, the medians pass.
    assert verdict.verdict is Verdict.PASS
    assert model.calls == 1
    assert COOL_DOWN not in clock.sleeps
    vote = next(v for v in verdict.votes if v.juror == "scripted/flaky")
    assert vote.status is VoteStatus.UNAVAILABLE


async def test_a_case_split_without_the_lost_vote_waits_for_it() -> None:
    clock = FakeClock()
    yes = ScriptedModel(good, name="scripted/yes")
    no = ScriptedModel(bad, name="scripted/no")
    model = flaky(TransientError("503 service unavailable"), reply=bad)
    async with Jury(panel(yes, no, model), clock=clock) as jury:
        verdict = await jury.judge(case())
    assert model.calls == 2
    assert verdict.verdict is Verdict.FAIL


async def test_with_second_chance_off_a_lost_vote_leaves_the_case_inconclusive() -> None:
    clock = FakeClock()
    steady = ScriptedModel(good, name="scripted/steady")
    model = flaky(TransientError("503 service unavailable"))
    async with Jury(panel(steady, model, second_chance=False), clock=clock) as jury:
        verdict = await jury.judge(case())
    assert verdict.verdict is Verdict.INCONCLUSIVE
    assert model.calls == 1
    assert clock.sleeps == []


async def test_a_held_case_gives_its_slot_back_and_its_verdict_comes_after_the_others() -> None:
    clock = FakeClock()
    steady = ScriptedModel(good, name="scripted/steady")
    # Only the first call fails: that of the first case.
    model = flaky(TransientError("503 service unavailable"))
    settings = panel(steady, model).model_copy(update={"concurrency": 1})
    async with Jury(settings, clock=clock) as jury:
        cases = [case("c1"), case("c2"), case("c3")]
        order = [(verdict.case_id, verdict.verdict) async for verdict in jury.evaluate(cases)]
    # With one slot, the held c1 would block c2 and c3 for ever if it kept its slot.
    assert order == [("c2", Verdict.PASS), ("c3", Verdict.PASS), ("c1", Verdict.PASS)]
    assert model.calls == 4


async def test_held_cases_past_the_streams_bound_are_asked_again_before_the_input_ends() -> None:
    clock = FakeClock()
    steady = ScriptedModel(good, name="scripted/steady")
    model = flaky(*(TransientError("503") for _ in range(3)))
    settings = panel(steady, model).model_copy(update={"concurrency": 1})
    cases = [case(f"c{n}") for n in range(1, 7)]
    async with Jury(settings, clock=clock) as jury:
        stream = jury.evaluate(cases)
        stream._run.held_at_most = 1
        order = [verdict.case_id async for verdict in stream]
    # c1, c2 and c3 are held; the second held pushes c1 out to be asked again at once.
    assert order.index("c1") < order.index("c6")
    assert set(order) == {f"c{n}" for n in range(1, 7)}


async def test_a_budget_spent_before_the_second_chance_leaves_the_case_inconclusive_unpaid() -> (
    None
):
    clock = FakeClock()
    steady = ScriptedModel(good, name="scripted/steady", cost_per_call=1.0)
    model = ScriptedModel(
        good,
        name="scripted/flaky",
        failures={0: TransientError("503 service unavailable")},
        cost_per_call=1.0,
    )
    settings = panel(steady, model).model_copy(update={"concurrency": 1})
    async with Jury(settings, clock=clock, max_cost=1.5) as jury:
        verdicts = {v.case_id: v async for v in jury.evaluate([case("c1"), case("c2")])}
    # c1 is held after its flaky call failed; c2's first call spends the budget.
    held = verdicts["c1"]
    assert held.verdict is Verdict.INCONCLUSIVE
    assert model.calls == 1
    vote = next(v for v in held.votes if v.juror == "scripted/flaky")
    assert vote.second_chance is not None
    assert "503 service unavailable" in vote.second_chance.first_error
    assert "budget" in (vote.error or "")


def test_the_jury_file_sets_the_cool_down_and_turns_the_second_chance_off(
    tmp_path: Path,
) -> None:
    path = tmp_path / "jury.toml"
    path.write_text(
        'jurors = ["offline/reference"]\n[retry]\nsecond_chance = false\ncool_down = 5\n'
    )
    loaded = load_panel(path)
    assert loaded.retry.second_chance is False
    assert loaded.retry.cool_down == 5.0
    defaults = RetrySettings()
    assert defaults.second_chance is True
    assert defaults.cool_down == COOL_DOWN


async def test_a_cascade_decides_a_held_case_at_the_tier_it_reached_with_the_vote_asked_again() -> (
    None
):
    clock = FakeClock()
    steady = ScriptedModel(good, name="scripted/steady")
    model = flaky(TransientError("503 service unavailable"))
    later = ScriptedModel(bad, name="scripted/later")
    jurors = (Juror(model=steady), Juror(model=model), Juror(model=later, tier=2))
    settings = Panel(jurors=jurors, retry=RetrySettings(attempts=1, cool_down=COOL_DOWN))
    async with Jury(settings, clock=clock) as jury:
        verdict = await jury.judge(case())
    # Tier 1 lost a vote and fell short of its quorum, so tier 2 was asked; 5 against 2 tied.
    # Asked again, the lost vote gives 5: the medians pass, at tier 2.
    assert model.calls == 2
    assert later.calls == 1
    assert len(verdict.escalations) == 1
    assert verdict.verdict is Verdict.PASS
