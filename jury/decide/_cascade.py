"""From votes to a verdict, tier by tier: the decision step of the case layer.

A panel without ``[[tier]]`` groups has one stage, and a verdict is `decide_case` under the
panel's rules (or the learned jury's, with ``aggregation = "learned"``). With tiers, the case
layer asks tier 1 first; a stage's verdict stands unless it is unsure, and then the next tier
is asked and the votes so far are decided again. Unsure means:

- with a reducer (median, majority...): the verdict is INCONCLUSIVE, or the valid votes split
  between PASS and FAIL;
- learned: fewer readable votes than the quorum, two classes tied, or a confidence below the
  stage's threshold (fitted by `jury calibrate`), for any target that decides the verdict (the
  fitted "pass", else every fitted metric of the case: see `jury.decide._learned.Fits`).

Every escalation is recorded with its reason. The quorum of a stage is the panel's `quorum`
when set, else a majority of the jurors asked so far. Nothing depends on the order of the
jurors within a tier: every step is a function of the set of votes.

Cheapest first is by cost, not by calls (issue 21): `cheapest_first` orders tiers by what
their jurors cost per case (from the price tables), and `spend` measures a cascade's calls
and cost against the full panel's. A juror whose price is unknown is never taken as free: it
goes last, and a cost ratio over it is unknown.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._verdict import CaseVerdict, CheckResult, Dissent, Verdict, Vote, VoteStatus, single
from ._core import EVERY_JUROR, Aggregation, decide_case
from ._learned import PASS_TARGET, Fit, Fits, FitStage, Prediction, signals

if TYPE_CHECKING:
    from ..adapters._rubric import Rubric
    from ..cases._case import Case
    from ..panel._panel import Panel

__all__ = ["Decider", "Spend", "Step", "cheapest_first", "reducer", "spend"]


@dataclass(frozen=True, slots=True)
class _Reading:
    """What one target's learned jury makes of a stage's votes."""

    fit: Fit
    model: FitStage
    readable: int
    prediction: Prediction

    @classmethod
    def of(
        cls, fit: Fit, stage: int, case: Case, votes: Sequence[Vote], rubric: Rubric
    ) -> _Reading:
        model = fit.stage[stage]
        found = signals(case, votes, rubric, fit.target)
        readable = len({juror for juror, _ in found})
        return cls(fit, model, readable, model.predict(found, fit.classes))

    def below(self, named: bool) -> str:
        """Why this target's verdict does not stand at this stage."""
        on = f"{self.fit.target}: " if named else ""
        if self.model.threshold == float("inf"):
            return f"{on}this stage never decides alone: no threshold met the target"
        return (
            f"{on}confidence {self.prediction.confidence:.2f} below {self.model.threshold:.2f}, "
            f"the threshold for {self.model.threshold_means}"
        )


def _said(readings: Sequence[_Reading], confidence: float, *, pass_fitted: bool) -> str:
    """The learned jury's reason: each target's learned value, and how sure the verdict is."""
    if len(readings) == 1:
        only = readings[0]
        return (
            f"learned jury ({only.fit.model}): {only.fit.target} {only.prediction.value}, "
            f"confidence {only.prediction.confidence:.2f}"
        )
    parts = "; ".join(
        f"{r.fit.target} {'-' if r.prediction.value is None else r.prediction.value} "
        f"({r.fit.model}, confidence {r.prediction.confidence:.2f})"
        for r in readings
    )
    if pass_fitted:
        return f"learned jury: {parts}; pass decides the verdict"
    return (
        f"learned jury: {parts}; the verdict's confidence {confidence:.2f} is the lowest of theirs"
    )


def reducer(aggregation: str) -> Aggregation:
    """The reducer behind an aggregation: "learned" shows the other metrics by median."""
    return "median" if aggregation == "learned" else aggregation  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class Step:
    """What the jurors asked so far decided, and why the next tier is needed (None: done)."""

    verdict: CaseVerdict
    escalate: str | None = None


