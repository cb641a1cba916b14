"""The recommended cascade, chosen out of sample (issue 21).

A cascade order (which jurors sit in which tier) is recommended by how its learned jury does
on labelled cases that its fit never saw: the labelled cases are dealt, seeded and by class,
into `inner_folds` folds; for each order and each fold, the learned jury is fitted
(`fit_jury`) on the other folds and measured on that one (right, decided, calls and cost, by
the caller's `measure`: the engine's own decision step); the folds' tallies are pooled, and
`cheapest_within` picks the cheapest order by cost within `tolerance` of the most accurate.

Why not the fit's own cases: a fit measured on the cases it was fitted on flatters the orders
with more sources (more columns fit the noise), so an in-sample choice leans to the dearer
order. Why not a test half: that is tuning on the figures one reports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._errors import ConfigError
from .._verdict import Verdict
from ._evidence import Labelled
from ._fitting import MIN_LABELLED, cheapest_within, fit_jury
from ._learn import folds_of

if TYPE_CHECKING:
    from .._verdict import CaseVerdict
    from ..adapters._rubric import Rubric
    from ..cases._case import Case
    from ..decide._learned import Fit
    from ..panel._panel import Panel

__all__ = [
    "Measured",
    "Option",
    "Recommendation",
    "engine_measure",
    "orders_of",
    "recommend_cascade",
]


@dataclass(frozen=True, slots=True)
class Measured:
    """What a fitted cascade did on some labelled cases: right (undecided counted wrong) of
    `cases`, and its cost against the full panel's (None: a price unknown)."""

    right: int
    cases: int
    cost: float | None
    full_cost: float | None


#: How a caller measures a fit with these tiers on these cases (indices into the table).
Measure = Callable[["Fit", Mapping[str, int], Sequence[int]], Measured]


@dataclass(frozen=True, slots=True)
class Option:
    """One order, measured on the inner folds' held-out cases, pooled."""

    name: str
    accuracy: float
    cost_ratio: float | None


@dataclass(frozen=True, slots=True)
class Recommendation:
    chosen: str
    options: tuple[Option, ...]
    folds: int


def _without(table: Labelled, hidden: set[int]) -> Labelled:
    """The table with the labels of `hidden` cases removed (a fit never reads them)."""
    labels = [-1 if i in hidden else label for i, label in enumerate(table.labels)]
    return Labelled(table.target, table.classes, table.ids, table.rows, table.jurors, labels)


def recommend_cascade(
    table: Labelled,
    orders: Mapping[str, Mapping[str, int]],
    rubric: Rubric,
    measure: Measure,
    *,
    tolerance: float = 0.01,
    inner_folds: int = 2,
    seed: int = 0,
    **fitting: Any,
) -> Recommendation:
    """The cheapest order (by cost) within `tolerance` of the most accurate, each measured
    on `inner_folds` folds of the labelled cases that its fit did not see. `fitting` goes
    to `fit_jury` (model, target_agreement, risk, the fit's own folds)."""
    if not orders:
        raise ValueError("no cascade to recommend")
    if inner_folds < 2:
        raise ValueError("an out-of-sample choice needs at least two folds")
    labelled = [i for i, label in enumerate(table.labels) if label >= 0]
    if len(labelled) < inner_folds:
        raise ConfigError(f"{len(labelled)} labelled case(s): too few for {inner_folds} folds")
    # A stream of its own: fit_jury deals its own folds from `seed`, and the two dealings
    # should not be the same permutation.
    rng = np.random.default_rng([seed, 21])
    assigned = folds_of([table.labels[i] for i in labelled], inner_folds, rng)
    held = [[labelled[j] for j in np.nonzero(assigned == f)[0]] for f in range(inner_folds)]
    # Each order is fitted on the folds but one: each such share must be enough for a fit,
    # or the fit's own refusal would count the labels of one share, not the user's.
    fewest = len(labelled) - max(len(members) for members in held)
    if fewest < MIN_LABELLED:
        raise ConfigError(
            f"{len(labelled)} case(s) labelled on {table.target}: too few to recommend a "
            f"cascade out of sample, which fits each order on {inner_folds - 1} of "
            f"{inner_folds} folds of them ({fewest} case(s) here) and a fit needs at least "
            f"{MIN_LABELLED}; label about {-(-MIN_LABELLED * inner_folds // (inner_folds - 1))}"
            " or more"
        )
    options = []
    for name, tiers in orders.items():
        right = cases = 0
        cost: float | None = 0.0
        full: float | None = 0.0
        for members in held:
            found = fit_jury(_without(table, set(members)), tiers, rubric, seed=seed, **fitting)
            if found.fit is None:
                # No threshold met the target on these folds: this order decides nothing here.
                cases += len(members)
                continue
            seen = measure(found.fit, tiers, members)
            right, cases = right + seen.right, cases + seen.cases
            cost = None if cost is None or seen.cost is None else cost + seen.cost
            full = None if full is None or seen.full_cost is None else full + seen.full_cost
        ratio = cost / full if cost is not None and full else None
        options.append(Option(name, right / cases if cases else 0.0, ratio))
    chosen = cheapest_within([(o.name, o.accuracy, o.cost_ratio) for o in options], tolerance)
    return Recommendation(chosen, tuple(options), inner_folds)


