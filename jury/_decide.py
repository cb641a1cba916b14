"""From votes to a case verdict: quorum, per-metric aggregation, the rubric's decision, and
disagreement. A pure function of its inputs, so `jury rescore` reuses it on recorded votes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from ._aggregate import Aggregation, TiePolicy, aggregate
from ._case import Case
from ._rubric import Metric, Rubric
from ._verdict import (
    Ballot,
    CaseVerdict,
    CheckOutcome,
    CheckResult,
    Dissent,
    MetricResult,
    Score,
    Verdict,
    Vote,
    VoteStatus,
)

__all__ = ["decide_case", "sample_verdicts"]


def _results(
    metrics: Sequence[Metric],
    votes: Sequence[Vote],
    weights: Mapping[str, float],
    how: Aggregation,
    ties: TiePolicy,
) -> dict[str, MetricResult]:
    return {
        metric.name: aggregate(
            metric,
            [
                (v.scores[metric.name], weights.get(v.juror, 1.0))
                for v in votes
                if metric.name in v.scores
            ],
            how,
            ties,
        )
        for metric in metrics
    }


def _with_own_verdict(rubric: Rubric, case: Case, vote: Vote) -> Vote:
    """The vote with its own verdict, and each kept sample's, under these rules.

    Samples of an abstained vote (samples that split) get verdicts too: they are what the
    juror's stability is measured on.
    """
    update: dict[str, object] = {}
    if vote.status is VoteStatus.VALID:
        verdict = rubric.verdict_of(case, vote.scores)
        if verdict is not vote.verdict:
            update["verdict"] = verdict
    samples = sample_verdicts(rubric, case, vote.samples)
    if samples != vote.samples:
        update["samples"] = samples
    return vote.model_copy(update=update) if update else vote


def sample_verdicts(rubric: Rubric, case: Case, samples: Sequence[Ballot]) -> tuple[Ballot, ...]:
    """Each sample ballot with what it alone decides."""
    return tuple(
        ballot
        if ballot.verdict is (verdict := rubric.verdict_of(case, ballot.scores))
        else replace(ballot, verdict=verdict)
        for ballot in samples
    )


def _describe(vote: Vote) -> str:
    detail = vote.error or vote.reason or ""
    return f"{vote.juror} {vote.status.value}" + (f": {detail}" if detail else "")


def _distance(a: Score, b: Score | None) -> float:
    if b is None or isinstance(a, (str, bool)) or isinstance(b, (str, bool)):
        return 0.0 if a == b else 1.0
    return abs(float(a) - float(b))


def decide_case(
    case: Case,
    votes: Sequence[Vote],
    rubric: Rubric,
    *,
    jurors: int,
    quorum: int,
    weights: Mapping[str, float] | None = None,
    aggregation: Aggregation = "median",
    ties: TiePolicy = "inconclusive",
    spread_alert: float | None = None,
    checks: Sequence[CheckResult] = (),
    duration_s: float = 0.0,
    fresh: bool = False,
) -> CaseVerdict:
    """Combine the votes and checks on one case into its verdict.

    `jurors` is the number of configured jurors (for the reasons), `quorum` the valid votes
    needed. A failed required check fails the case whatever the jury says (the checks and the
    jury are joined by AND); with no votes at all, the judges were spared. No step depends on
    the order of `votes`. Unless `fresh` (just cast under these very rules), each valid
    vote's own verdict is recomputed, so that a re-score under new thresholds is consistent.
    """
    failed_checks = tuple(
        f"check {c.name} failed: {c.reason}" if c.reason else f"check {c.name} failed"
        for c in checks
        if c.required and c.outcome is CheckOutcome.FAIL
    )
    if failed_checks and not votes:
        return CaseVerdict(
            case_id=case.id,
            category=case.category,
            verdict=Verdict.FAIL,
            reasons=failed_checks,
            checks=tuple(checks),
            judges_spared=True,
            duration_s=duration_s,
        )
    verdict = _jury_verdict(
        case,
        votes,
        rubric,
        jurors=jurors,
        quorum=quorum,
        weights=weights,
        aggregation=aggregation,
        ties=ties,
        spread_alert=spread_alert,
        duration_s=duration_s,
        fresh=fresh,
    )
    if not checks:
        return verdict
    if failed_checks:
        jury_said = f"the jury said {verdict.verdict.value}" + (
            f": {'; '.join(verdict.reasons)}" if verdict.reasons else ""
        )
        return verdict.model_copy(
            update={
                "verdict": Verdict.FAIL,
                "reasons": (*failed_checks, jury_said),
                "checks": tuple(checks),
            }
        )
    return verdict.model_copy(update={"checks": tuple(checks)})


def _jury_verdict(
    case: Case,
    votes: Sequence[Vote],
    rubric: Rubric,
    *,
    jurors: int,
    quorum: int,
    weights: Mapping[str, float] | None,
    aggregation: Aggregation,
    ties: TiePolicy,
    spread_alert: float | None,
    duration_s: float,
    fresh: bool,
) -> CaseVerdict:
    weights = weights or {}
    metrics = rubric.metrics(case)
    if not fresh:
        votes = [_with_own_verdict(rubric, case, v) for v in votes]
    valid = [v for v in votes if v.status is VoteStatus.VALID]
    offline = bool(votes) and all(v.offline for v in votes)
    base = {
        "case_id": case.id,
        "category": case.category,
        "votes": tuple(sorted(votes, key=lambda v: v.juror)),
        "duration_s": duration_s,
        "offline": offline,
    }
    if len(valid) < quorum:
        missing = sorted(_describe(v) for v in votes if v.status is not VoteStatus.VALID)
        plural = "s" if len(valid) != 1 else ""
        reason = (
            f"quorum not met: {len(valid)} valid vote{plural} of {jurors} jurors, {quorum} needed"
        )
        return CaseVerdict(verdict=Verdict.INCONCLUSIVE, reasons=(reason, *missing), **base)

    results = _results(metrics, valid, weights, aggregation, ties)
    decision = rubric.decide(case, results)

    flags: list[str] = []
    dissenters: dict[str, Vote] = {}
    verdicts = {v.verdict for v in valid}
    if Verdict.PASS in verdicts and Verdict.FAIL in verdicts:
        passing = sum(1 for v in valid if v.verdict is Verdict.PASS)
        flags.append(f"jurors split: {passing} pass, {len(valid) - passing} fail")
        if decision.verdict in (Verdict.PASS, Verdict.FAIL):
            dissenters.update({v.juror: v for v in valid if v.verdict is not decision.verdict})
        else:
            dissenters.update({v.juror: v for v in valid})
    for metric in metrics:
        alert = spread_alert if spread_alert is not None else metric.spread_alert
        result = results[metric.name]
        if alert is None or result.spread is None or result.spread < alert:
            continue
        values = [v.scores[metric.name] for v in valid]
        flags.append(f"{metric.name}: scores range from {min(values)} to {max(values)}")
        far = max(_distance(value, result.value) for value in values)
        dissenters.update(
            {v.juror: v for v in valid if _distance(v.scores[metric.name], result.value) == far}
        )
    dissent = tuple(
        Dissent(juror=v.juror, verdict=v.verdict, reason=v.reason, scores=dict(v.scores))
        for v in sorted(dissenters.values(), key=lambda v: v.juror)
    )
    return CaseVerdict(
        verdict=decision.verdict,
        reasons=decision.reasons,
        metrics=results,
        score=decision.score,
        disagreement=bool(flags),
        disagreement_reasons=tuple(flags),
        dissent=dissent,
        **base,
    )