class Decider:
    """A panel's decision rules, stage by stage.

    `tiers` maps each juror to its tier; `calls` counts the calls a juror makes on a case
    (for the calls a cascade spared).
    """

    def __init__(
        self,
        panel: Panel,
        rubric: Rubric,
        tiers: Mapping[str, int],
        weights: Mapping[str, float],
        calls: Callable[[Case, str], int],
        fit: Fits | Fit | None = None,
    ) -> None:
        self.panel = panel
        self.rubric = rubric
        self.tiers = dict(tiers)
        self.stages = max(self.tiers.values())
        self.weights = dict(weights)
        self.fit = None if fit is None else Fits.of(fit)
        self._calls = calls

    def asked(self, stage: int) -> int:
        """The jurors of tiers 1..stage+1."""
        return sum(1 for tier in self.tiers.values() if tier <= stage + 1)

    def quorum(self, stage: int) -> int:
        explicit = self.panel.quorum
        return explicit if explicit is not None else self.asked(stage) // 2 + 1

    def step(
        self, case: Case, votes: Sequence[Vote], stage: int, *, duration_s: float, fresh: bool
    ) -> Step:
        """The verdict of the votes of tiers 1..stage+1 (checks not joined yet)."""
        final = stage == self.stages - 1
        base = decide_case(
            case,
            votes,
            self.rubric,
            jurors=self.asked(stage),
            quorum=0 if self.fit is not None else self.quorum(stage),
            weights=self.weights,
            aggregation=reducer(self.panel.aggregation),
            ties=self.panel.ties,
            spread_alert=self.panel.disagreement_spread,
            duration_s=duration_s,
            fresh=fresh,
            every_juror=self.panel.gate.require_every_juror,
        )
        if base.reasons[:1] == (EVERY_JUROR,):
            # A juror lost, and the gate wants every one: no later tier can bring it back
            # (asking one would only cost), nor can a learned jury decide without it.
            return Step(base)
        if self.fit is not None:
            return self._learned(case, base, stage, final)
        if final:
            return Step(base)
        if base.verdict is Verdict.INCONCLUSIVE:
            return Step(base, f"tier {stage + 1}: {'; '.join(base.reasons[:1])}")
        said = {v.verdict for v in base.votes if v.status is VoteStatus.VALID}
        if len(said - {None, Verdict.INCONCLUSIVE}) > 1:
            passing = sum(1 for v in base.votes if v.verdict is Verdict.PASS)
            failing = sum(1 for v in base.votes if v.verdict is Verdict.FAIL)
            return Step(base, f"tier {stage + 1}: jurors split, {passing} pass, {failing} fail")
        return Step(base)

    def _learned(self, case: Case, base: CaseVerdict, stage: int, final: bool) -> Step:
        assert self.fit is not None
        fits = self.fit
        quorum = self.quorum(stage)
        where = "" if final else f"tier {stage + 1}: "

        def unsure(reason: str, confidence: float | None = None) -> Step:
            verdict = base.model_copy(
                update={
                    "verdict": Verdict.INCONCLUSIVE,
                    "reasons": (reason,),
                    "confidence": confidence,
                }
            )
            return Step(verdict, None if final else where + reason)

        deciding = fits.deciding(self.rubric, case)
        if not deciding:
            return unsure(
                f"the learned jury's targets ({', '.join(fits.targets)}) are not metrics of "
                "this case"
            )
        read = {
            f.target: _Reading.of(f, stage, case, base.votes, self.rubric)
            for f in fits.applying(self.rubric, case)
        }
        decide = [read[f.target] for f in deciding]
        readable = min(r.readable for r in decide)
        if readable < quorum:
            plural = "" if readable == 1 else "s"
            return unsure(
                f"quorum not met: {readable} readable vote{plural} of "
                f"{len(decide[0].model.jurors)} jurors, {quorum} needed"
            )
        named = len(decide) > 1
        split = [r.fit.target for r in decide if r.prediction.value is None]
        if split:
            on = f" on {', '.join(split)}" if named else ""
            return unsure(f"the learned jury is split evenly between the classes{on}")
        # The rule for a verdict from several learned metrics: it is as sure as its least sure
        # metric, and it stands only where every metric that decides it stands.
        confidence = min(r.prediction.confidence for r in decide)
        below = [r for r in decide if r.prediction.confidence < r.model.threshold]
        if below:
            return unsure("; ".join(r.below(named) for r in below), confidence)
        metrics = dict(base.metrics)
        for reading in read.values():
            value = reading.prediction.value
            if reading.fit.target != PASS_TARGET and value is not None:
                metric = next(m for m in self.rubric.metrics(case) if m.name == reading.fit.target)
                result = single(metric, value)
                result.votes = reading.readable
                metrics[reading.fit.target] = result
        said = _said(list(read.values()), confidence, pass_fitted=PASS_TARGET in read)
        if PASS_TARGET in read:
            verdict = Verdict(str(read[PASS_TARGET].prediction.value))
            reasons: tuple[str, ...] = (said,)
        else:
            decision = self.rubric.decide(case, metrics)
            verdict, reasons = decision.verdict, (said, *decision.reasons)
        valid = [v for v in base.votes if v.status is VoteStatus.VALID]
        dissent = tuple(
            Dissent(juror=v.juror, verdict=v.verdict, reason=v.reason, scores=dict(v.scores))
            for v in valid
            if v.verdict is not verdict and base.disagreement
        )
        decided = base.model_copy(
            update={
                "verdict": verdict,
                "reasons": reasons,
                "metrics": metrics,
                "confidence": confidence,
                "dissent": dissent,
            }
        )
        return Step(decided)

    def finish(
        self,
        case: Case,
        step: Step,
        votes: Sequence[Vote],
        escalations: Sequence[str],
        stage: int,
        checks: Sequence[CheckResult],
    ) -> CaseVerdict:
        """The case's verdict: the last step's, with every vote cast, the escalations, the
        jurors not asked and the checks."""
        later = sorted(j for j, tier in self.tiers.items() if tier > stage + 1)
        verdict = step.verdict.model_copy(
            update={
                "votes": tuple(sorted(votes, key=lambda v: v.juror)),
                "escalations": tuple(escalations),
                "not_asked": tuple(later),
                "tier_calls_saved": sum(self._calls(case, juror) for juror in later),
            }
        )
        return verdict.with_checks(checks) if checks else verdict

    def decide(
        self,
        case: Case,
        votes: Sequence[Vote],
        *,
        checks: Sequence[CheckResult] = (),
        duration_s: float = 0.0,
        fresh: bool = False,
    ) -> CaseVerdict:
        """The verdict recorded votes give, walking the stages as the case layer did: a
        stage that wants a tier whose jurors were never asked leaves the case INCONCLUSIVE."""
        if not votes:
            return decide_case(
                case,
                votes,
                self.rubric,
                jurors=len(self.tiers),
                quorum=self.quorum(self.stages - 1),
                checks=checks,
                duration_s=duration_s,
            )
        escalations: list[str] = []
        stage = 0
        while True:
            asked = [v for v in votes if self.tiers.get(v.juror, 1) <= stage + 1]
            step = self.step(case, asked, stage, duration_s=duration_s, fresh=fresh)
            if step.escalate is None:
                break
            escalations.append(step.escalate)
            if not any(self.tiers.get(v.juror) == stage + 2 for v in votes):
                reason = f"tier {stage + 2} was not asked in this run; {step.escalate}"
                unsure = step.verdict.model_copy(
                    update={"verdict": Verdict.INCONCLUSIVE, "reasons": (reason,)}
                )
                return self.finish(case, Step(unsure), votes, escalations[:-1], stage, checks)
            stage += 1
        return self.finish(case, step, votes, escalations, stage, checks)


