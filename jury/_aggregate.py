"""Aggregation across jurors: small named reducers, and one explicit tie policy.

Nothing here looks at the order in which votes arrive: every reducer is a function of the
multiset of (value, weight) pairs, so a verdict never depends on the order of the jurors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from ._rubric import Metric
from ._verdict import MetricResult, Score

__all__ = ["AGGREGATIONS", "Aggregation", "TiePolicy", "aggregate"]

Aggregation = Literal["median", "mean", "minimum", "majority"]
TiePolicy = Literal["inconclusive", "fail", "pass"]
AGGREGATIONS: tuple[Aggregation, ...] = ("median", "mean", "minimum", "majority")

Weighted = Sequence[tuple[Score, float]]


def _is_number(value: Score) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _order(metric: Metric, value: Score) -> float:
    """Position on the metric's worst-to-best order (numbers order themselves)."""
    if metric.values:
        return float(metric.rank(value))
    if _is_number(value):
        return float(value)
    return 0.0


def _meets(metric: Metric, value: Score) -> bool | None:
    if metric.threshold is None or not _is_number(value):
        return None
    return float(value) >= metric.threshold


def _spread(values: Weighted) -> float | None:
    numbers = [float(v) for v, _ in values if _is_number(v)]
    if len(numbers) != len(values) or not numbers:
        return None
    return max(numbers) - min(numbers)


def _settle(
    metric: Metric, tied: Sequence[Score], ties: TiePolicy
) -> tuple[Score | None, str | None]:
    """Settle a tie by policy: worst or best tied value, or leave it open."""
    if ties == "inconclusive":
        return None, None
    ranked = sorted(tied, key=lambda v: _order(metric, v))
    return (ranked[0] if ties == "fail" else ranked[-1]), f"ties={ties}"


def _median(metric: Metric, values: Weighted, ties: TiePolicy) -> MetricResult:
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
    if lower == upper:
        return MetricResult(
            name=metric.name,
            value=lower,
            low=lower,
            high=upper,
            votes=len(values),
            spread=_spread(values),
            passed=_meets(metric, lower),
        )
    # An even split: the median lies between two values. It only matters for the verdict
    # when the two fall on different sides of the threshold.
    passed_low, passed_high = _meets(metric, lower), _meets(metric, upper)
    passed = passed_low if passed_low == passed_high else None
    tie_rule = None
    if passed is None and passed_low is not None and ties != "inconclusive":
        passed, tie_rule = ties == "pass", f"ties={ties}"
    middle: Score | None
    if _is_number(lower) and _is_number(upper):
        middle = (float(lower) + float(upper)) / 2
    else:
        middle, tie_rule = _settle(metric, (lower, upper), ties)
    return MetricResult(
        name=metric.name,
        value=middle,
        low=lower,
        high=upper,
        votes=len(values),
        tied=(lower, upper),
        tie_rule=tie_rule,
        spread=_spread(values),
        passed=passed,
    )


def _majority(metric: Metric, values: Weighted, ties: TiePolicy) -> MetricResult:
    tally: dict[Score, float] = {}
    for value, weight in values:
        tally[value] = tally.get(value, 0.0) + weight
    best = max(tally.values())
    leaders = sorted((v for v, w in tally.items() if w == best), key=lambda v: _order(metric, v))
    if len(leaders) == 1:
        winner = leaders[0]
        return MetricResult(
            name=metric.name,
            value=winner,
            low=winner,
            high=winner,
            votes=len(values),
            spread=_spread(values),
            passed=_meets(metric, winner),
        )
    outcomes = {_meets(metric, v) for v in leaders}
    settled, tie_rule = _settle(metric, leaders, ties)
    if settled is not None:
        passed = _meets(metric, settled)
    else:
        passed = outcomes.pop() if len(outcomes) == 1 else None
    return MetricResult(
        name=metric.name,
        value=settled,
        low=leaders[0],
        high=leaders[-1],
        votes=len(values),
        tied=tuple(leaders),
        tie_rule=tie_rule,
        spread=_spread(values),
        passed=passed,
    )


def _mean(metric: Metric, values: Weighted) -> MetricResult:
    total = sum(w for _, w in values)
    mean = sum(float(v) * w for v, w in values) / total
    return MetricResult(
        name=metric.name,
        value=mean,
        low=mean,
        high=mean,
        votes=len(values),
        spread=_spread(values),
        passed=_meets(metric, mean),
    )


def _minimum(metric: Metric, values: Weighted) -> MetricResult:
    worst = min((v for v, _ in values), key=lambda v: _order(metric, v))
    return MetricResult(
        name=metric.name,
        value=worst,
        low=worst,
        high=worst,
        votes=len(values),
        spread=_spread(values),
        passed=_meets(metric, worst),
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
    numeric = all(_is_number(v) for v, _ in values)
    if metric.level == "nominal" or how == "majority" or not numeric:
        return _majority(metric, values, ties)
    if how == "median":
        return _median(metric, values, ties)
    if how == "mean":
        return _mean(metric, values)
    return _minimum(metric, values)
