"""Reducers and the tie policy: table-driven, and never dependent on the order of the votes."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jury._verdict import TiePolicy
from jury.adapters import Metric
from jury.decide._core import Aggregation, aggregate

SCALE = Metric("correctness", "ordinal", values=(1, 2, 3, 4, 5), threshold=4)
BINARY = Metric("pass", "nominal", values=(False, True))
POINT = Metric("p1", "nominal", values=("no", "cant_tell", "yes"))


def even(values: list[int | str | bool]) -> list[tuple[int | str | bool, float]]:
    return [(v, 1.0) for v in values]


@pytest.mark.parametrize(
    ("values", "how", "ties", "value", "passed", "tied"),
    [
        ([5, 4, 3], "median", "inconclusive", 4, True, ()),
        ([5, 5, 1], "median", "inconclusive", 5, True, ()),
        ([4, 5], "median", "inconclusive", 4.5, True, (4, 5)),  # both sides pass: no tie
        ([3, 4], "median", "inconclusive", 3.5, None, (3, 4)),  # straddles 4: undecided
        ([3, 4], "median", "fail", 3.5, False, (3, 4)),
        ([3, 4], "median", "pass", 3.5, True, (3, 4)),
        ([2, 3], "median", "inconclusive", 2.5, False, (2, 3)),  # both sides fail
        ([5, 4, 3], "mean", "inconclusive", 4.0, True, ()),
        ([5, 5, 2], "mean", "inconclusive", 4.0, True, ()),
        ([5, 5, 2], "minimum", "inconclusive", 2, False, ()),
        ([5, 4, 4], "majority", "inconclusive", 4, True, ()),
        ([5, 3], "majority", "inconclusive", None, None, (3, 5)),
        ([5, 3], "majority", "fail", 3, False, (3, 5)),
        ([5, 4], "majority", "inconclusive", None, True, (4, 5)),  # tied, but both pass
    ],
)
def test_scale_reducers(
    values: list[int],
    how: Aggregation,
    ties: TiePolicy,
    value: float | None,
    passed: bool | None,
    tied: tuple[int, ...],
) -> None:
    result = aggregate(SCALE, even(list(values)), how, ties)
    assert result.value == value
    assert result.passed is passed
    assert result.tied == tied
    assert result.votes == len(values)
    assert result.spread == max(values) - min(values)


@pytest.mark.parametrize(
    ("values", "ties", "value", "tied", "rule"),
    [
        ([True, True, False], "inconclusive", True, (), None),
        ([True, False], "inconclusive", None, (False, True), None),
        ([True, False], "fail", False, (False, True), "ties=fail"),
        ([True, False], "pass", True, (False, True), "ties=pass"),
        (["yes", "no", "cant_tell"], "fail", "no", ("no", "cant_tell", "yes"), "ties=fail"),
        (["yes", "no", "cant_tell"], "pass", "yes", ("no", "cant_tell", "yes"), "ties=pass"),
    ],
)
def test_categories_take_the_majority(
    values: list[bool | str],
    ties: TiePolicy,
    value: bool | str | None,
    tied: tuple[bool | str, ...],
    rule: str | None,
) -> None:
    metric = BINARY if isinstance(values[0], bool) else POINT
    # The panel's aggregation is ignored for categories: a median of categories means nothing.
    result = aggregate(metric, even(list(values)), "median", ties)
    assert result.value == value
    assert result.tied == tied
    assert result.tie_rule == rule
    assert result.spread is None


def test_weights_move_the_median_and_the_majority() -> None:
    assert aggregate(SCALE, [(2, 1.0), (5, 3.0)]).value == 5
    assert aggregate(SCALE, [(2, 1.0), (5, 1.0)]).tied == (2, 5)
    assert aggregate(BINARY, [(True, 1.0), (False, 2.0)]).value is False
    assert aggregate(BINARY, [(True, 2.0), (False, 2.0)]).value is None


def test_no_votes_no_value() -> None:
    result = aggregate(SCALE, [])
    assert result.value is None
    assert result.votes == 0


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(
        st.tuples(st.integers(1, 5), st.sampled_from([0.5, 1.0, 2.0])), min_size=1, max_size=7
    ),
    how=st.sampled_from(["median", "mean", "minimum", "majority"]),
    ties=st.sampled_from(["inconclusive", "fail", "pass"]),
    seed=st.integers(0, 2**16),
)
def test_order_never_matters(
    values: list[tuple[int, float]], how: Aggregation, ties: TiePolicy, seed: int
) -> None:
    shuffled = list(values)
    random.Random(seed).shuffle(shuffled)
    weighted = [(v, w) for v, w in values]
    reshuffled = [(v, w) for v, w in shuffled]
    assert aggregate(SCALE, weighted, how, ties) == aggregate(SCALE, reshuffled, how, ties)
