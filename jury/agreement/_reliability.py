"""Chance-corrected agreement coefficients on ratings with missing cells, and their bootstrap.

Every statistic is written as a function of sums over units of per-unit quantities. The point
estimate applies it to the sums over all units; a bootstrap resample of units is a vector of
counts, so all resamples come from one matrix product (counts x per-unit quantities) and one
vectorised evaluation: 1,000 resamples of 10,000 units cost about as much as a few dozen
plain evaluations (benchmarks/agreement.py).

References
----------
- Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability. Annenberg School for
  Communication, University of Pennsylvania. (Coincidence matrix, the four difference
  functions; ordinal differences from the marginal frequencies.)
- Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and
  Psychological Measurement 20, 37-46. Cohen, J. (1968). Weighted kappa. Psychological
  Bulletin 70, 213-220.
- Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological
  Bulletin 76, 378-382; with missing ratings as generalised in Gwet, K. L. (2014). Handbook of
  Inter-Rater Reliability, 4th ed. (the irrCAC package's ``fleiss.kappa.raw``).
- Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the presence of
  high agreement. British Journal of Mathematical and Statistical Psychology 61, 29-48.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal, TypeAlias

import numpy as np

from ._ratings import Ratings
from ._values import TINY, Estimate, quantiles, undefined

if TYPE_CHECKING:
    from numpy.typing import NDArray
    from scipy import sparse

    #: Per-unit quantities: one row per unit, dense or (for many distinct values) sparse.
    PerUnit: TypeAlias = NDArray[np.float64] | sparse.csr_matrix

__all__ = [
    "Bootstrap",
    "Convention",
    "Weights",
    "cohen_kappa",
    "default_weights",
    "fleiss_kappa",
    "gwet_ac1",
    "identical_share",
    "krippendorff_alpha",
    "percent_agreement",
    "unit_disagreement",
]

Weights = Literal["linear", "quadratic"] | None
#: Which categories weighted kappa measures distances on: the rubric's declared scale, or
#: only the levels observed in the two raters' data (scikit-learn's and most tools' choice).
Convention = Literal["declared", "observed"]

#: Per-unit matrices wider than this many cells are kept sparse.
_DENSE_CELLS = 20_000_000
#: Bound on the floats of one chunk of bootstrap work (counts or summed statistics): 0.5 MB,
#: so that a report's bootstrap adds almost nothing to a run's peak memory whatever its size
#: (at 4,000,000 a 1,000-case run's count matrix was 8 MB of it, 32 MB from 4,000 cases on;
#: issue 36). The resamples do not depend on it; the sums only in their rounding.
_CHUNK_FLOATS = 65_536
#: Resamples whose unit counts are made at once (a small block of the chunk's count matrix).
_COUNT_ROWS = 16


class Bootstrap:
    """How intervals are computed: `resamples` bootstrap draws of units.

    ``method="percentile"`` takes the quantiles of the resampled statistic; ``"bca"`` corrects
    them for bias and skew (Efron 1987: the bias from the share of resamples below the
    estimate, the acceleration from a jackknife over units), which covers better on small
    samples (`benchmarks/bootstrap_coverage.py` measures both). The seed is fixed by default
    so that a report is reproducible: the same run gives the same interval.
    """

    __slots__ = ("confidence", "method", "resamples", "seed")

    def __init__(
        self,
        resamples: int = 0,
        confidence: float = 0.95,
        seed: int | None = 0,
        method: Literal["percentile", "bca"] = "percentile",
    ):
        if resamples < 0:
            raise ValueError("resamples must be >= 0")
        if not 0 < confidence < 1:
            raise ValueError("confidence must be between 0 and 1")
        if method not in ("percentile", "bca"):
            raise ValueError(f"method must be 'percentile' or 'bca', got {method!r}")
        self.resamples = resamples
        self.confidence = confidence
        self.seed = seed
        self.method = method


NONE = Bootstrap(0)


def _as_bootstrap(bootstrap: Bootstrap | int | None, seed: int | None = 0) -> Bootstrap:
    if bootstrap is None:
        return NONE
    if isinstance(bootstrap, int):
        return Bootstrap(bootstrap, seed=seed)
    return bootstrap


# --- the bootstrap ----------------------------------------------------------------------------

Finish = Callable[["NDArray[np.float64]"], "NDArray[np.float64]"]


def _sums(per_unit: PerUnit, counts: NDArray[np.float64]) -> NDArray[np.float64]:
    if isinstance(per_unit, np.ndarray):
        return counts @ per_unit
    return np.asarray((per_unit.T @ counts.T).T)


def _uniform(rng: random.Random, count: int, units: int) -> NDArray[np.intp]:
    """`count` draws on 0 .. units-1 from the stdlib's Mersenne Twister, one 64-bit word each.

    A word w gives floor(w * units / 2**64) (Lemire's multiply-shift, 2019): each value's
    chance is off from 1/units by less than units / 2**64 of it, and draw i is word i of the
    stream however the draws are cut into blocks. NumPy's generators are not used:
    `numpy.random` costs a run's report 3 MB of resident memory (issue 36)."""
    if not 0 < units < 2**32:
        raise ValueError(f"the bootstrap resamples 1 to 2**32 - 1 units, got {units}")
    words = np.frombuffer(rng.randbytes(8 * count), dtype="<u8")
    half, n = np.uint64(32), np.uint64(units)
    # The high word of the 128-bit product w * units, from 32-bit halves (units < 2**32, so
    # no partial product overflows).
    high = (words >> half) * n + (((words & np.uint64(0xFFFFFFFF)) * n) >> half)
    return (high >> half).astype(np.intp)


def _resample(
    per_unit: PerUnit, finish: Finish, boot: Bootstrap
) -> tuple[NDArray[np.float64], int]:
    """The statistic on `boot.resamples` resamples of units (NaN where undefined)."""
    units, width = per_unit.shape
    rng = random.Random(boot.seed)
    chunk = max(1, min(boot.resamples, _CHUNK_FLOATS // max(units, width, 1)))
    out: list[NDArray[np.float64]] = []
    # A chunk's counts are made a few resamples at a time from one stream of draws, so no
    # draw of the whole chunk is held beside its counts (issue 36: it was a run's peak
    # memory), and the resamples do not depend on the chunk's size.
    for start in range(0, boot.resamples, chunk):
        size = min(chunk, boot.resamples - start)
        counts = np.empty((size, units), dtype=np.float64)
        for row in range(0, size, _COUNT_ROWS):
            rows = min(_COUNT_ROWS, size - row)
            flat = _uniform(rng, rows * units, units)
            flat += np.repeat(np.arange(rows, dtype=np.intp) * units, units)
            counts[row : row + rows] = np.bincount(flat, minlength=rows * units).reshape(
                rows, units
            )
        out.append(finish(_sums(per_unit, counts)))
        del counts
    values = np.concatenate(out)
    return values, int(np.isnan(values).sum())


def _estimate(
    statistic: str,
    per_unit: PerUnit,
    finish: Finish,
    units: int,
    boot: Bootstrap,
    why: Callable[[NDArray[np.float64]], str],
) -> Estimate:
    total = np.asarray(per_unit.sum(axis=0), dtype=np.float64).reshape(1, -1)
    value = float(finish(total)[0])
    if np.isnan(value):
        return undefined(statistic, why(total[0]), units)
    if boot.resamples == 0:
        return Estimate(statistic=statistic, value=value, units=units)
    values, bad = _resample(per_unit, finish, boot)
    good = values[~np.isnan(values)]
    tail = (1 - boot.confidence) / 2
    low = high = None
    if good.size:
        levels = [tail, 1 - tail]
        if boot.method == "bca":
            levels = _bca_levels(per_unit, finish, total, value, good, tail)
        low, high = quantiles(np.sort(good).tolist(), levels)
    return Estimate(
        statistic=statistic,
        value=value,
        units=units,
        low=low,
        high=high,
        confidence=boot.confidence,
        resamples=boot.resamples,
        undefined_resamples=bad,
    )


def _distinct(values: NDArray[np.int64]) -> NDArray[np.int64]:
    """`np.unique(values)`, sorted, without the `numpy.ma` it imports (see `quantiles`)."""
    ordered = np.sort(values)
    return (
        ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))] if ordered.size else ordered
    )


