"""The run summary, built one verdict at a time so that a run of any size streams."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from .._verdict import (
    STAGES,
    CallStats,
    CaseVerdict,
    CheckOutcome,
    Dissent,
    Verdict,
    VoteStatus,
)
from ..panel._panel import Gate
from ._losses import LOST, FamilyLoss, JudgeError, record_error
from ._uncertainty import GateOutcome, gate_outcome, pass_rate_interval

if TYPE_CHECKING:
    from ..decide._proportion import Interval

__all__ = [
    "CaseNote",
    "CategoryStats",
    "JurorStats",
    "RunSummary",
    "Tally",
    "batch_line",
    "summarize",
    "with_unjudged",
]

_MODEL = ConfigDict(frozen=True)


class CaseNote(BaseModel):
    """A case worth listing: its ID, category, reasons and dissent."""

    model_config = _MODEL

    case_id: str
    category: str | None = None
    reasons: tuple[str, ...] = ()
    dissent: tuple[Dissent, ...] = ()
    #: Where a failed case first went wrong (`CaseVerdict.failed_stage`).
    stage: str | None = None
    #: How sure each dissenting juror was of its verdict (`Vote.probability`), for those
    #: whose vote carries one: a dissent at 0.55 is a coin toss, one at 0.98 is not.
    sure: dict[str, float] = {}


@dataclass(slots=True)
class CategoryStats:
    total: int = 0
    passed: int = 0
    failed: int = 0
    inconclusive: int = 0
    failed_ids: list[str] = field(default_factory=list)
    inconclusive_ids: list[str] = field(default_factory=list)

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.total if self.total else None

    def interval(self, gate: Gate | None = None) -> Interval:
        """The pass rate (inconclusive cases counted as not passed) with the gate's interval."""
        return pass_rate_interval(self.passed, self.total, gate)


@dataclass(slots=True)
class JurorStats:
    """One juror's record over a run: its votes by status, and what its calls cost (the
    models that served them among it: more than one when fallbacks served)."""

    votes: int = 0
    valid: int = 0
    invalid: int = 0
    unavailable: int = 0
    abstained: int = 0
    calls: CallStats = field(default_factory=CallStats)
    offline: bool = False
    #: Some of its replies came from `jury.testing`'s fake provider server (`CallStats.fake`).
    fake: bool = False
    #: Soft confidence: the sum of the probabilities of its verdicts and how many of its
    #: votes carried one (`Vote.probability`; the others are not counted, never as 0 or 1).
    probability_sum: float = 0.0
    probability_votes: int = 0
    #: Its errors by kind (`JudgeError`), in the order first met: the "judge errors" section.
    errors: dict[str, JudgeError] = field(default_factory=dict)
    #: What was wrong with the probabilities of its valid votes (`Vote.probability_note`),
    #: by note, with how many votes had it: a probability missing is said, not silent.
    probability_notes: dict[str, int] = field(default_factory=dict)

    @property
    def missed(self) -> int:
        """Cases it gave no usable vote on (unavailable or invalid; not abstentions)."""
        return self.unavailable + self.invalid

    @property
    def mean_probability(self) -> float | None:
        """The mean probability of its own verdict over the votes that carried one."""
        return self.probability_sum / self.probability_votes if self.probability_votes else None


