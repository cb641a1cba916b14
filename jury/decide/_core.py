"""From votes to a case verdict: quorum, per-metric aggregation, the rubric's decision, and
disagreement. Pure functions of their inputs, so `jury rescore` reuses them on recorded votes.

Aggregation is small named reducers and one explicit tie policy. Nothing here looks at the
order in which votes arrive: every reducer is a function of the multiset of (value, weight)
pairs, so a verdict never depends on the order of the jurors.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Literal

from .._verdict import (
    Ballot,
    CaseVerdict,
    CheckOutcome,
    CheckResult,
    Dissent,
    Metric,
    MetricResult,
    Score,
    TiePolicy,
    Verdict,
    Vote,
    VoteStatus,
    check_reasons,
    is_number,
    meets,
    single_result,
)

if TYPE_CHECKING:
    from ..adapters._rubric import Rubric
    from ..cases._case import Case

__all__ = [
    "AGGREGATIONS",
    "EVERY_JUROR",
    "Aggregation",
    "aggregate",
    "decide_case",
    "sample_verdicts",
]

# --- aggregation across jurors ------------------------------------------------------------

Aggregation = Literal["median", "mean", "minimum", "majority"]
AGGREGATIONS: tuple[Aggregation, ...] = ("median", "mean", "minimum", "majority")

Weighted = Sequence[tuple[Score, float]]
_NUMBERS = frozenset({int, float})


def _order(metric: Metric, value: Score) -> float:
    """Position on the metric's worst-to-best order (numbers order themselves)."""
    if is_number(value):
        return float(value)
    return float(metric.rank(value)) if metric.values else 0.0


def _result(metric: Metric, values: Weighted, numeric: bool, **fields: object) -> MetricResult:
    spread = None
    if numeric:
        numbers = [float(v) for v, _ in values]
        spread = max(numbers) - min(numbers)
    return MetricResult(name=metric.name, votes=len(values), spread=spread, **fields)  # type: ignore[arg-type]


def _settle(
    metric: Metric, tied: Sequence[Score], ties: TiePolicy
) -> tuple[Score | None, str | None]:
    """Settle a tie by policy: worst or best tied value, or leave it open."""
    if ties == "inconclusive":
        return None, None
    ranked = sorted(tied, key=lambda v: _order(metric, v))
    return (ranked[0] if ties == "fail" else ranked[-1]), f"ties={ties}"


