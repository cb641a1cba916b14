"""A statistic that cannot be computed is undefined, with the reason: never 1.0 or 0."""

from __future__ import annotations

import pytest

from jury.agreement import (
    Ratings,
    cohen_kappa,
    fleiss_kappa,
    gwet_ac1,
    identical_share,
    krippendorff_alpha,
    pairwise,
    percent_agreement,
)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_alpha_without_variation_is_undefined_not_one(level: str) -> None:
    ratings = Ratings.from_rows([[4, 4, 4], [4, 4, None], [4, None, 4]], level=level)  # type: ignore[arg-type]
    alpha = krippendorff_alpha(ratings, bootstrap=100)
    assert alpha.value is None
    assert alpha.reason is not None
    assert "same value" in alpha.reason
    assert alpha.low is None
    assert alpha.high is None
    assert not alpha.defined
    assert str(alpha).startswith("undefined (")


def test_alpha_with_no_unit_rated_twice_is_undefined() -> None:
    ratings = Ratings.from_rows([[1, None], [None, 2], [3, None]], level="ordinal")
    alpha = krippendorff_alpha(ratings)
    assert alpha.value is None
    assert alpha.reason == "no case has two or more ratings"
    assert alpha.units == 0


def test_kappa_family_without_variation_or_overlap() -> None:
    same = Ratings.from_rows([["PASS", "PASS"]] * 5, values=["FAIL", "PASS"])
    for estimate in (cohen_kappa(same), fleiss_kappa(same)):
        assert estimate.value is None
        assert estimate.reason is not None
        assert "chance agreement is total" in estimate.reason
    # Percent agreement is defined (and 100%): it is not chance-corrected.
    assert percent_agreement(same).value == 1.0
    # Gwet's formula says 1 when every rating is one value; aiojury says undefined, as the
    # README promises for every coefficient: no variation, nothing to agree about.
    ac1 = gwet_ac1(same)
    assert ac1.value is None
    assert ac1.reason is not None
    assert "no variation to agree about" in ac1.reason

    apart = Ratings.from_rows([["PASS", None], [None, "FAIL"]], values=["FAIL", "PASS"])
    assert cohen_kappa(apart).reason == "no case was rated by both"
    assert fleiss_kappa(apart).reason == "no case has two or more ratings"
    assert percent_agreement(apart).value is None
    assert identical_share(apart).value is None


def test_gwet_ac1_needs_two_values_on_the_scale() -> None:
    ratings = Ratings.from_rows([["x", "x"]], values=["x"])
    assert gwet_ac1(ratings).reason == "the scale has fewer than two values"


def test_pairwise_cells_carry_undefined_estimates() -> None:
    ratings = Ratings.from_rows(
        [[1, 1, None], [2, 2, None], [3, 3, 3]], level="ordinal", raters=["a", "b", "c"]
    )
    matrix = pairwise(ratings, statistic="alpha")
    assert matrix.get("a", "b").value == 1.0
    # a and c share one unit: one pairable unit with identical values, no variation.
    assert matrix.get("a", "c").value is None
    assert matrix.get("a", "c") == matrix.get("c", "a")
    assert matrix.mean("c") is None


def test_undefined_resamples_are_counted_not_averaged_in() -> None:
    # Two of three units agree on a single value: many resamples have no variation at all.
    ratings = Ratings.from_rows([[1, 1], [1, 1], [1, 2]], values=[1, 2])
    alpha = krippendorff_alpha(ratings, bootstrap=400)
    assert alpha.value is not None
    assert 0 < alpha.undefined_resamples < 400
