"""The error correlation between seats, checked against scipy and numpy; undefined where a
seat's errors do not vary; the finding drawn only at the threshold and the minimum count."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import pearsonr

from jury.agreement import Ratings
from jury.agreement._panel_stats import with_labels
from jury.agreement._seat_errors import MIN_ITEMS, THRESHOLD, seat_errors
from jury.agreement._seats import Seat, Seats


def labelled(
    columns: dict[str, list[str | None]], labels: list[str | None], values: tuple[str, ...]
) -> Ratings:
    units = [f"c{i}" for i in range(len(labels))]
    rows = [[columns[r][i] for r in columns] for i in range(len(labels))]
    ratings = Ratings.from_rows(rows, values=values, raters=list(columns), units=units)
    gold = {u: label for u, label in zip(units, labels, strict=True) if label is not None}
    return with_labels(ratings, gold)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_the_error_correlation_is_pearsons_r_of_the_errors_on_items_both_rated(
    seed: int,
) -> None:
    rng = np.random.default_rng(seed)
    n, values = 200, ("1", "2", "3", "4", "5")
    truth = rng.integers(1, 6, n)
    shared = rng.random(n)

    def seat(accuracy: float, copies: bool) -> list[str | None]:
        said: list[str | None] = []
        for i in range(n):
            coin = shared[i] if copies else rng.random()
            value = truth[i] if coin < accuracy else (truth[i] % 5) + 1
            # Some items are not rated: the pair is measured where both rated.
            said.append(None if rng.random() < 0.15 else str(value))
        return said

    columns = {"a": seat(0.7, True), "b": seat(0.6, True), "c": seat(0.8, False)}
    labels: list[str | None] = [None if rng.random() < 0.1 else str(t) for t in truth]
    found = seat_errors(labelled(columns, labels, values))
    assert [(p.a, p.b) for p in found.pairs] == [("a", "b"), ("a", "c"), ("b", "c")]
    for pair in found.pairs:
        both = [
            i
            for i in range(n)
            if columns[pair.a][i] is not None
            and columns[pair.b][i] is not None
            and labels[i] is not None
        ]
        wrong_a = np.array([columns[pair.a][i] != labels[i] for i in both], dtype=float)
        wrong_b = np.array([columns[pair.b][i] != labels[i] for i in both], dtype=float)
        assert pair.items == len(both)
        assert (pair.errors_a, pair.errors_b) == (int(wrong_a.sum()), int(wrong_b.sum()))
        assert pair.both_wrong == int((wrong_a * wrong_b).sum())
        assert pair.correlation.value == pytest.approx(pearsonr(wrong_a, wrong_b)[0], abs=1e-12)
        assert pair.correlation.value == pytest.approx(np.corrcoef(wrong_a, wrong_b)[0, 1])
        assert pair.correlation.units == len(both)


def test_a_seat_without_an_error_or_wrong_everywhere_has_no_correlation_only_a_reason() -> None:
    labels: list[str | None] = ["PASS", "FAIL"] * 20
    right = list(labels)
    wrong: list[str | None] = ["FAIL" if x == "PASS" else "PASS" for x in labels]
    some: list[str | None] = [x if i % 3 else wrong[i] for i, x in enumerate(labels)]
    columns = {"perfect": right, "contrary": wrong, "some": some}
    found = seat_errors(labelled(columns, labels, ("FAIL", "PASS")))
    cells = {(p.a, p.b): p.correlation for p in found.pairs}
    assert cells["perfect", "contrary"].value is None
    assert cells["perfect", "some"].value is None
    assert cells["perfect", "some"].reason == "perfect made no error of the 40 items both rated"
    assert cells["contrary", "some"].value is None
    assert cells["contrary", "some"].reason == (
        "contrary made an error on every one of the 40 items both rated"
    )
    assert found.adds_little == ()


def pattern(items: int) -> dict[str, list[str | None]]:
    """Two seats that err together on the first items; "weaker" once more than "stronger"."""
    labels: list[str | None] = ["PASS"] * items
    weaker: list[str | None] = ["FAIL" if i < 6 else "PASS" for i in range(items)]
    stronger: list[str | None] = ["FAIL" if i < 5 else "PASS" for i in range(items)]
    return {"labels": labels, "weaker": weaker, "stronger": stronger}


def test_a_seat_adds_little_at_the_threshold_on_enough_items_and_is_named_once() -> None:
    data = pattern(MIN_ITEMS)
    seats = Seats([Seat("weaker", "m", "f"), Seat("stronger", "m", "f")])
    columns = {"stronger": data["stronger"], "weaker": data["weaker"]}
    found = seat_errors(labelled(columns, data["labels"], ("FAIL", "PASS")), seats)
    r = found.pairs[0].correlation.value
    # (5 * 24 - 1 * 0) / sqrt(6 * 24 * 5 * 25) = 0.894
    assert r == pytest.approx(120 / np.sqrt(6 * 24 * 5 * 25))
    assert r is not None
    assert r >= THRESHOLD
    assert [(f.seat, f.other) for f in found.adds_little] == [("weaker", "stronger")]
    assert found.adds_little[0].sentence() == (
        f"weaker adds little: its errors correlate {r:.2f} with stronger's (seats of one "
        f"model), on {MIN_ITEMS} labelled items both rated (right on 80% of them, stronger "
        "on 83%)"
    )


def test_below_the_minimum_count_the_correlation_is_shown_but_no_finding_is_drawn() -> None:
    data = pattern(MIN_ITEMS - 1)
    columns = {"stronger": data["stronger"], "weaker": data["weaker"]}
    found = seat_errors(labelled(columns, data["labels"], ("FAIL", "PASS")))
    value = found.pairs[0].correlation.value
    assert value is not None
    assert value > THRESHOLD
    assert found.adds_little == ()


def test_below_the_threshold_no_seat_is_said_to_add_little() -> None:
    rng = np.random.default_rng(5)
    labels: list[str | None] = ["PASS"] * 200
    columns: dict[str, list[str | None]] = {
        name: ["FAIL" if rng.random() < 0.3 else "PASS" for _ in range(200)] for name in "ab"
    }
    found = seat_errors(labelled(columns, labels, ("FAIL", "PASS")))
    value = found.pairs[0].correlation.value
    assert value is not None
    assert abs(value) < THRESHOLD
    assert found.adds_little == ()


def test_the_label_column_is_the_last_whatever_a_juror_is_called() -> None:
    # The page names its label column "label": a juror of that name is still a juror.
    from jury.agreement._seat_errors import coded_seat_errors

    # Codes: 0 right, 1 wrong; the label (last) is 0 on every case.
    a = [0, 1, 0, 1, 1, 0]
    named_label = [0, 1, 1, 0, 1, 0]
    found = coded_seat_errors(
        [[x, y, 0] for x, y in zip(a, named_label, strict=True)], ["a", "label", "label"]
    )
    (pair,) = found.pairs
    assert (pair.a, pair.b, pair.items) == ("a", "label", 6)
    assert (pair.errors_a, pair.errors_b, pair.both_wrong) == (3, 3, 2)
    assert pair.correlation.value is not None