def _median(metric: Metric, values: Weighted, ties: TiePolicy, numeric: bool) -> MetricResult:
    if numeric and all(weight == 1.0 for _, weight in values):
        # The common case, unweighted numbers: the middle one or two, without the walk.
        numbers = sorted(value for value, _ in values)
        lower, upper = numbers[(len(numbers) - 1) // 2], numbers[len(numbers) // 2]
    else:
        lower, upper = _weighted_middle(metric, values)
    if lower == upper:
        return _result(
            metric,
            values,
            numeric,
            value=lower,
            low=lower,
            high=upper,
            passed=meets(metric, lower),
        )
    return _split_median(metric, values, ties, numeric, lower, upper)


def _weighted_middle(metric: Metric, values: Weighted) -> tuple[Score, Score]:
    ranked = sorted(values, key=lambda pair: _order(metric, pair[0]))
    half = sum(weight for _, weight in ranked) / 2
    lower: Score | None = None
    upper: Score | None = None
    cumulative = 0.0
    for score, weight in ranked:
        cumulative += weight
        if lower is None and cumulative >= half:
            lower = score
        if cumulative > half:
            upper = score
            break
    if lower is None or upper is None:  # unreachable with positive weights
        raise ValueError(f"{metric.name}: weights must be positive")
    return lower, upper


def _split_median(
    metric: Metric, values: Weighted, ties: TiePolicy, numeric: bool, lower: Score, upper: Score
) -> MetricResult:
    # An even split: the median lies between two values. It only matters for the verdict
    # when the two fall on different sides of the threshold.
    passed_low, passed_high = meets(metric, lower), meets(metric, upper)
    passed = passed_low if passed_low == passed_high else None
    tie_rule = None
    if passed is None and passed_low is not None and ties != "inconclusive":
        passed, tie_rule = ties == "pass", f"ties={ties}"
    middle: Score | None
    if numeric:
        middle = (float(lower) + float(upper)) / 2
    else:
        middle, tie_rule = _settle(metric, (lower, upper), ties)
    return _result(
        metric,
        values,
        numeric,
        value=middle,
        low=lower,
        high=upper,
        tied=(lower, upper),
        tie_rule=tie_rule,
        passed=passed,
    )


def _majority(metric: Metric, values: Weighted, ties: TiePolicy, numeric: bool) -> MetricResult:
    tally: dict[Score, float] = {}
    for value, weight in values:
        tally[value] = tally.get(value, 0.0) + weight
    best = max(tally.values())
    leaders = sorted((v for v, w in tally.items() if w == best), key=lambda v: _order(metric, v))
    if len(leaders) == 1:
        winner = leaders[0]
        return _result(
            metric,
            values,
            numeric,
            value=winner,
            low=winner,
            high=winner,
            passed=meets(metric, winner),
        )
    settled, tie_rule = _settle(metric, leaders, ties)
    if settled is not None:
        passed = meets(metric, settled)
    else:
        outcomes = {meets(metric, v) for v in leaders}
        passed = outcomes.pop() if len(outcomes) == 1 else None
    return _result(
        metric,
        values,
        numeric,
        value=settled,
        low=leaders[0],
        high=leaders[-1],
        tied=tuple(leaders),
        tie_rule=tie_rule,
        passed=passed,
    )


def aggregate(
    metric: Metric,
    values: Weighted,
    how: Aggregation = "median",
    ties: TiePolicy = "inconclusive",
) -> MetricResult:
    """Aggregate one metric's valid (value, weight) pairs.

    Categories (nominal metrics) are always combined by majority: a median or mean of
    categories means nothing. Mean needs numbers; minimum is a veto (the worst value wins).
    """
    if not values:
        return MetricResult(name=metric.name, value=None, votes=0)
    scores = [v for v, _ in values]
    # Exact types: bool is an int subclass, but a category here.
    numeric = set(map(type, scores)) <= _NUMBERS
    first = scores[0]
    if scores.count(first) == len(scores):
        # Unanimous (the common case): every reducer gives the same value.
        result = single_result(metric, first, numeric)
        result.votes = len(values)
        return result
    if metric.level == "nominal" or how == "majority" or not numeric:
        return _majority(metric, values, ties, numeric)
    if how == "median":
        return _median(metric, values, ties, numeric)
    if how == "mean":
        total = sum(w for _, w in values)
        mean = sum(float(v) * w for v, w in values) / total
        return _result(
            metric, values, numeric, value=mean, low=mean, high=mean, passed=meets(metric, mean)
        )
    worst = min((v for v, _ in values), key=lambda v: _order(metric, v))
    return _result(
        metric, values, numeric, value=worst, low=worst, high=worst, passed=meets(metric, worst)
    )


# --- the case's verdict ------------------------------------------------------------------


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


#: The reason of a case held INCONCLUSIVE by ``[gate] require_every_juror``.
EVERY_JUROR = "[gate] require_every_juror: a juror has no valid vote on this case"
#: A juror's vote lost on a case (an abstention is the juror's own call: it cannot measure).
_LOST = (VoteStatus.UNAVAILABLE, VoteStatus.INVALID)


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
    every_juror: bool = False,
) -> CaseVerdict:
    """Combine the votes and checks on one case into its verdict.

    `jurors` is the number of configured jurors (for the reasons), `quorum` the valid votes
    needed. A failed required check fails the case whatever the jury says (the checks and the
    jury are joined by AND); with no votes at all, the judges were spared. No step depends on
    the order of `votes`. Unless `fresh` (just cast under these very rules), each valid
    vote's own verdict is recomputed, so that a re-score under new thresholds is consistent.
    A required check that was unavailable (its model did not answer) leaves a case the jury
    passed INCONCLUSIVE. With `every_juror` (``[gate] require_every_juror``), a case on which
    a juror's vote is unavailable or invalid is INCONCLUSIVE whatever the quorum.
    """
    failed_checks = check_reasons(checks, CheckOutcome.FAIL)
    if failed_checks and not votes:
        return CaseVerdict(
            case_id=case.id,
            category=case.category,
            split=case.split,
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
        every_juror=every_juror,
    )
    return verdict.with_checks(checks) if checks else verdict


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
    every_juror: bool = False,
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
        "split": case.split,
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
    if every_juror:
        lost = sorted(_describe(v) for v in votes if v.status in _LOST)
        if lost:
            return CaseVerdict(verdict=Verdict.INCONCLUSIVE, reasons=(EVERY_JUROR, *lost), **base)

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
        measured = [v for v in valid if metric.name in v.scores]
        values = [v.scores[metric.name] for v in measured]
        flags.append(f"{metric.name}: scores range from {min(values)} to {max(values)}")
        far = max(_distance(value, result.value) for value in values)
        dissenters.update(
            {v.juror: v for v in measured if _distance(v.scores[metric.name], result.value) == far}
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
