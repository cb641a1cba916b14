"""The points kind's score and verdict, computed from the panel's answer to each point (never
by a judge): what a case's points are worth, and what they add up to.

    score = (weights of points met + weights of penalties that apply) / weights of all points

A case passes when the score reaches the threshold and, when ``strict``, every must point is
met. Points the jurors tied on are settled both ways: the verdict stands when both agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from jury import MetricResult, Point, Verdict
from jury.adapters import Decision, Metric, Score

__all__ = ["Item", "Need", "decision", "metric_of", "outcome"]

Need = Literal["must", "optional", "shared", "penalty"]
#: Worst to best, for a point and for a penalty (for which "yes" is the bad answer).
_POINT_ORDER: tuple[Score, ...] = ("no", "cant_tell", "yes")
_PENALTY_ORDER: tuple[Score, ...] = ("yes", "cant_tell", "no")


@dataclass(frozen=True, slots=True)
class Item:
    """One point as this case judges it: its short ID for the judge, its need and weight."""

    short: str
    point: Point
    need: Need
    weight: float

    @property
    def metric(self) -> str:
        return self.point.id


def metric_of(item: Item) -> Metric:
    """The point as a nominal metric, its answers ordered worst to best."""
    return Metric(
        name=item.metric,
        level="nominal",
        values=_PENALTY_ORDER if item.need == "penalty" else _POINT_ORDER,
    )


def outcome(
    items: tuple[Item, ...], answers: Mapping[str, Score], *, threshold: float, strict: bool
) -> tuple[Verdict, float, list[str]]:
    """The verdict, the score and the reasons, from one answer to every point."""
    total = sum(i.weight for i in items if i.need != "penalty")
    earned = sum(i.weight for i in items if answers[i.metric] == "yes")
    score = earned / total
    reasons = [
        f"must point {i.metric} not met: {i.point.says}"
        for i in items
        if i.need == "must" and answers[i.metric] != "yes"
    ]
    strict_failed = strict and bool(reasons)
    reasons += [
        f"penalty {i.metric} applies: {i.point.says}"
        for i in items
        if i.need == "penalty" and answers[i.metric] == "yes"
    ]
    below = score < threshold
    if below:
        reasons.append(f"score {score:.2f} < {threshold:g}")
    # Every lost point says what was missed, even on a pass.
    reasons += [
        f"{i.need} point {i.metric} not met: {i.point.says}"
        for i in items
        if i.need in ("optional", "shared") and answers[i.metric] != "yes"
    ]
    verdict = Verdict.FAIL if strict_failed or below else Verdict.PASS
    return verdict, score, reasons


def decision(
    items: tuple[Item, ...],
    results: Mapping[str, MetricResult],
    *,
    threshold: float,
    strict: bool,
) -> Decision:
    """The case's decision from the panel's result on each point."""
    settled = {i.metric: results[i.metric].value for i in items}
    open_ = [i for i in items if settled[i.metric] is None]
    if not open_:
        answers = {k: v for k, v in settled.items() if v is not None}
        verdict, score, reasons = outcome(items, answers, threshold=threshold, strict=strict)
        return Decision(verdict, tuple(reasons), score)
    # Jurors tied on some points and the policy left them open: decide anyway when every
    # way of settling them gives the same verdict, as the scale kind does at a threshold.
    worst: dict[str, Score] = {}
    best: dict[str, Score] = {}
    for item in items:
        value = settled[item.metric]
        if value is not None:
            worst[item.metric] = best[item.metric] = value
            continue
        tied = sorted(results[item.metric].tied, key=metric_of(item).rank)
        worst[item.metric], best[item.metric] = tied[0], tied[-1]
    low_verdict, low, low_reasons = outcome(items, worst, threshold=threshold, strict=strict)
    high_verdict, high, _ = outcome(items, best, threshold=threshold, strict=strict)
    split = "; ".join(
        f"jurors split on {i.metric} ({' / '.join(map(str, results[i.metric].tied))})"
        for i in open_
    )
    if low_verdict is high_verdict:
        return Decision(low_verdict, (*low_reasons, split), low if low == high else None)
    return Decision(
        Verdict.INCONCLUSIVE, (f"{split}: the score is between {low:.2f} and {high:.2f}",)
    )