class RunSummary(BaseModel):
    """What a run came to: counts, categories, the cases to look at, and each juror's record."""

    model_config = _MODEL

    total: int
    passed: int
    failed: int
    inconclusive: int
    by_category: dict[str, CategoryStats]
    failures: tuple[CaseNote, ...]
    inconclusives: tuple[CaseNote, ...]
    disagreements: tuple[CaseNote, ...]
    jurors: dict[str, JurorStats]
    judges_spared: int = 0
    #: Judge calls not made because required checks had already failed their cases.
    calls_saved: int = 0
    #: Failed cases by the stage where each first went wrong, in debugging order.
    failed_stages: dict[str, int] = {}
    #: Cases with at least one failed check, required or advisory.
    checks_failed: int = 0
    offline: bool = False
    #: Some judge replies came from `jury.testing`'s fake provider server: not real verdicts.
    fake: bool = False
    #: Results per split ("dev", "heldout"), for the cases that name one.
    by_split: dict[str, CategoryStats] = {}
    #: Cascades: cases that asked a later tier, the calls the tiers not asked did not make,
    #: and what those calls would have cost (each juror's mean cost of a vote in this run;
    #: None when a juror's is unknown or it never voted).
    escalated: int = 0
    tier_calls_saved: int = 0
    tier_cost_saved: float | None = 0.0
    #: The calls of the checks that ask a model, by "check: model" (``moderation:
    #: omni-moderation-latest``): the run's calls besides the jurors'.
    check_calls: dict[str, CallStats] = {}
    #: Families of the panel some decided cases were decided without (`FamilyLoss`), by
    #: family: a jury that lost a family is not the jury that was configured.
    decided_without: dict[str, FamilyLoss] = {}
    #: Cases of the run with no verdict: it did not finish (interrupted, stopped, batches
    #: pending, still going). The gate counts them as inconclusive: they could go either way.
    not_judged: int = 0

    @property
    def offline_jurors(self) -> list[str]:
        """The offline reference jurors: deterministic heuristics, not LLM judges."""
        return [name for name, stats in self.jurors.items() if stats.offline]

    @property
    def cases(self) -> int:
        """Every case of the run: those judged (`total`) and those it did not reach."""
        return self.total + self.not_judged

    @property
    def coverage(self) -> float | None:
        """Decided (passed or failed) cases over all cases."""
        return (self.passed + self.failed) / self.cases if self.cases else None

    @property
    def pass_rate(self) -> float | None:
        """Passed cases over all cases (None for an empty run), as the gate counts them."""
        return self.passed / self.cases if self.cases else None

    def exit_code(self, gate: Gate | None = None) -> int:
        """0 the gate passed, 1 it failed, 3 inconclusive cases or the pass rate's interval
        leave it undecided (`gate_outcome` says why)."""
        return self.gate_outcome(gate).code

    def gate_outcome(self, gate: Gate | None = None) -> GateOutcome:
        """The gate's decision with the pass rate's interval, and why (`GateOutcome`).

        With a minimum pass rate p held by the estimate (the default): the gate fails when
        even counting every inconclusive case as a pass the rate is below p (a definite
        failure outranks inconclusive); it is undecided when counting them as failures would
        put the rate below p. Held by the lower bound: it passes when the interval's lower
        bound reaches p, fails when the interval lies wholly below p, and is undecided when
        the interval straddles p.
        """
        return gate_outcome(self.passed, self.failed, self.inconclusive, gate, self.not_judged)

    def pass_rate_interval(self, gate: Gate | None = None) -> Interval:
        """The pass rate (inconclusive cases counted as not passed) with the interval the
        gate asks for (95% Wilson by default)."""
        return pass_rate_interval(self.passed, self.cases, gate)

    @property
    def calls(self) -> CallStats:
        """Every call of the run added up: the jurors' and the model checks'."""
        total = CallStats()
        for juror in self.jurors.values():
            total.add(juror.calls)
        for calls in self.check_calls.values():
            total.add(calls)
        return total

    @property
    def cost(self) -> float | None:
        """USD of the run's calls; None when any paid call's price is unknown."""
        return self.calls.cost


