"""From votes to a verdict, tier by tier: the decision step of the case layer.

A panel without ``[[tier]]`` groups has one stage, and a verdict is `decide_case` under the
panel's rules (or the learned jury's, with ``aggregation = "learned"``). With tiers, the case
layer asks tier 1 first; a stage's verdict stands unless it is unsure, and then the next tier
is asked and the votes so far are decided again. Unsure means:

- with a reducer (median, majority...): the verdict is INCONCLUSIVE, or the valid votes split
  between PASS and FAIL;
- learned: fewer readable votes than the quorum, two classes tied, or a confidence below the
  stage's threshold (fitted by `jury calibrate`).

Every escalation is recorded with its reason. The quorum of a stage is the panel's `quorum`
when set, else a majority of the jurors asked so far. Nothing depends on the order of the
jurors within a tier: every step is a function of the set of votes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ._decide import Aggregation, decide_case, single
from ._learned import PASS_TARGET, Fit, FitStage, signals
from ._verdict import CaseVerdict, CheckResult, Dissent, Verdict, Vote, VoteStatus

if TYPE_CHECKING:
    from ._case import Case
    from ._panel import Panel
    from ._rubric import Rubric

__all__ = ["Decider", "Step", "reducer"]


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
        fit: Fit | None = None,
    ) -> None:
        self.panel = panel
        self.rubric = rubric
        self.tiers = dict(tiers)
        self.stages = max(self.tiers.values())
        self.weights = dict(weights)
        self.fit = fit
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
        )
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
        fit = self.fit
        assert fit is not None
        model: FitStage = fit.stage[stage]
        found = signals(case, base.votes, self.rubric, fit.target)
        readable = len({juror for juror, _ in found})
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

        if readable < quorum:
            plural = "" if readable == 1 else "s"
            return unsure(
                f"quorum not met: {readable} readable vote{plural} of "
                f"{len(model.jurors)} jurors, {quorum} needed"
            )
        prediction = model.predict(found, fit.classes)
        if prediction.value is None:
            return unsure("the learned jury is split evenly between the classes")
        if prediction.confidence < model.threshold:
            if model.threshold == float("inf"):
                reason = "this stage never decides alone: no threshold met the target"
            else:
                reason = (
                    f"confidence {prediction.confidence:.2f} below {model.threshold:.2f}, "
                    f"the threshold for {model.threshold_means}"
                )
            return unsure(reason, prediction.confidence)
        said = (
            f"learned jury ({fit.model}): {fit.target} {prediction.value}, "
            f"confidence {prediction.confidence:.2f}"
        )
        metrics = dict(base.metrics)
        if fit.target == PASS_TARGET:
            verdict = Verdict(str(prediction.value))
            reasons: tuple[str, ...] = (said,)
        else:
            metric = next(m for m in self.rubric.metrics(case) if m.name == fit.target)
            result = single(metric, prediction.value)
            result.votes = readable
            metrics[fit.target] = result
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
                "confidence": prediction.confidence,
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
