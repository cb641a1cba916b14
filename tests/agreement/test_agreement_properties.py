"""Property tests: the statistics against independent implementations on random data with
missing ratings (krippendorff, scikit-learn, statsmodels), and the vectorised bootstrap
against a plain loop."""

from __future__ import annotations

import math
import random
import warnings

import numpy as np
import pytest
from extras import needs
from hypothesis import given, settings
from hypothesis import strategies as st

from jury.adapters import Level
from jury.agreement import (
    Bootstrap,
    Ratings,
    cohen_kappa,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
)

Cell = int | None


def tables(
    max_units: int = 25, max_raters: int = 5, values: int = 5, missing: bool = True
) -> st.SearchStrategy[list[list[Cell]]]:
    cell: st.SearchStrategy[int | None] = st.integers(1, values)
    if missing:
        cell = st.one_of(st.none(), cell) | cell  # about a third missing
    return st.integers(2, max_raters).flatmap(
        lambda width: st.lists(
            st.lists(cell, min_size=width, max_size=width), min_size=1, max_size=max_units
        )
    )


def _reference_alpha(rows: list[list[Cell]], level: Level) -> float:
    import krippendorff

    data = np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=float).T
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))


@needs("test")
@settings(max_examples=60, deadline=None)
@given(rows=tables(), level=st.sampled_from(["nominal", "ordinal", "interval", "ratio"]))
def test_alpha_matches_the_krippendorff_package(rows: list[list[Cell]], level: Level) -> None:
    ratings = Ratings.from_rows(rows, level=level)
    ours = krippendorff_alpha(ratings)
    pairable = sum(1 for row in rows if sum(v is not None for v in row) >= 2)
    if pairable == 0 or len({v for row in rows for v in row if v is not None}) < 2:
        # The package raises or returns nan here; ours must say why.
        assert ours.value is None
        assert ours.reason
        return
    with np.errstate(all="ignore"):
        reference = _reference_alpha(rows, level)
    if math.isnan(reference):
        assert ours.value is None
    else:
        assert ours.value == pytest.approx(reference, abs=1e-9)


@needs("test")
@settings(max_examples=60, deadline=None)
@given(
    rows=tables(max_raters=2),
    weights=st.sampled_from([None, "linear", "quadratic"]),
)
def test_cohen_kappa_matches_scikit_learn(rows: list[list[Cell]], weights: str | None) -> None:
    from sklearn.metrics import cohen_kappa_score

    ratings = Ratings.from_rows([row[:2] for row in rows], level="ordinal", values=[1, 2, 3, 4, 5])
    pairs = [(a, b) for a, b in (row[:2] for row in rows) if a is not None and b is not None]
    ours_declared = cohen_kappa(ratings, weights=weights)  # type: ignore[arg-type]
    ours_observed = cohen_kappa(ratings, weights=weights, convention="observed")  # type: ignore[arg-type]
    if not pairs:
        assert ours_declared.value is None
        assert ours_declared.reason == "no case was rated by both"
        return
    a, b = zip(*pairs, strict=True)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        # A single label warns; the result is still compared.
        warnings.simplefilter("ignore")
        observed = cohen_kappa_score(a, b, weights=weights)
        declared = cohen_kappa_score(a, b, weights=weights, labels=[1, 2, 3, 4, 5])
    for ours, reference in ((ours_observed, observed), (ours_declared, declared)):
        if math.isnan(reference):
            assert ours.value is None
            assert ours.reason
        else:
            assert ours.value == pytest.approx(reference, abs=1e-9)
    if weights is None:
        # Unweighted kappa does not depend on the category list.
        assert ours_declared.value == ours_observed.value


@needs("test")
@settings(max_examples=60, deadline=None)
@given(rows=tables(max_units=30, max_raters=6, missing=False))
def test_fleiss_kappa_matches_statsmodels_on_complete_data(rows: list[list[Cell]]) -> None:
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

    counts = np.array([[row.count(c) for c in range(1, 6)] for row in rows])
    ours = fleiss_kappa(Ratings.from_rows(rows, values=[1, 2, 3, 4, 5]))
    with np.errstate(all="ignore"):
        reference = float(sm_fleiss_kappa(counts, method="fleiss"))
    if math.isnan(reference) or len({v for row in rows for v in row}) == 1:
        assert ours.value is None
    else:
        assert ours.value == pytest.approx(reference, abs=1e-9)


