"""The case layer: one case from its checks to its verdict.

The deterministic checks run first and cost nothing; a failed required check fails the case
and spares the judges. Otherwise the rubric renders the case, every juror votes at once (one
task each, so that one juror's failure never cancels another), and the votes are decided
under the panel's rules. A case past its deadline keeps the votes already cast; the missing
ones are unavailable, with what their calls cost so far.

With ``[[tier]]`` groups the jurors vote tier by tier: tier 1 on every case, a later tier only
when the votes so far leave the verdict unsure (`jury.decide._cascade`), each escalation recorded
with its reason and the calls of the tiers never asked counted as saved.

A case whose verdict depends on votes lost to transient errors is held (`first` returns a
`Held`) and decided after those votes are asked once more (`jury.engine._second_chance`).
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field

from .._clock import Clock
from .._verdict import CallStats, CaseVerdict, CheckOutcome, CheckResult, Verdict, Vote, VoteStatus
from ..adapters._rubric import Prompt, Rubric
from ..cases._case import Case
from ..decide._cascade import Decider
from ..decide._learned import Fits
from ..panel._panel import Panel
from ._deadline import CASE, CaseDeadline
from ._second_chance import Held, again, settled
from ._votes import Cast, Seat, Voter

__all__ = ["CaseJudge", "Checker", "Held"]

#: Runs the checks of one case (see `jury.checks`); async when a check asks a model.
Checker = Callable[[Case], Sequence[CheckResult] | Awaitable[Sequence[CheckResult]]]


class CaseJudge:
    """Judges cases: checks, then the jurors' votes, then the decision."""

    def __init__(
        self,
        panel: Panel,
        rubric: Rubric,
        seats: Sequence[Seat],
        voter: Voter,
        *,
        checks: Checker | None,
        judge_all: bool,
        quorum: int,
        over_budget: Callable[[], str | None],
        fit: Fits | None = None,
        clock: Clock | None = None,
        on_verdict: Callable[[CaseVerdict], CaseVerdict] | None = None,
    ) -> None:
        """`on_verdict` sees each verdict as it is decided (the jury logs it)."""
        self.panel = panel
        self.clock = clock or Clock()
        self._on_verdict = on_verdict or (lambda verdict: verdict)
        self.rubric = rubric
        self.seats = tuple(seats)
        self.voter = voter
        self.checks = checks
        self.judge_all = judge_all
        self.quorum = quorum
        self._over_budget = over_budget
        weights: Mapping[str, float] = {seat.id: seat.weight for seat in self.seats}
        tiers = {seat.id: seat.juror.tier for seat in self.seats}
        self.tiers = tuple(
            tuple(seat for seat in self.seats if seat.juror.tier == tier)
            for tier in range(1, max(tiers.values()) + 1)
        )
        samples = {seat.id: seat.samples for seat in self.seats}
        self.decider = Decider(
            panel,
            rubric,
            tiers,
            weights,
            lambda case, juror: self._prompts(case) * samples[juror],
            fit,
        )

    async def judge(self, case: Case) -> CaseVerdict:
        """The case's verdict; a held case is asked again within the call (after the
        cool-down), since one case is the whole of its run."""
        outcome = await self.first(case)
        return await outcome.decide() if isinstance(outcome, Held) else outcome

    async def first(self, case: Case) -> CaseVerdict | Held:
        """The case's verdict from its first pass, or the case held for a second chance."""
        outcome = await self._first(case)
        if isinstance(outcome, Held):
            return outcome.then(self._on_verdict)
        return self._on_verdict(outcome)

    async def _first(self, case: Case) -> CaseVerdict | Held:
        started = time.perf_counter()
        checks: tuple[CheckResult, ...] = ()
        if self.checks is not None:
            found = self.checks(case)
            checks = tuple(await found if inspect.isawaitable(found) else found)
        if not self.judge_all and any(
            c.required and c.outcome is CheckOutcome.FAIL for c in checks
        ):
            spared = self.decider.decide(
                case, (), checks=checks, duration_s=time.perf_counter() - started
            )
            return spared.model_copy(update={"calls_saved": self.calls_for(case)})
        budget = self._over_budget()
        if budget is not None:
            return self._inconclusive(case, budget, checks)
        try:
            prompts = self.rubric.prompts(case)
        except ValueError as exc:
            reason = f"the {self.rubric.kind} rubric cannot judge this case: {exc}"
            return self._inconclusive(case, reason, checks)
        return await self._through(_Pass(case, prompts, checks, started), 0)

    async def _through(self, run: _Pass, stage: int, *, asked: bool = False) -> CaseVerdict | Held:
        """From tier `stage` on (its votes already cast when `asked`): decide, and ask the
        next tier while the verdict is unsure."""
        case = run.case
        while True:
            if not asked:
                run.casts += await self._votes(case, run.prompts, self.tiers[stage])
            asked = False
            votes = [cast.vote for cast in run.casts]
            step = self.decider.step(
                case, votes, stage, duration_s=time.perf_counter() - run.started, fresh=True
            )
            if step.escalate is None:
                break
            run.escalations.append(step.escalate)
            stage += 1
        if run.first and self.panel.retry.second_chance:
            lost = [cast.vote.juror for cast in run.casts if cast.transient]
            verdict = step.verdict.verdict
            if lost and not settled(self.decider, self.rubric, case, votes, lost, verdict):
                now = self.clock.monotonic()
                due = now + self.panel.retry.cool_down
                return Held(case.id, due, self.clock, lambda: self._again(run, stage, now))
        return self.decider.finish(case, step, votes, run.escalations, stage, run.checks)

    async def _again(self, run: _Pass, stage: int, failed_at: float) -> CaseVerdict:
        """Ask the votes lost to transient errors once more, then decide the case."""
        run.first = False
        lost = [index for index, cast in enumerate(run.casts) if cast.transient]
        seats = {seat.id: seat for seat in self.seats}
        waited = self.clock.monotonic() - failed_at
        second = await self._votes(
            run.case, run.prompts, [seats[run.casts[i].vote.juror] for i in lost]
        )
        for index, cast in zip(lost, second, strict=True):
            run.casts[index] = Cast(again(run.casts[index].vote, cast.vote, waited))
        verdict = await self._through(run, stage, asked=True)
        assert isinstance(verdict, CaseVerdict)  # a second pass is never held
        return verdict

    def _inconclusive(
        self, case: Case, reason: str, checks: tuple[CheckResult, ...]
    ) -> CaseVerdict:
        return CaseVerdict(
            case_id=case.id,
            category=case.category,
            split=case.split,
            verdict=Verdict.INCONCLUSIVE,
            reasons=(reason,),
            checks=checks,
        )

    async def _votes(
        self, case: Case, prompts: Sequence[Prompt], seats: Sequence[Seat]
    ) -> list[Cast]:
        """Every juror's vote, at once. Votes still missing at the case's deadline are
        unavailable (a timeout: transient); the ones already cast are kept. The deadline
        stops while a call waits for its turn at the server (`jury.engine._deadline`)."""
        stats = [CallStats() for _ in seats]
        tasks: list[asyncio.Task[Cast]] = []
        try:
            async with asyncio.timeout(self.panel.case_timeout) as scope:
                deadline = CaseDeadline(scope)
                set_deadline = CASE.set(deadline)
                try:
                    if len(seats) == 1:
                        # One juror needs no task of its own.
                        return [await self.voter.cast(seats[0], case, prompts, stats[0])]
                    async with asyncio.TaskGroup() as group:
                        tasks.extend(
                            group.create_task(self.voter.cast(seat, case, prompts, calls))
                            for seat, calls in zip(seats, stats, strict=True)
                        )
                finally:
                    deadline.open = False
                    CASE.reset(set_deadline)
        except TimeoutError:
            pass
        votes = []
        for index, seat in enumerate(seats):
            task = tasks[index] if tasks else None
            if task is not None and task.done() and not task.cancelled():
                votes.append(task.result())
            else:
                votes.append(self._late(seat, stats[index]))
        return votes

    def _late(self, seat: Seat, calls: CallStats) -> Cast:
        vote = Vote(
            juror=seat.id,
            status=VoteStatus.UNAVAILABLE,
            error=f"the case ran out of time ({self.panel.case_timeout:g}s)",
            offline=seat.offline,
            calls=calls,
        )
        return Cast(vote, transient=True)

    def _prompts(self, case: Case) -> int:
        try:
            return len(self.rubric.prompts(case))
        except ValueError:
            return 0

    def calls_for(self, case: Case) -> int:
        """The judge calls a case needs at the least: each juror's samples of each prompt (a
        case its agent never answered counted as answered, as the run's record does)."""
        if case.answer is None:
            case = case.model_copy(update={"answer": "-"})
        return self._prompts(case) * sum(seat.samples for seat in self.seats)


@dataclass(slots=True)
class _Pass:
    """One case on its way through the tiers: what its jurors cast so far, and whether this
    is its first pass (only a first pass holds a case for a second chance)."""

    case: Case
    prompts: Sequence[Prompt]
    checks: tuple[CheckResult, ...]
    started: float
    casts: list[Cast] = field(default_factory=list)
    escalations: list[str] = field(default_factory=list)
    first: bool = True
