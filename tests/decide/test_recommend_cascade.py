"""The recommended cascade is chosen out of sample (issue 21): each order's learned jury is
measured only on labelled cases its fit never read, never on the fit's own cases."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest

from jury import load_rubric
from jury.agreement import _recommend
from jury.agreement._evidence import Labelled
from jury.agreement._fitting import fit_jury
from jury.agreement._recommend import Measured, recommend_cascade
from jury.decide._learned import Fit, SourceKey

RUBRIC = load_rubric("grounded-answer")
RIGHT = {"cheap": 0.8, "dear": 0.9}
ORDERS = {
    "strongest first": {"dear": 1, "cheap": 2},
    "cheapest first": {"cheap": 1, "dear": 2},
}


def table(cases: int = 80) -> Labelled:
    rng = np.random.default_rng(5)
    keys = ("FAIL", "PASS")
    labels = [int(rng.random() < 0.5) for _ in range(cases)]
    labels[:2] = [0, 1]  # both classes, whatever the draw
    rows: list[dict[SourceKey, str]] = [
        {
            (seat, None): keys[label if rng.random() < right else 1 - label]
            for seat, right in RIGHT.items()
        }
        for label in labels
    ]
    jurors = [{k[0]: v for k, v in row.items()} for row in rows]
    # Ten cases unlabelled: never fitted on, never measured.
    labels[-10:] = [-1] * 10
    return Labelled("pass", keys, [f"c{i}" for i in range(cases)], rows, jurors, labels)


def test_every_order_is_measured_only_on_labelled_cases_its_fit_did_not_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = table()
    hidden: dict[int, set[int]] = {}
    real = fit_jury

    def spying(fitted: Labelled, *args: Any, **kwargs: Any) -> Any:
        found = real(fitted, *args, **kwargs)
        hidden[id(found.fit)] = {i for i, label in enumerate(fitted.labels) if label < 0}
        return found

    monkeypatch.setattr(_recommend, "fit_jury", spying)
    measured: dict[str, list[int]] = {name: [] for name in ORDERS}

    def measure(fit: Fit, tiers: Mapping[str, int], members: Sequence[int]) -> Measured:
        name = next(n for n, t in ORDERS.items() if t == tiers)
        assert set(members) <= hidden[id(fit)], "measured on a case the fit read"
        measured[name] += members
        return Measured(len(members), len(members), 1.0, 1.0)

    recommend_cascade(data, ORDERS, RUBRIC, measure, inner_folds=2, seed=0)
    labelled = [i for i, label in enumerate(data.labels) if label >= 0]
    for members in measured.values():
        # Each labelled case is held out exactly once per order: the folds cover them all.
        assert sorted(members) == labelled


def test_the_choice_is_the_cheapest_within_the_tolerance_on_the_pooled_held_out_folds() -> None:
    data = table()
    gold = {i: data.keys[label] for i, label in enumerate(data.labels) if label >= 0}

    def measure(fit: Fit, tiers: Mapping[str, int], members: Sequence[int]) -> Measured:
        first = next(j for j, t in tiers.items() if t == 1)
        # A stand-in for the engine: the first tier alone decides, at its own price.
        right = sum(data.jurors[i][first] == gold[i] for i in members)
        price = {"cheap": 1.0, "dear": 10.0}[first]
        return Measured(right, len(members), price * len(members), 11.0 * len(members))

    wide = recommend_cascade(data, ORDERS, RUBRIC, measure, tolerance=0.5)
    assert wide.chosen == "cheapest first"
    by_name = {o.name: o for o in wide.options}
    assert by_name["cheapest first"].cost_ratio == pytest.approx(1 / 11)
    assert by_name["strongest first"].cost_ratio == pytest.approx(10 / 11)
    # The pooled accuracy is each first seat's own over all 70 labelled cases.
    labelled = list(gold)
    for name, first in (("strongest first", "dear"), ("cheapest first", "cheap")):
        share = np.mean([data.jurors[i][first] == gold[i] for i in labelled])
        assert by_name[name].accuracy == pytest.approx(share)
    gap = by_name["strongest first"].accuracy - by_name["cheapest first"].accuracy
    assert gap > 0.01  # the draw makes the dear seat the better one
    narrow = recommend_cascade(data, ORDERS, RUBRIC, measure, tolerance=gap / 2)
    assert narrow.chosen == "strongest first"


def test_fewer_than_two_folds_is_refused() -> None:
    with pytest.raises(ValueError, match="two folds"):
        recommend_cascade(
            table(), ORDERS, RUBRIC, lambda *_: Measured(0, 0, None, None), inner_folds=1
        )