class Tally:
    """Accumulates verdicts into a `RunSummary` (keeps only the cases worth listing)."""

    def __init__(
        self, jurors: Iterable[str] = (), families: Mapping[str, str] | None = None
    ) -> None:
        """`families` gives each juror's family, for the cases decided without one."""
        self.total = self.passed = self.failed = self.inconclusive = self.spared = 0
        self.calls_saved = self.checks_failed = 0
        self.stages: dict[str, int] = {}
        self.offline = self.fake = False
        self.categories: dict[str, CategoryStats] = {}
        self.splits: dict[str, CategoryStats] = {}
        self.failures: list[CaseNote] = []
        self.inconclusives: list[CaseNote] = []
        self.disagreements: list[CaseNote] = []
        self.jurors: dict[str, JurorStats] = {name: JurorStats() for name in jurors}
        self.escalated = self.tier_calls_saved = 0
        self.not_asked: dict[str, int] = {}
        self.check_calls: dict[str, CallStats] = {}
        self.families = families or {}
        self.losses: dict[str, FamilyLoss] = {}

    def add(self, verdict: CaseVerdict) -> None:
        self.total += 1
        # get, then create: `setdefault` would build a new record for every verdict.
        name = verdict.category or "(none)"
        category = self.categories.get(name)
        if category is None:
            category = self.categories[name] = CategoryStats()
        category.total += 1
        note = _note
        if verdict.split is not None:
            split = self.splits.get(verdict.split)
            if split is None:
                split = self.splits[verdict.split] = CategoryStats()
            _count(split, verdict)

        if verdict.verdict is Verdict.PASS:
            self.passed += 1
            category.passed += 1
        elif verdict.verdict is Verdict.FAIL:
            self.failed += 1
            category.failed += 1
            category.failed_ids.append(verdict.case_id)
            self.failures.append(note(verdict, verdict.reasons))
            stage = verdict.failed_stage
            if stage is not None:
                self.stages[stage] = self.stages.get(stage, 0) + 1
        else:
            self.inconclusive += 1
            category.inconclusive += 1
            category.inconclusive_ids.append(verdict.case_id)
            self.inconclusives.append(note(verdict, verdict.reasons))
        if verdict.disagreement:
            self.disagreements.append(note(verdict, verdict.disagreement_reasons))
        self.spared += verdict.judges_spared
        self.calls_saved += verdict.calls_saved
        if verdict.escalations or verdict.not_asked:
            self.escalated += bool(verdict.escalations)
            self.tier_calls_saved += verdict.tier_calls_saved
            for juror in verdict.not_asked:
                self.not_asked[juror] = self.not_asked.get(juror, 0) + 1
        if verdict.checks:
            self.checks_failed += any(c.outcome is CheckOutcome.FAIL for c in verdict.checks)
            self._add_check_calls(verdict)
        self.offline = self.offline or verdict.offline
        if self.families and verdict.votes and verdict.verdict is not Verdict.INCONCLUSIVE:
            self._lost_families(verdict)
        for vote in verdict.votes:
            stats = self.jurors.get(vote.juror)
            if stats is None:
                stats = self.jurors[vote.juror] = JurorStats()
            stats.votes += 1
            if vote.status is VoteStatus.VALID:
                stats.valid += 1
            elif vote.status is VoteStatus.INVALID:
                stats.invalid += 1
                record_error(stats.errors, vote, verdict.case_id)
            elif vote.status is VoteStatus.UNAVAILABLE:
                stats.unavailable += 1
                record_error(stats.errors, vote, verdict.case_id)
            else:
                stats.abstained += 1
            stats.calls.add(vote.calls)
            stats.offline = stats.offline or vote.offline
            if vote.calls.fake:
                stats.fake = self.fake = True
            if vote.probability is not None:
                stats.probability_sum += vote.probability
                stats.probability_votes += 1
            if vote.probability_note is not None:
                notes = stats.probability_notes
                notes[vote.probability_note] = notes.get(vote.probability_note, 0) + 1

    def _lost_families(self, verdict: CaseVerdict) -> None:
        """Count a decided case under each family all of whose votes on it were lost."""
        valid = {self.families.get(v.juror) for v in verdict.votes if v.status is VoteStatus.VALID}
        lost: dict[str, list[str]] = {}
        for vote in verdict.votes:
            family = self.families.get(vote.juror)
            if family is not None and family not in valid and vote.status in LOST:
                lost.setdefault(family, []).append(vote.juror)
        for family, jurors in lost.items():
            loss = self.losses.get(family)
            if loss is None:
                loss = self.losses[family] = FamilyLoss()
            loss.cases += 1
            loss.jurors += [juror for juror in jurors if juror not in loss.jurors]

    def _add_check_calls(self, verdict: CaseVerdict) -> None:
        for check in verdict.checks:
            if check.calls is None:
                continue
            # "moderation: omni-moderation-latest": the check's reason names the provider.
            model = check.model.rpartition("/")[2] if check.model else ""
            key = f"{check.name}: {model}" if model else check.name
            total = self.check_calls.get(key)
            if total is None:
                total = self.check_calls[key] = CallStats()
            total.add(check.calls)
            self.fake = self.fake or bool(check.calls.fake)

    def summary(self) -> RunSummary:
        def by_id(notes: list[CaseNote]) -> tuple[CaseNote, ...]:
            return tuple(sorted(notes, key=lambda n: n.case_id))

        return RunSummary(
            total=self.total,
            passed=self.passed,
            failed=self.failed,
            inconclusive=self.inconclusive,
            by_category=dict(sorted(self.categories.items())),
            failures=by_id(self.failures),
            inconclusives=by_id(self.inconclusives),
            disagreements=by_id(self.disagreements),
            jurors=dict(sorted(self.jurors.items())),
            judges_spared=self.spared,
            calls_saved=self.calls_saved,
            failed_stages={s: self.stages[s] for s in _stage_order(self.stages)},
            checks_failed=self.checks_failed,
            offline=self.offline,
            fake=self.fake,
            by_split=dict(sorted(self.splits.items())),
            escalated=self.escalated,
            tier_calls_saved=self.tier_calls_saved,
            tier_cost_saved=self._cost_saved(),
            check_calls=dict(sorted(self.check_calls.items())),
            decided_without=dict(sorted(self.losses.items())),
        )

    def _cost_saved(self) -> float | None:
        saved = 0.0
        for juror, skipped in self.not_asked.items():
            stats = self.jurors.get(juror)
            if stats is None or not stats.votes or stats.calls.cost is None:
                return None
            saved += skipped * stats.calls.cost / stats.votes
        return saved


