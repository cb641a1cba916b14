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

__all__ = ["MAX_CANDIDATES", "Subset", "cost_per_case", "select"]

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