def orders_of(
    panel: Panel, costs: Mapping[str, float | None], strength: Mapping[str, float]
) -> dict[str, dict[str, int]]:
    """The cascade orders `jury calibrate --cascades` weighs: the panel's own tiers, the
    strongest model first, cheapest first by cost (one model a tier), and cheapest first by
    cost band (models within `BAND` times a tier's cheapest asked together). A seat's model
    is its group: one model's seats share a tier."""
    from ..decide._cascade import cheapest_first

    groups = {j.id: j.model if isinstance(j.model, str) else j.id for j in panel.jurors}
    best: dict[str, float] = {}
    for juror, group in groups.items():
        best[group] = max(best.get(group, 0.0), strength.get(juror, 0.0))
    ranked = sorted(best, key=lambda g: (-best[g], g))
    return {
        "as the panel has it": {j.id: j.tier for j in panel.jurors},
        "strongest first": {j: ranked.index(g) + 1 for j, g in groups.items()},
        "cheapest first": cheapest_first(costs, strength, groups=groups),
        "cheapest first, by cost band": cheapest_first(costs, strength, groups=groups, band=BAND),
    }


#: Models share a tier of "cheapest first, by cost band" when each costs at most this many
#: times the tier's cheapest (what benchmarks/juries.py weighs too).
BAND = 10.0


def engine_measure(
    panel: Panel,
    rubric: Rubric,
    cases: Sequence[Case],
    verdicts: Sequence[CaseVerdict],
    table: Labelled,
    costs: Mapping[str, float | None],
) -> Measure:
    """A `Measure` by the engine's own decision step (`Decider`, what `jury rescore` runs):
    a case is right when the learned value of the target is its label; cost from `costs`
    per juror and case, a juror the cascade did not ask costing nothing."""
    from ..decide._cascade import Decider, spend
    from ..decide._learned import PASS_TARGET, value_key

    weights = {j.id: j.weight for j in panel.jurors}

    def measure(fit: Fit, tiers: Mapping[str, int], members: Sequence[int]) -> Measured:
        rules = Decider(panel, rubric, tiers, weights, lambda case, juror: 1, fit)
        decided = []
        right = 0
        for i in members:
            verdict = rules.decide(cases[i], verdicts[i].votes)
            decided.append(verdict)
            if verdict.verdict is Verdict.INCONCLUSIVE:
                continue  # undecided counts wrong (a metric's median is no learned value)
            if table.target == PASS_TARGET:
                said: str | None = verdict.verdict.value
            else:
                metric = verdict.metrics.get(table.target)
                said = None if metric is None or metric.value is None else value_key(metric.value)
            right += said == table.keys[table.labels[i]]
        spent = spend(decided, sorted(tiers), lambda juror: 1, costs)
        return Measured(right, len(members), spent.cost, spent.full_cost)

    return measure
