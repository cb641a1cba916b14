"""Which jurors to keep: every subset of the candidates, ranked by held-out accuracy per dollar
(`jury calibrate --select`).

Each subset is fitted and measured the same way, by k-fold on the labelled cases: the model
the whole panel's fit chose, with its penalty. A juror alone is a subset too (its two
presentation orders learned), so "does the best jury beat its best juror?" compares like with
like.

A seat's cost per case comes from the price tables (`seat_costs`), through the code path that
`jury estimate` prices by (`jury.runs._seat_price`): the tokens its votes recorded, else the
estimate for its model and strategy on the same cases.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np

from .._errors import ConfigError
from .._verdict import CaseVerdict, Vote
from ..adapters._registry import family_of
from ..adapters._request import Usage
from ._evidence import Labelled, method
from ._learn import Linear, fit_stacked, fit_weights, folds_of

if TYPE_CHECKING:
    from ..adapters._rubric import Rubric
    from ..cases._case import Case
    from ..panel._panel import Juror, Panel
    from ._seats import Seats

__all__ = [
    "MAX_CANDIDATES",
    "Budgeted",
    "SeatCost",
    "Subset",
    "seat_costs",
    "select",
    "within_budget",
]

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


#: Where a seat's cost came from (`SeatCost.source`).
MEASURED = "measured tokens"
ESTIMATED = "estimated"
FREE = "free (offline)"
UNKNOWN = "price unknown"


@dataclass(frozen=True, slots=True)
class SeatCost:
    """A seat's USD per case (None: unknown), where it came from (`MEASURED`: the tokens its
    votes recorded; `ESTIMATED`: `jury estimate`'s expected figure on these cases, where
    they recorded none), and the model whose price table it was priced by."""

    cost: float | None
    source: str
    model: str
    why: str = ""


def seat_costs(
    panel: Panel,
    cases: Sequence[Case],
    verdicts: Sequence[CaseVerdict],
    seats: Seats,
    rubric: Rubric | None = None,
) -> dict[str, SeatCost]:
    """Each seat's cost of a case, from the price tables (`jury.runs._seat_price`, the path
    `jury estimate` prices by): the tokens its votes recorded priced by its model's table
    (not the USD the votes stored), else the estimate for its model and strategy on `cases`
    (replayed jurors and imported verdicts record no tokens). A replayed seat is priced as
    the model its records name; one that names none has no price."""
    from ..runs._estimate import estimate
    from ..runs._seat_price import seat_price

    votes: dict[str, list[Vote]] = {}
    for verdict in verdicts:
        for vote in verdict.votes:
            votes.setdefault(vote.juror, []).append(vote)
    found: dict[str, SeatCost] = {}
    guessed: list[tuple[str, Juror]] = []
    recorded: set[int] = set()  # seats priced as the model their records name
    for juror in panel.jurors:
        spec = juror.model if not isinstance(juror.model, str) else seats[juror.id].model
        name = spec if isinstance(spec, str) else spec.name
        named = spec != juror.model
        if isinstance(spec, str) and family_of(spec) == "replay":
            found[juror.id] = SeatCost(None, UNKNOWN, name, "its records name no model")
            continue
        own = votes.get(juror.id, [])
        if not any(v.calls.input_tokens or v.calls.output_tokens for v in own):
            if named:
                recorded.add(len(guessed))
            guessed.append((juror.id, juror.model_copy(update={"model": spec, "tier": 1})))
            continue
        priced = seat_price(spec, by_name=named)
        total: float | None = 0.0
        for vote in own:
            calls = vote.calls
            usage = Usage(calls.input_tokens, calls.output_tokens, calls.cached_tokens)
            share = min(1.0, calls.batched / calls.attempts) if calls.attempts else 0.0
            cost = priced.cost(usage, share)
            total = None if total is None or cost is None else total + cost
        source = FREE if priced.offline else MEASURED if total is not None else UNKNOWN
        found[juror.id] = SeatCost(None if total is None else total / len(own), source, name)
    if guessed:
        copy = panel.model_copy(update={"jurors": tuple(juror for _, juror in guessed)})
        result = estimate(copy, cases, rubric=rubric, by_name=recorded)
        for (seat, _), row in zip(guessed, result.jurors, strict=True):
            cost = None if row.cost is None or not result.judged else row.cost / result.judged
            source = FREE if row.offline else ESTIMATED if cost is not None else UNKNOWN
            found[seat] = SeatCost(cost, source, row.model)
    return found


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
