"""A second chance for votes lost to transient errors, before their cases are decided.

A vote that ended unavailable after transient errors only (5xx, timeouts, connection errors,
429s past their wait, the case's deadline) says nothing about the case: a provider had a bad
minute. Such a vote is asked once more, at the end of the run and at least
``retry.cool_down`` seconds after it failed (``retry.second_chance = false`` turns this off).
Votes lost for good reasons are not: a rejected request, a refusal, garbage replies (an
invalid vote), a spent budget, a bug.

Which cases wait (the design rule): a case waits only when its verdict depends on the votes it
lost. It is decided at once when the verdict it has now is PASS or FAIL and stays the same
whatever the missing jurors would say, tried with each of them voting the worst and the best
value of every metric (and, as now, not at all). That test is exact when the verdict only
moves one way as a vote's values rise: ordinal and numeric metrics under median, mean or
minimum, and two-valued metrics under any reducer. Anything else (categories of three or more
values, the learned jury, metrics without listed values, more than four jurors missing) waits,
as the safe side. A case decided at once keeps its unavailable votes: asking them again would
cost money and change no verdict.

A held case (`Held`) gives up its slot while it waits, so that held cases never starve the
stream; `VerdictStream` asks them again once every case has had its first pass (or earlier,
when so many are held that memory would grow with the input). `Jury.judge` of one case asks
again within the call, after the cool-down: one behaviour for a run, a harness and a test.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass
from itertools import product

from .._clock import Clock
from .._verdict import (
    CallStats,
    CaseVerdict,
    Metric,
    Score,
    SecondChance,
    Verdict,
    Vote,
    VoteStatus,
)
from ..adapters._rubric import Rubric
from ..cases._case import Case
from ..decide._cascade import Decider

__all__ = ["Held", "again", "settled"]

#: More missing jurors than this and the case waits: the trials grow as 2 ** missing.
_MOST_MISSING = 4


@dataclass(frozen=True, slots=True)
class Held:
    """A case whose verdict waits for a second asking of the votes it lost.

    `due` is the clock's time before which the votes are not asked again (the cool-down);
    `resume` asks them and decides the case.
    """

    case_id: str
    due: float
    clock: Clock
    resume: Callable[[], Awaitable[CaseVerdict]]

    async def cooled(self) -> None:
        """Return once the cool-down is over."""
        wait = self.due - self.clock.monotonic()
        if wait > 0:
            await self.clock.sleep(wait)

    async def decide(self) -> CaseVerdict:
        """The case's verdict: after the cool-down, with the votes asked again."""
        await self.cooled()
        return await self.resume()

    def then(self, after: Callable[[CaseVerdict], CaseVerdict]) -> Held:
        """The same held case, with `after` applied to its verdict."""
        resume = self.resume

        async def resumed() -> CaseVerdict:
            return after(await resume())

        return Held(self.case_id, self.due, self.clock, resumed)


def _monotone(metric: Metric, aggregation: str) -> bool:
    """Whether the verdict can only move one way as one vote's value on `metric` rises."""
    if not metric.values:
        return False
    if len(metric.values) <= 2:
        return True
    # Categories are always combined by majority (`jury.decide._core.aggregate`), and a
    # majority of three or more values is not monotone: (4, 4, 2, 3, x) passes at x = 1 and
    # x = 5 but ties at x = 2.
    return metric.level != "nominal" and aggregation != "majority"


def settled(
    decider: Decider,
    rubric: Rubric,
    case: Case,
    votes: Sequence[Vote],
    missing: Collection[str],
    verdict: Verdict,
) -> bool:
    """Whether `verdict`, decided on `votes`, stands whatever the `missing` jurors would say."""
    if verdict is Verdict.INCONCLUSIVE or decider.fit is not None:
        return False
    if len(missing) > _MOST_MISSING:
        return False
    metrics = rubric.metrics(case)
    if not metrics or not all(_monotone(m, decider.panel.aggregation) for m in metrics):
        return False
    extremes: tuple[dict[str, Score], dict[str, Score]] = (
        {m.name: m.values[0] for m in metrics},
        {m.name: m.values[-1] for m in metrics},
    )
    kept = [v for v in votes if v.juror not in missing]
    for chosen in product(extremes, repeat=len(missing)):
        trial = kept + [
            Vote(
                juror=juror,
                status=VoteStatus.VALID,
                scores=scores,
                verdict=rubric.verdict_of(case, scores),
            )
            for juror, scores in zip(missing, chosen, strict=True)
        ]
        if decider.decide(case, trial, fresh=True).verdict is not verdict:
            return False
    return True


def again(first: Vote, second: Vote, waited_s: float) -> Vote:
    """The vote of a second asking, recording the first: its error, its attempts, and the
    calls of both (what the vote cost in all)."""
    calls = CallStats()
    calls.add(first.calls)
    calls.add(second.calls)
    chance = SecondChance(
        first_error=first.error or "", first_attempts=first.calls.attempts, waited_s=waited_s
    )
    return second.model_copy(update={"calls": calls, "second_chance": chance})