def _gwet_reference(rows: list[list[Cell]], q: int, ac1: bool) -> float:
    """Gwet's (2014) formulas for missing ratings, written out directly (irrCAC's raw.py)."""
    rated = [[v for v in row if v is not None] for row in rows]
    rated = [r for r in rated if r]
    pairable = [r for r in rated if len(r) >= 2]
    pa = sum(
        sum(r.count(c) * (r.count(c) - 1) for c in set(r)) / (len(r) * (len(r) - 1))
        for r in pairable
    ) / len(pairable)
    pi = [sum(r.count(c) / len(r) for r in rated) / len(rated) for c in range(1, q + 1)]
    pe = sum(p * (1 - p) for p in pi) / (q - 1) if ac1 else sum(p * p for p in pi)
    return (pa - pe) / (1 - pe)


@settings(max_examples=60, deadline=None)
@given(rows=tables(max_units=20, max_raters=5))
def test_fleiss_and_ac1_with_missing_follow_gwet(rows: list[list[Cell]]) -> None:
    ratings = Ratings.from_rows(rows, values=[1, 2, 3, 4, 5])
    pairable = any(sum(v is not None for v in row) >= 2 for row in rows)
    ac1 = gwet_ac1(ratings)
    fleiss = fleiss_kappa(ratings)
    if not pairable:
        assert ac1.value is None
        assert fleiss.value is None
        return
    if len({v for row in rows for v in row if v is not None}) == 1:
        # One value throughout: Gwet's AC1 would be 1; undefined here (no variation).
        assert ac1.value is None
        return
    assert ac1.value == pytest.approx(_gwet_reference(rows, 5, ac1=True), abs=1e-9)
    assert fleiss.value == pytest.approx(_gwet_reference(rows, 5, ac1=False), abs=1e-9)


def test_bootstrap_equals_a_plain_loop_over_resampled_units() -> None:
    rng = np.random.default_rng(7)
    rows = rng.integers(1, 6, size=(40, 4)).astype(float)
    rows[rng.random(rows.shape) < 0.25] = np.nan
    ratings = Ratings.from_rows(rows.tolist(), level="ordinal")
    boot = Bootstrap(200, confidence=0.9, seed=11)
    fast = krippendorff_alpha(ratings, bootstrap=boot)
    # The same draws, one resample at a time, through the point estimate.
    pairable = np.sum(~np.isnan(rows), axis=1) >= 2
    kept = rows[pairable]
    draws = _recipe_draws(11, 200, len(kept))
    values = []
    for draw in draws:
        estimate = krippendorff_alpha(Ratings.from_rows(kept[draw].tolist(), level="ordinal"))
        values.append(np.nan if estimate.value is None else estimate.value)
    low, high = np.nanquantile(values, [0.05, 0.95])
    assert fast.low == pytest.approx(low, abs=1e-9)
    assert fast.high == pytest.approx(high, abs=1e-9)
    assert fast.low is not None
    assert fast.high is not None
    assert fast.value is not None
    assert fast.low <= fast.value <= fast.high


def test_bootstrap_is_reproducible_with_a_seed_and_varies_without_one() -> None:
    rng = np.random.default_rng(3)
    ratings = Ratings.from_rows(rng.integers(1, 4, size=(60, 3)).tolist())
    first = krippendorff_alpha(ratings, bootstrap=Bootstrap(300, seed=5))
    again = krippendorff_alpha(ratings, bootstrap=Bootstrap(300, seed=5))
    other = krippendorff_alpha(ratings, bootstrap=Bootstrap(300, seed=6))
    assert (first.low, first.high) == (again.low, again.high)
    assert (first.low, first.high) != (other.low, other.high)
    assert first.resamples == 300
    assert first.confidence == 0.95


def _recipe_draws(seed: int, resamples: int, units: int) -> list[list[int]]:
    """The bootstrap's resamples as its docstring gives them, in plain Python: one 64-bit
    little-endian word of the stdlib's Mersenne Twister per draw, floor(w * units / 2**64)."""
    rng = random.Random(seed)
    return [
        [int.from_bytes(rng.randbytes(8), "little") * units >> 64 for _ in range(units)]
        for _ in range(resamples)
    ]