def _bca_levels(
    per_unit: PerUnit,
    finish: Finish,
    total: NDArray[np.float64],
    value: float,
    resampled: NDArray[np.float64],
    tail: float,
) -> list[float]:
    """The quantile levels of a BCa interval (Efron 1987; Efron & Tibshirani 1993, 14.3).

    Bias z0 from the share of resamples below the estimate (ties count half); acceleration
    from the jackknife: each unit left out is the total less its row, so every jackknife
    value comes from one vectorised evaluation. Undefined jackknife values are left out."""
    from scipy.stats import norm

    below = (np.sum(resampled < value) + 0.5 * np.sum(resampled == value)) / resampled.size
    z0 = float(norm.ppf(np.clip(below, 1e-9, 1 - 1e-9)))
    rows = per_unit.shape[0]
    jackknife = []
    for start in range(0, rows, 4096):
        block = per_unit[start : start + 4096]
        dense = block if isinstance(block, np.ndarray) else block.toarray()
        jackknife.append(finish(total - dense))
    leave_out = np.concatenate(jackknife)
    leave_out = leave_out[~np.isnan(leave_out)]
    spread = leave_out.mean() - leave_out
    denominator = 6 * float(np.sum(spread**2)) ** 1.5
    acceleration = float(np.sum(spread**3)) / denominator if denominator > 0 else 0.0
    levels = []
    for z in norm.ppf([tail, 1 - tail]):
        shifted = z0 + (z0 + z) / (1 - acceleration * (z0 + z))
        levels.append(float(norm.cdf(shifted)))
    return levels