def _count(stats: CategoryStats, verdict: CaseVerdict) -> None:
    stats.total += 1
    if verdict.verdict is Verdict.PASS:
        stats.passed += 1
    elif verdict.verdict is Verdict.FAIL:
        stats.failed += 1
        stats.failed_ids.append(verdict.case_id)
    else:
        stats.inconclusive += 1
        stats.inconclusive_ids.append(verdict.case_id)


def _note(verdict: CaseVerdict, reasons: tuple[str, ...]) -> CaseNote:
    """A case worth listing, with these reasons."""
    dissenters = {d.juror for d in verdict.dissent}
    return CaseNote(
        case_id=verdict.case_id,
        category=verdict.category,
        reasons=reasons,
        dissent=verdict.dissent,
        stage=verdict.failed_stage,
        sure={
            v.juror: v.probability
            for v in verdict.votes
            if v.probability is not None and v.juror in dissenters
        }
        if dissenters
        else {},
    )


def _stage_order(stages: Iterable[str]) -> list[str]:
    return sorted(stages, key=lambda s: (STAGES.index(s) if s in STAGES else len(STAGES), s))


def summarize(
    verdicts: Iterable[CaseVerdict],
    jurors: Iterable[str] = (),
    families: Mapping[str, str] | None = None,
) -> RunSummary:
    tally = Tally(jurors, families)
    for verdict in verdicts:
        tally.add(verdict)
    return tally.summary()


def with_unjudged(summary: RunSummary, manifest: Mapping[str, Any]) -> RunSummary:
    """`summary` with the cases its run selected (the manifest's subset) that have no verdict:
    a report of a run that did not finish must not pass its gate on the cases it reached."""
    selected = (manifest.get("subset") or {}).get("selected")
    missing = selected - summary.total if isinstance(selected, int) else 0
    return summary.model_copy(update={"not_judged": missing}) if missing > 0 else summary


def batch_line(summary: RunSummary) -> str:
    """How many calls went through provider batches, and what the run would have cost online."""
    calls = summary.calls
    cost, saving = summary.cost, calls.batch_saving
    online = None if cost is None or saving is None else cost + saving

    def usd(value: float | None) -> str:
        return "unknown" if value is None else f"${value:.4f}"

    return (
        f"{calls.batched} of {calls.attempts} calls went through provider batches: cost "
        f"{usd(cost)}; the same calls online would have cost {usd(online)}."
    )