@pytest.mark.parametrize(
    ("units", "resamples"), [(1, 5), (2, 7), (37, 1000), (1000, 70), (4001, 3), (5001, 20)]
)
def test_the_bootstrap_made_in_blocks_draws_the_resamples_of_its_recipe(
    units: int, resamples: int
) -> None:
    # Issue 36 made the bootstrap's memory smaller (a few resamples at a time, drawn without
    # numpy.random); the resamples must be those of the plain recipe, whatever the chunks
    # (1000 units: chunks of 65 resamples; 5001: of 13, so the stream carries over).
    from jury.agreement._reliability import Bootstrap, _resample

    per_unit = np.random.default_rng(7).random((units, 3))
    found, _ = _resample(
        per_unit, lambda sums: sums[:, 0] / sums[:, 1], Bootstrap(resamples, seed=11)
    )
    expected = []
    for draw in _recipe_draws(11, resamples, units):
        sums = np.bincount(draw, minlength=units).astype(np.float64) @ per_unit
        expected.append(sums[0] / sums[1])
    assert np.allclose(found, expected, rtol=1e-13, atol=0)


def test_a_draw_is_the_exact_product_at_the_edges_of_the_words_and_the_units() -> None:
    # floor(w * units / 2**64) is made from 32-bit halves of w, in 64-bit integers: words
    # and unit counts at the ends of their ranges must give what Python's exact product gives.
    from jury.agreement._reliability import _uniform

    words = [0, 1, 2**32 - 1, 2**32, 2**63 - 1, 2**63, 2**64 - 2**32, 2**64 - 1]

    class Words(random.Random):
        def randbytes(self, n: int) -> bytes:
            assert n == 8 * len(words)
            return b"".join(w.to_bytes(8, "little") for w in words)

    for units in (1, 2, 3, 1000, 2**31 + 1, 2**32 - 1):
        found = _uniform(Words(), len(words), units).tolist()
        assert found == [w * units >> 64 for w in words]
    with pytest.raises(ValueError, match=r"1 to 2\*\*32 - 1 units"):
        _uniform(random.Random(3), 1, 2**32)


@pytest.mark.parametrize("units", [3, 1000, 5001])
def test_the_resamples_do_not_depend_on_the_size_of_a_chunk(
    units: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The chunk bounds the bootstrap's memory (issue 36); a run's intervals must not change
    # with it, nor from one release to the next when it is tuned: the same resamples, the
    # same sums but for the rounding of a matrix product cut in other blocks.
    import jury.agreement._reliability as reliability

    per_unit = np.random.default_rng(3).random((units, 4))
    boot = reliability.Bootstrap(300, seed=5)

    def ratio(sums: np.ndarray) -> np.ndarray:
        return np.asarray(sums[:, 0] / sums[:, 1], dtype=np.float64)

    found = []
    for floats in (4_000_000, 65_536, 7 * units):
        monkeypatch.setattr(reliability, "_CHUNK_FLOATS", floats)
        found.append(reliability._resample(per_unit, ratio, boot)[0])
    assert np.allclose(found[0], found[1], rtol=1e-13, atol=0)
    assert np.allclose(found[0], found[2], rtol=1e-13, atol=0)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(st.integers(-5, 5).map(float), st.floats(-1e6, 1e6, allow_nan=False)),
        min_size=1,
        max_size=60,
    ),
    st.lists(st.floats(0, 1), min_size=1, max_size=4),
)
def test_the_intervals_quantiles_are_numpys_linear_ones_to_the_bit(
    values: list[float], levels: list[float]
) -> None:
    # Written out so that a run's page imports no numpy.ma (issue 36): the same arithmetic as
    # np.quantile's default method, so the same floats, ties and repeated values included.
    from jury.agreement._reliability import _distinct
    from jury.agreement._values import quantiles

    data = np.asarray(values)
    assert quantiles(sorted(values), levels) == np.quantile(data, levels).tolist()
    codes = np.asarray([int(v) % 7 for v in values], dtype=np.int64)
    assert _distinct(codes).tolist() == np.unique(codes).tolist()