def cheapest_first(
    costs: Mapping[str, float | None],
    strength: Mapping[str, float] | None = None,
    *,
    groups: Mapping[str, str] | None = None,
    band: float | None = None,
) -> dict[str, int]:
    """Tiers cheapest first, by cost per case: each juror's tier (1, 2, ...).

    Jurors of one group (say, the seats of one model, which share its provider) sit in one
    tier; a group costs the sum of its jurors. Groups go in rising cost (ties: the stronger
    first by `strength`, then by name). With `band`, a tier takes every next group that
    costs at most `band` times the tier's cheapest: cheap models are asked together before
    an expensive one, rather than one after another. A group with an unknown price (any
    juror's cost None) goes last, a tier of its own each: never treated as free.
    """
    strength = strength or {}
    of = dict(groups) if groups is not None else {j: j for j in costs}
    members: dict[str, list[str]] = {}
    for juror in sorted(costs):
        members.setdefault(of.get(juror, juror), []).append(juror)

    def cost(group: str) -> float | None:
        prices = [costs[j] for j in members[group]]
        return None if any(p is None for p in prices) else float(sum(p or 0.0 for p in prices))

    def best(group: str) -> float:
        return max(strength.get(j, 0.0) for j in members[group])

    known = sorted(
        (g for g in members if cost(g) is not None),
        key=lambda g: (cost(g), -best(g), g),
    )
    unknown = sorted((g for g in members if cost(g) is None), key=lambda g: (-best(g), g))
    tiers: dict[str, int] = {}
    tier, floor = 0, None
    for group in known:
        price = cost(group)
        assert price is not None
        if floor is None or band is None or price > band * max(floor, 1e-12):
            tier, floor = tier + 1, price
        tiers.update(dict.fromkeys(members[group], tier))
    for group in unknown:
        tier += 1
        tiers.update(dict.fromkeys(members[group], tier))
    return tiers


@dataclass(frozen=True, slots=True)
class Spend:
    """What a cascade's verdicts spent against the full panel's: calls and USD (None when a
    juror's price is unknown: a ratio over an unknown price is unknown, never a guess)."""

    calls: int
    full_calls: int
    cost: float | None
    full_cost: float | None

    @property
    def calls_ratio(self) -> float | None:
        return self.calls / self.full_calls if self.full_calls else None

    @property
    def cost_ratio(self) -> float | None:
        if self.cost is None or not self.full_cost:
            return None
        return self.cost / self.full_cost


def spend(
    verdicts: Sequence[CaseVerdict],
    jurors: Sequence[str],
    calls: Callable[[str], int],
    costs: Mapping[str, float | None],
) -> Spend:
    """The calls and cost of these verdicts (each juror's `calls` and `costs` a case; a juror
    in a verdict's `not_asked` was spared there) against asking every juror on every case."""
    asked_calls = full_calls = 0
    cost: float | None = 0.0
    full: float | None = 0.0
    for verdict in verdicts:
        spared = set(verdict.not_asked)
        for juror in jurors:
            price = costs.get(juror)
            full_calls += calls(juror)
            full = None if full is None or price is None else full + price
            if juror in spared:
                continue
            asked_calls += calls(juror)
            cost = None if cost is None or price is None else cost + price
    return Spend(asked_calls, full_calls, cost, full)
