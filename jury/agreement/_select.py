"""Which jurors to keep: every subset of the candidates, ranked by held-out accuracy per dollar
(`jury calibrate --select`).

Each subset is fitted and measured the same way, by k-fold on the labelled cases: the model
the whole panel's fit chose, with its penalty. A juror alone is a subset too (its two
presentation orders learned), so "does the best jury beat its best juror?" compares like with
like.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from .._errors import ConfigError
from .._verdict import CaseVerdict
from ._evidence import Labelled, method
from ._learn import Linear, fit_stacked, fit_weights, folds_of

__all__ = ["MAX_CANDIDATES", "Budgeted", "Subset", "cost_per_case", "select", "within_budget"]

#: 2^10 - 1 subsets, each fitted k times, is as far as this goes.
MAX_CANDIDATES = 10


@dataclass(frozen=True, slots=True)
class Subset:
    jurors: tuple[str, ...]
    accuracy: float
    #: USD per case, None when a juror's price is unknown (or nothing was paid).
    cost: float | None

    @property
    def per_dollar(self) -> float | None:
        return self.accuracy / self.cost if self.cost else None


def cost_per_case(verdicts: Sequence[CaseVerdict]) -> dict[str, float | None]:
    """Each juror's mean cost of a case (its calls there); None where unknown or free."""
    spent: dict[str, float | None] = {}
    cases: dict[str, int] = {}
    for verdict in verdicts:
        for vote in verdict.votes:
            before = spent.get(vote.juror, 0.0)
            cost = vote.calls.cost
            spent[vote.juror] = None if before is None or cost is None else before + cost
            cases[vote.juror] = cases.get(vote.juror, 0) + 1
    return {j: (s / cases[j] if s else None) for j, s in spent.items()}


def select(
    table: Labelled,
    jurors: Sequence[str],
    costs: Mapping[str, float | None],
    *,
    model: str,
    penalty: float | None,
    seed: int = 0,
    folds: int = 5,
) -> list[Subset]:
    """Every non-empty subset of `jurors`, best first: by accuracy per dollar when every
    price is known, else by accuracy."""
    if len(jurors) > MAX_CANDIDATES:
        raise ConfigError(f"--select ranks at most {MAX_CANDIDATES} candidate jurors")
    members = [i for i, label in enumerate(table.labels) if label >= 0]
    y = [table.labels[i] for i in members]
    counts = np.bincount(y)
    assigned = folds_of(
        y, max(2, min(folds, int(counts[counts > 0].min()))), np.random.default_rng(seed)
    )
    k = len(table.classes)
    out = []
    for size in range(1, len(jurors) + 1):
        for chosen in combinations(sorted(jurors), size):
            rows = table.only(chosen, members)
            index = np.full(len(rows), -1, dtype=np.int64)
            for fold in np.unique(assigned):
                train = np.nonzero(assigned != fold)[0]
                test = np.nonzero(assigned == fold)[0]
                part = [rows[i] for i in train]
                labels = [y[i] for i in train]
                fitted: Linear = (
                    fit_stacked(
                        part, labels, k, folds=folds, rng=np.random.default_rng(seed), c=penalty
                    )[0]
                    if model == "stacked"
                    else fit_weights(part, labels, table.keys)
                )
                index[test] = fitted.predict([rows[i] for i in test])[0]
            prices = [costs.get(j) for j in chosen]
            cost = None if any(p is None for p in prices) else float(sum(p for p in prices if p))
            out.append(Subset(chosen, method("", index, y).accuracy_all, cost))
    priced = all(s.cost for s in out)
    return sorted(
        out,
        key=lambda s: (-(s.per_dollar or 0.0) if priced else -s.accuracy, len(s.jurors), s.jurors),
    )


@dataclass(frozen=True, slots=True)
class Budgeted:
    """`--select --budget`: the seat sets within a budget (USD per 1000 cases), best held-out
    accuracy first, and what the best of them is measured against."""

    budget: float
    ranked: list[Subset]
    #: Sets dropped for costing more than the budget, and for a seat of unknown price.
    over: list[Subset]
    unknown: list[Subset]
    #: Seats whose price is unknown (never taken as free).
    unpriced: tuple[str, ...]
    #: The best set's best seat alone, and the most accurate set of one model's seats.
    best_seat: Subset | None
    strongest_model: tuple[str, Subset] | None

    @property
    def best(self) -> Subset | None:
        return self.ranked[0] if self.ranked else None


def per_1000(subset: Subset) -> float | None:
    return None if subset.cost is None else 1000 * subset.cost


def within_budget(subsets: Sequence[Subset], budget: float, models: Mapping[str, str]) -> Budgeted:
    """Rank `subsets` (from `select`) by held-out accuracy among those costing at most
    `budget` USD per 1000 cases. A set with a seat of unknown price cannot be shown to be
    within any budget: it is listed apart, never ranked as free. `models` maps each seat to
    its model (a seat is a model and a prompt strategy)."""
    if budget <= 0:
        raise ConfigError(f"--budget: {budget:g} USD per 1000 cases; it must be above 0")
    unknown = [s for s in subsets if s.cost is None]
    priced = [s for s in subsets if s.cost is not None]
    over = [s for s in priced if (per_1000(s) or 0.0) > budget]
    ranked = sorted(
        (s for s in priced if (per_1000(s) or 0.0) <= budget),
        key=lambda s: (-s.accuracy, s.cost, len(s.jurors), s.jurors),
    )
    unpriced = tuple(sorted({j for s in unknown if len(s.jurors) == 1 for j in s.jurors}))
    singles = {s.jurors[0]: s for s in subsets if len(s.jurors) == 1}
    best_seat = None
    if ranked:
        own = [singles[j] for j in ranked[0].jurors if j in singles]
        best_seat = max(own, key=lambda s: (s.accuracy, s.jurors)) if own else None
    by_model: dict[str, list[Subset]] = {}
    for subset in subsets:
        names = {models.get(j, j) for j in subset.jurors}
        if len(names) == 1:
            by_model.setdefault(names.pop(), []).append(subset)
    strongest = None
    for model, sets in sorted(by_model.items()):
        top = max(sets, key=lambda s: (s.accuracy, -len(s.jurors)))
        if strongest is None or top.accuracy > strongest[1].accuracy:
            strongest = (model, top)
    return Budgeted(budget, ranked, over, unknown, unpriced, best_seat, strongest)
