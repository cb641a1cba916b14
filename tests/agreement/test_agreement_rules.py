"""The stated rules for awkward ratings (NaN of any float type, infinities, values off the
declared scale, no variation) and the BCa interval."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import bootstrap as scipy_bootstrap

from jury.agreement import Bootstrap, Ratings, gwet_ac1, krippendorff_alpha, percent_agreement


@pytest.mark.parametrize("nan", [float("nan"), np.float32("nan"), np.float64("nan")])
def test_a_nan_of_any_float_type_is_a_missing_rating(nan: float) -> None:
    ratings = Ratings.from_rows([[1, nan], [2, 2], [3, 3]], level="interval")
    assert ratings.codes[0, 1] == -1
    assert ratings.values == (1, 2, 3)


@pytest.mark.parametrize("value", [float("inf"), -np.inf, np.float32("inf")])
def test_an_infinite_rating_is_an_error_not_a_lack_of_variation(value: float) -> None:
    with pytest.raises(ValueError, match="is not a finite rating"):
        Ratings.from_rows([[1, value], [2, 2]], level="interval", name="score")


@pytest.mark.parametrize(
    ("rows", "values", "shown"),
    [
        ([[7, 3]], (1, 2, 3, 4, 5), "7"),
        ([["MAYBE", "PASS"]], ("FAIL", "PASS"), "'MAYBE'"),
    ],
)
def test_a_rating_off_the_declared_scale_is_an_error_never_a_new_category(
    rows: list[list[object]], values: tuple[object, ...], shown: str
) -> None:
    with pytest.raises(ValueError, match=f"{shown} is not on the declared"):
        Ratings.from_rows(rows, values=values)  # type: ignore[arg-type]


def test_without_a_declared_scale_the_values_observed_are_the_scale() -> None:
    ratings = Ratings.from_rows([["b", "a"], ["c", "a"]])
    assert ratings.values == ("a", "b", "c")
    assert not ratings.declared


def test_ac1_without_variation_is_undefined_and_so_are_such_resamples() -> None:
    same = Ratings.from_rows([["PASS", "PASS"]] * 6, values=("FAIL", "PASS"))
    assert gwet_ac1(same).value is None
    # One case of disagreement among many: defined, and resamples without it are undefined.
    mostly = Ratings.from_rows([["PASS", "PASS"]] * 6 + [["PASS", "FAIL"]], values=("FAIL", "PASS"))
    found = gwet_ac1(mostly, bootstrap=200)
    assert found.value is not None
    assert found.undefined_resamples > 0


def test_bca_matches_scipy_on_percent_agreement() -> None:
    rng = np.random.default_rng(3)
    rows = [["a", "a" if rng.random() < 0.8 else "b"] for _ in range(60)]
    ratings = Ratings.from_rows(rows)
    ours = percent_agreement(ratings, bootstrap=Bootstrap(4000, method="bca", seed=1))
    same = np.array([row[0] == row[1] for row in rows], dtype=float)
    reference = scipy_bootstrap(
        (same,), np.mean, n_resamples=4000, method="BCa", random_state=np.random.default_rng(1)
    ).confidence_interval
    assert ours.low == pytest.approx(reference.low, abs=0.02)
    assert ours.high == pytest.approx(reference.high, abs=0.02)


def test_bca_shifts_a_skewed_interval_that_percentile_leaves_symmetric() -> None:
    rng = np.random.default_rng(5)
    rows = [[x, x + rng.normal(0, 0.3)] for x in rng.exponential(1.0, 40)]
    ratings = Ratings.from_rows(rows, level="interval")
    percentile = krippendorff_alpha(ratings, bootstrap=Bootstrap(2000, seed=2))
    bca = krippendorff_alpha(ratings, bootstrap=Bootstrap(2000, seed=2, method="bca"))
    assert percentile.value == bca.value
    assert (percentile.low, percentile.high) != (bca.low, bca.high)
    assert bca.low is not None
    assert bca.high is not None
    assert bca.value is not None
    assert bca.low < bca.value < bca.high


def test_an_unknown_interval_method_is_refused() -> None:
    with pytest.raises(ValueError, match="method must be"):
        Bootstrap(10, method="studentized")  # type: ignore[arg-type]