# --- building blocks --------------------------------------------------------------------------


def _matrix(
    rows: NDArray[np.int64],
    cols: NDArray[np.int64],
    data: NDArray[np.float64],
    shape: tuple[int, int],
) -> PerUnit:
    """A units x cells matrix from (unit, cell, value) triples, dense when small enough."""
    if shape[0] * shape[1] <= _DENSE_CELLS:
        flat = np.bincount(rows * shape[1] + cols, weights=data, minlength=shape[0] * shape[1])
        return flat.reshape(shape)
    from scipy import sparse

    return sparse.csr_matrix((data, (rows, cols)), shape=shape)


def _value_counts(ratings: Ratings) -> tuple[PerUnit, NDArray[np.float64]]:
    """How many raters gave each value on each unit (units x values), and ratings per unit."""
    codes = ratings.codes
    present = codes >= 0
    unit_index, _ = np.nonzero(present)
    counts = _matrix(
        unit_index,
        codes[present],
        np.ones(unit_index.size),
        (codes.shape[0], len(ratings.values)),
    )
    return counts, present.sum(axis=1).astype(np.float64)


def default_weights(ratings: Ratings) -> Weights:
    """Kappa weights that fit the level: none (nominal), linear (ordinal), quadratic (interval,
    ratio; quadratic-weighted kappa approaches the intraclass correlation, Fleiss & Cohen 1973)."""
    if ratings.level == "nominal":
        return None
    return "linear" if ratings.level == "ordinal" else "quadratic"


# --- Krippendorff's alpha ---------------------------------------------------------------------


def krippendorff_alpha(
    ratings: Ratings, *, bootstrap: Bootstrap | int | None = None, seed: int | None = 0
) -> Estimate:
    """Krippendorff's alpha at the ratings' level of measurement (Krippendorff 2011).

    alpha = 1 - D_o / D_e over pairable values (units with two or more ratings). Undefined
    when no unit has two ratings, or when every pairable value is the same (D_e = 0: there
    is no variation to agree about, and alpha is 0/0, not 1).
    """
    boot = _as_bootstrap(bootstrap, seed)
    statistic = f"krippendorff_alpha[{ratings.level}]"
    present = ratings.codes >= 0
    pairable = present.sum(axis=1) >= 2
    units = int(pairable.sum())
    if units == 0:
        return undefined(statistic, "no case has two or more ratings", 0)
    sub = Ratings(
        [u for u, keep in zip(ratings.units, pairable, strict=True) if keep],
        ratings.raters,
        ratings.codes[pairable],
        ratings.values,
        ratings.level,
        name=ratings.name,
    )
    if ratings.level == "interval":
        per_unit, finish = _alpha_interval(sub)
    else:
        per_unit, finish = _alpha_coincidences(sub)
    return _estimate(
        statistic,
        per_unit,
        finish,
        units,
        boot,
        lambda _: "every rating has the same value: there is no variation to agree about",
    )


