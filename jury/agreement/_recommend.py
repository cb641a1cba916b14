"""The recommended cascade, chosen out of sample (issue 21).

A cascade order (which jurors sit in which tier) is recommended by how its learned jury does
on labelled cases that its fit never saw: the labelled cases are dealt, seeded and by class,
into `folds` inner folds; for each order and each fold, the learned jury is fitted
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
from ._evidence import Labelled
from ._fitting import cheapest_within, fit_jury
from ._learn import folds_of

if TYPE_CHECKING:
    from ..adapters._rubric import Rubric
    from ..decide._learned import Fit

__all__ = ["Measured", "Option", "Recommendation", "recommend_cascade"]


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
    folds: int = 2,
    seed: int = 0,
    **fitting: Any,
) -> Recommendation:
    """The cheapest order (by cost) within `tolerance` of the most accurate, each measured
    on inner folds of the labelled cases that its fit did not see. `fitting` goes to
    `fit_jury` (model, target_agreement, risk, folds of the fit itself)."""
    if not orders:
        raise ValueError("no cascade to recommend")
    if folds < 2:
        raise ValueError("an out-of-sample choice needs at least two folds")
    labelled = [i for i, label in enumerate(table.labels) if label >= 0]
    if len(labelled) < folds:
        raise ConfigError(f"{len(labelled)} labelled case(s): too few for {folds} folds")
    # A stream of its own: fit_jury deals its own folds from `seed`, and the two dealings
    # should not be the same permutation.
    rng = np.random.default_rng([seed, 21])
    assigned = folds_of([table.labels[i] for i in labelled], folds, rng)
    held = [[labelled[j] for j in np.nonzero(assigned == f)[0]] for f in range(folds)]
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
    return Recommendation(chosen, tuple(options), folds)