def _alpha_interval(ratings: Ratings) -> tuple[PerUnit, Finish]:
    """Interval alpha from four sums per unit, for any number of distinct values.

    With m values x on a unit, its observed disagreement is sum_{i!=j} (x_i - x_j)^2 / (m-1)
    = 2 m sum (x - mean)^2 / (m-1); the expected disagreement needs only n, sum x and
    sum x^2 over all pairable values: sum_{c,k} n_c n_k (c-k)^2 = 2 (n sum x^2 - (sum x)^2).
    """
    numbers = ratings.numeric()
    x = np.where(ratings.codes >= 0, numbers[np.clip(ratings.codes, 0, None)], np.nan)
    # Centring keeps the sums of squares free of cancellation when values are large.
    x = x - np.nanmean(x)
    m = np.sum(~np.isnan(x), axis=1).astype(np.float64)
    mean = np.nanmean(x, axis=1)
    within = np.nansum((x - mean[:, None]) ** 2, axis=1)
    per_unit = np.column_stack(
        [m, 2 * m * within / (m - 1), np.nansum(x, axis=1), np.nansum(x**2, axis=1)]
    )
    spread = float(np.ptp(numbers[_distinct(ratings.codes[ratings.codes >= 0])]))

    def finish(sums: NDArray[np.float64]) -> NDArray[np.float64]:
        n, observed, s1, s2 = sums.T
        expected = 2 * (n * s2 - s1**2)
        tiny = expected <= TINY * n**2 * max(spread, 1e-300) ** 2
        with np.errstate(divide="ignore", invalid="ignore"):
            alpha = 1 - (n - 1) * observed / expected
        return np.where(tiny | (spread == 0), np.nan, alpha)

    return per_unit, finish


def _alpha_coincidences(ratings: Ratings) -> tuple[PerUnit, Finish]:
    """Nominal, ordinal and ratio alpha from each unit's contribution to the coincidence
    matrix, o_ck += (n_uc n_uk - [c=k] n_uc) / (m_u - 1), kept only for the value pairs
    that occur."""
    codes = ratings.codes
    values = len(ratings.values)
    m = (codes >= 0).sum(axis=1)
    rows: list[NDArray[np.int64]] = []
    cells: list[NDArray[np.int64]] = []
    weights: list[NDArray[np.float64]] = []
    raters = codes.shape[1]
    for i in range(raters):
        for j in range(raters):
            if i == j:
                continue
            both = (codes[:, i] >= 0) & (codes[:, j] >= 0)
            unit = np.nonzero(both)[0]
            rows.append(unit)
            cells.append(codes[unit, i] * values + codes[unit, j])
            weights.append(1.0 / (m[unit] - 1))
    unit_of = np.concatenate(rows)
    cell_of = np.concatenate(cells)
    used, column = np.unique(cell_of, return_inverse=True)
    per_unit = _matrix(unit_of, column, np.concatenate(weights), (codes.shape[0], used.size))
    first, second = np.divmod(used, values)
    to_values = np.zeros((used.size, values))
    to_values[np.arange(used.size), first] = 1.0

    level = ratings.level
    if level == "nominal":
        fixed = (first != second).astype(np.float64)
    elif level == "ratio":
        v = ratings.numeric()
        total = v[first] + v[second]
        with np.errstate(divide="ignore", invalid="ignore"):
            fixed = np.where(total > 0, ((v[first] - v[second]) / total) ** 2, 0.0)
        pair_sum = v[:, None] + v[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio_delta = np.where(pair_sum > 0, ((v[:, None] - v[None, :]) / pair_sum) ** 2, 0.0)

    def finish(sums: NDArray[np.float64]) -> NDArray[np.float64]:
        n_c = sums @ to_values
        n = n_c.sum(axis=1)
        if level == "nominal":
            observed = sums @ fixed
            expected = n**2 - (n_c**2).sum(axis=1)
            scale = n**2
        elif level == "ratio":
            observed = sums @ fixed
            expected = np.einsum("bi,ij,bj->b", n_c, ratio_delta, n_c)
            scale = n**2
        else:
            # Ordinal: the difference of two values is the difference of their mid-ranks in
            # the pooled pairable values (Krippendorff's sum of frequencies between them).
            midrank = np.cumsum(n_c, axis=1) - n_c / 2
            observed = (sums * (midrank[:, first] - midrank[:, second]) ** 2).sum(axis=1)
            expected = 2 * (n * (n_c * midrank**2).sum(axis=1) - (n_c * midrank).sum(axis=1) ** 2)
            scale = n**4
        with np.errstate(divide="ignore", invalid="ignore"):
            alpha = 1 - (n - 1) * observed / expected
        return np.where(expected <= TINY * scale, np.nan, alpha)

    return per_unit, finish


# --- Cohen's kappa ----------------------------------------------------------------------------


def cohen_kappa(
    ratings: Ratings,
    *,
    weights: Weights = None,
    convention: Convention = "declared",
    bootstrap: Bootstrap | int | None = None,
    seed: int | None = 0,
) -> Estimate:
    """Cohen's kappa between the two raters of `ratings`, on the units both rated.

    Weighted kappa (Cohen 1968) with disagreement weights |i - j| (linear) or (i - j)^2
    (quadratic), where i and j are positions on the category list. With
    ``convention="declared"`` (the default) the list is the rubric's declared scale, so on a
    1-5 scale 2 and 4 are two steps apart even if no one used 3; ``"observed"`` uses only the
    levels present in the two raters' data (scikit-learn's ``cohen_kappa_score`` and most
    tools), which can make two distant values neighbours. Unweighted kappa is the same under
    both. Undefined when no unit has both ratings or when chance disagreement is zero (both
    raters used one and the same value throughout).
    """
    if len(ratings.raters) != 2:
        raise ValueError(f"Cohen's kappa compares two raters, got {len(ratings.raters)}")
    boot = _as_bootstrap(bootstrap, seed)
    name = "cohen_kappa" + (f"[{weights}]" if weights else "")
    codes = ratings.codes
    both = (codes[:, 0] >= 0) & (codes[:, 1] >= 0)
    units = int(both.sum())
    if units == 0:
        return undefined(name, "no case was rated by both", 0)
    first, second = codes[both, 0], codes[both, 1]
    if convention == "observed":
        levels = _distinct(np.concatenate([first, second]))
        position = np.full(len(ratings.values), -1, dtype=np.int64)
        position[levels] = np.arange(levels.size)
        first, second, size = position[first], position[second], int(levels.size)
    else:
        size = len(ratings.values)
    per_unit = _matrix(
        np.arange(units), first * size + second, np.ones(units), (units, size * size)
    )
    steps = np.abs(np.arange(size)[:, None] - np.arange(size)[None, :]).astype(np.float64)
    disagreement = {None: (steps > 0).astype(np.float64), "linear": steps, "quadratic": steps**2}[
        weights
    ].ravel()

    def finish(sums: NDArray[np.float64]) -> NDArray[np.float64]:
        table = sums.reshape(-1, size, size)
        n = table.sum(axis=(1, 2))
        rows, cols = table.sum(axis=2), table.sum(axis=1)
        expected_table = rows[:, :, None] * cols[:, None, :]
        observed = sums @ disagreement
        with np.errstate(divide="ignore", invalid="ignore"):
            expected = expected_table.reshape(len(n), -1) @ disagreement / n
            kappa = 1 - observed / expected
        return np.where(expected <= TINY * n, np.nan, kappa)

    return _estimate(
        name,
        per_unit,
        finish,
        units,
        boot,
        lambda _: (
            "both raters gave one and the same value on every case: chance agreement is total"
        ),
    )


# --- Fleiss' kappa, Gwet's AC1, percent agreement ---------------------------------------------


def _unit_shares(ratings: Ratings) -> tuple[PerUnit, int, int]:
    """Per unit with a rating: [agreeing pairs share (if m >= 2), m >= 2, p_u1..p_uV, 1].

    Units with one rating count towards category prevalence, not towards observed agreement
    (Gwet 2014; irrCAC's fleiss.kappa.raw and gwet.ac1.raw).
    """
    counts, m = _value_counts(ratings)
    rated = m >= 1
    m = m[rated]
    pairable = (m >= 2).astype(np.float64)
    tail = np.ones((len(m), 1))
    per_unit: PerUnit
    if isinstance(counts, np.ndarray):
        counts = counts[rated]
        head = _agreeing_share((counts * (counts - 1)).sum(axis=1), m, pairable)
        per_unit = np.hstack([head, counts / m[:, None], tail])
    else:
        from scipy import sparse

        counts = counts[np.nonzero(rated)[0]]
        same = np.asarray(counts.multiply(counts).sum(axis=1)).ravel() - m
        shares = counts.multiply(1 / m[:, None])
        per_unit = sparse.hstack([_agreeing_share(same, m, pairable), shares, tail]).tocsr()
    return per_unit, int(pairable.sum()), len(ratings.values)


def _agreeing_share(
    same: NDArray[np.float64], m: NDArray[np.float64], pairable: NDArray[np.float64]
) -> NDArray[np.float64]:
    """[share of agreeing rater pairs, 1] for units with two ratings or more, else [0, 0]."""
    with np.errstate(divide="ignore", invalid="ignore"):
        agree = np.where(m >= 2, same / (m * (m - 1)), 0.0)
    return np.column_stack([agree, pairable])


def _chance_corrected(
    ratings: Ratings,
    statistic: str,
    chance: Callable[[NDArray[np.float64]], NDArray[np.float64]],
    boot: Bootstrap,
    *,
    constant: str | None = None,
) -> Estimate:
    """`constant`, when given, makes the statistic undefined, with that reason, wherever every
    rating is one value (otherwise only where chance agreement is total)."""
    per_unit, units, values = _unit_shares(ratings)
    if units == 0:
        return undefined(statistic, "no case has two or more ratings", 0)

    def finish(sums: NDArray[np.float64]) -> NDArray[np.float64]:
        with np.errstate(divide="ignore", invalid="ignore"):
            observed = sums[:, 0] / sums[:, 1]
            prevalence = sums[:, 2 : 2 + values] / sums[:, -1:]
            expected = chance(prevalence)
            value = (observed - expected) / (1 - expected)
        undefined_ = (sums[:, 1] == 0) | (1 - expected <= TINY)
        if constant is not None:
            undefined_ |= prevalence.max(axis=1) >= 1 - TINY
        return np.where(undefined_, np.nan, value)

    return _estimate(
        statistic,
        per_unit,
        finish,
        units,
        boot,
        lambda _: constant or "every rating has the same value: chance agreement is total",
    )


def fleiss_kappa(
    ratings: Ratings, *, bootstrap: Bootstrap | int | None = None, seed: int | None = 0
) -> Estimate:
    """Fleiss' kappa (Fleiss 1971), generalised to missing ratings as Gwet (2014) does.

    Observed agreement: the mean, over units with two or more ratings, of the share of
    agreeing rater pairs. Chance: sum of squared category prevalences, each prevalence the
    mean over rated units of the unit's share of that category. With every unit fully rated
    this is Fleiss' original statistic.
    """
    return _chance_corrected(
        ratings, "fleiss_kappa", lambda p: (p**2).sum(axis=1), _as_bootstrap(bootstrap, seed)
    )


def gwet_ac1(
    ratings: Ratings, *, bootstrap: Bootstrap | int | None = None, seed: int | None = 0
) -> Estimate:
    """Gwet's AC1 (Gwet 2008): chance agreement sum p_k (1 - p_k) / (q - 1).

    q is the number of values on the declared scale (not only those observed), as Gwet
    defines it. When every rating is the same value, Gwet's formula gives 1 by design (his
    answer to the kappa paradoxes); aiojury reports it *undefined* there, as it does every
    coefficient: with no variation the data cannot tell raters who agree from raters who say
    one value whatever the case, and a gate must not pass on that (a resample with one value
    is an undefined resample).
    """
    q = len(ratings.values)
    if q < 2:
        return undefined("gwet_ac1", "the scale has fewer than two values", 0)
    return _chance_corrected(
        ratings,
        "gwet_ac1",
        lambda p: (p * (1 - p)).sum(axis=1) / (q - 1),
        _as_bootstrap(bootstrap, seed),
        constant=(
            "every rating has the same value: there is no variation to agree about "
            "(Gwet's formula would say 1 by construction)"
        ),
    )


def percent_agreement(
    ratings: Ratings, *, bootstrap: Bootstrap | int | None = None, seed: int | None = 0
) -> Estimate:
    """The mean, over units with two or more ratings, of the share of agreeing rater pairs.

    Not chance-corrected: two raters who say PASS to everything agree 100%. Shown beside the
    chance-corrected coefficients, never instead of them.
    """
    return _chance_corrected(
        ratings,
        "percent_agreement",
        lambda p: np.zeros(len(p)),
        _as_bootstrap(bootstrap, seed),
    )


# --- per-case disagreement --------------------------------------------------------------------


def unit_disagreement(ratings: Ratings) -> NDArray[np.float64]:
    """Each unit's mean pairwise difference at the ratings' level, over the expected
    difference between any two pairable values (1 = as much as chance; NaN below two
    ratings, or when there is no variation at all). Ordinal differences use mid-ranks."""
    codes = ratings.codes
    present = codes >= 0
    m = present.sum(axis=1)
    values = len(ratings.values)
    pooled = np.bincount(codes[present & (m >= 2)[:, None]], minlength=values).astype(np.float64)
    n = pooled.sum()
    if ratings.level == "nominal":
        delta = 1.0 - np.eye(values)
    else:
        if ratings.level == "ordinal":
            position = np.cumsum(pooled) - pooled / 2
        else:
            position = ratings.numeric()
        delta = (position[:, None] - position[None, :]) ** 2
        if ratings.level == "ratio":
            total = position[:, None] + position[None, :]
            with np.errstate(divide="ignore", invalid="ignore"):
                delta = np.where(total > 0, delta / total**2, 0.0)
    expected = pooled @ delta @ pooled / (n * (n - 1)) if n > 1 else 0.0
    totals = np.zeros(len(codes))
    raters = codes.shape[1]
    for i in range(raters):
        for j in range(i + 1, raters):
            both = present[:, i] & present[:, j]
            totals[both] += delta[codes[both, i], codes[both, j]]
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = totals / (m * (m - 1) / 2)
        out = mean / expected if expected > 0 else np.full(len(codes), np.nan)
    return np.where(m >= 2, out, np.nan)


def identical_share(
    ratings: Ratings, *, bootstrap: Bootstrap | int | None = None, seed: int | None = 0
) -> Estimate:
    """The share of units (with two or more ratings) on which every rating is the same."""
    codes = ratings.codes
    present = codes >= 0
    rated = present.sum(axis=1) >= 2
    units = int(rated.sum())
    if units == 0:
        return undefined("identical_share", "no case has two or more ratings", 0)
    sub = codes[rated]
    high = np.where(sub >= 0, sub, -1).max(axis=1)
    low = np.where(sub >= 0, sub, np.iinfo(np.int64).max).min(axis=1)
    per_unit = np.column_stack([(high == low).astype(np.float64), np.ones(units)])
    return _estimate(
        "identical_share",
        per_unit,
        lambda sums: sums[:, 0] / sums[:, 1],
        units,
        _as_bootstrap(bootstrap, seed),
        lambda _: "no case has two or more ratings",
    )
