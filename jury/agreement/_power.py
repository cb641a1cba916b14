"""How many cases a decision needs: the sample sizes behind `jury plan`.

- **An interval no wider than ±w** at a pass rate p: n = z² p(1 - p) / w², rounded up (the
  normal approximation, statsmodels' ``samplesize_confint_proportion``). The planned interval
  is then shown as the reports would compute it at that n, Wilson or Clopper-Pearson.
- **A drop of d points between two versions**, two-sided, at level alpha = 1 - confidence:
  - *paired* (the same cases put to both versions, as `jury compare` tests them): the power of
    the exact McNemar test that `jury compare` runs (a two-sided binomial test on the
    discordant cases), computed exactly by summing over the number of discordant cases;
    the smallest n whose power reaches the target. It needs the discordance psi (the share
    of cases whose verdict differs between the versions): seen between two runs when given,
    else that of two versions whose verdicts are independent, p(1-p2) + p2(1-p), which is
    the most a positive correlation between them allows (more discordance: more cases).
  - *separate sets* (two independent sets of cases): the normal test on Cohen's h, the
    arcsine difference (statsmodels' ``NormalIndPower`` on ``proportion_effectsize``), cases
    per version.
- **What n cases can detect**: the smallest drop reached with the target power, by both.

Tests hold the figures equal to statsmodels' and the McNemar power to a seeded simulation of
SciPy's binomial test. SciPy and NumPy are imported only when a paired figure is asked for.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import TYPE_CHECKING

from ..decide._proportion import IntervalMethod, proportion_interval, z_value

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "cases_for_drop",
    "cases_for_interval",
    "cases_for_paired_drop",
    "cases_for_width",
    "cohen_h",
    "detectable_drop",
    "independent_discordance",
    "mcnemar_power",
    "paired_discordance",
]

_NORMAL = NormalDist()
#: How far below the first crossing found a smaller n reaching the power is looked for.
SAWTOOTH = 64


def cases_for_width(pass_rate: float, half_width: float, *, level: float = 0.95) -> int:
    """Cases for an interval of ±`half_width` around `pass_rate` (normal approximation)."""
    _check_rate(pass_rate)
    if not 0 < half_width < 1:
        raise ValueError(f"width {half_width!r}: give a half-width between 0 and 1 (0.05)")
    z = z_value(level)
    return max(1, math.ceil(z * z * pass_rate * (1 - pass_rate) / half_width**2 - 1e-9))


def cases_for_interval(
    pass_rate: float,
    half_width: float,
    *,
    method: IntervalMethod = "wilson",
    level: float = 0.95,
) -> int:
    """The fewest cases whose interval, as the reports compute it (Wilson or Clopper-Pearson,
    at the rate given), is no wider than ±`half_width`. Near 0 or 1 the normal approximation
    (`cases_for_width`) asks too few: at 98% and ±5 points it says 31, Wilson's needs 52."""
    _check_rate(pass_rate)
    if not 0 < half_width < 1:
        raise ValueError(f"width {half_width!r}: give a half-width between 0 and 1 (0.05)")

    def narrow(n: int) -> bool:
        found = proportion_interval(pass_rate * n, n, method=method, level=level).half_width
        return found is not None and found <= half_width

    high = 1
    while not narrow(high):
        high *= 2
    low = high // 2  # not narrow (or 0)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if narrow(middle) else (middle, high)
    return high


def cohen_h(first: float, second: float) -> float:
    """Cohen's h: the arcsine difference of two proportions."""
    return 2 * math.asin(math.sqrt(first)) - 2 * math.asin(math.sqrt(second))


def _normal_power(h: float, n: float, alpha: float) -> float:
    """Power of the two-sided two-sample normal test on h with n per group."""
    z = _NORMAL.inv_cdf(1 - alpha / 2)
    shift = abs(h) * math.sqrt(n / 2)
    return _NORMAL.cdf(shift - z) + _NORMAL.cdf(-shift - z)


def cases_for_drop(
    pass_rate: float, drop: float, *, level: float = 0.95, power: float = 0.8
) -> float:
    """Cases per version to detect `pass_rate` falling by `drop` with two independent sets
    (unrounded, as statsmodels' ``NormalIndPower.solve_power`` gives it)."""
    _check_drop(pass_rate, drop)
    h = cohen_h(pass_rate, pass_rate - drop)
    alpha = 1 - level
    low, high = 1e-9, 1.0
    while _normal_power(h, high, alpha) < power:
        high *= 2
    for _ in range(200):  # bisection to the float's precision
        middle = (low + high) / 2
        if _normal_power(h, middle, alpha) < power:
            low = middle
        else:
            high = middle
    return high


def independent_discordance(pass_rate: float, drop: float) -> float:
    """The share of cases whose verdicts differ between two versions passing at `pass_rate`
    and `pass_rate - drop` when their verdicts are independent."""
    after = pass_rate - drop
    return pass_rate * (1 - after) + after * (1 - pass_rate)


def _rejection(most: int, alpha: float) -> np.ndarray:
    """For m = 0..most discordant cases: the largest count c (-1 for none) whose two-sided
    binomial p-value at 1/2, 2·P(X <= c), is below alpha, as `jury compare` calls a change
    significant (SciPy's binomtest on a symmetric null gives min(1, 2·P(X <= min(k, m - k))))."""
    import numpy as np
    from scipy.stats import binom

    m = np.arange(most + 1)
    c = binom.ppf(alpha / 2, m, 0.5)
    # ppf gives the smallest c with P(X <= c) >= alpha/2; step back when it overshoots.
    over = 2 * binom.cdf(c, m, 0.5) >= alpha
    found: np.ndarray = np.where(over, c - 1, c).astype(int)
    return found


def mcnemar_power(n: int, discordance: float, drop: float, *, level: float = 0.95) -> float:
    """The power of the exact two-sided McNemar test (as `jury compare` runs it) with n paired
    cases, a share `discordance` of them discordant, and a drop of `drop` in the pass rate."""
    return float(_paired_powers([n], discordance, drop, 1 - level)[0])


def _paired_powers(ns: list[int], psi: float, drop: float, alpha: float) -> list[float]:
    import numpy as np
    from scipy.stats import binom

    if not 0 < drop <= psi <= 1:
        raise ValueError(f"discordance {psi:g} below the drop {drop:g}: a drop needs discordance")
    most = max(ns)
    c = _rejection(most, alpha)
    m = np.arange(most + 1)
    # Of the discordant cases, the share that went PASS -> FAIL.
    q = (psi + drop) / (2 * psi)
    reject = np.where(c >= 0, binom.cdf(c, m, q) + binom.sf(m - c - 1, m, q), 0.0)
    return [float(np.dot(binom.pmf(m[: n + 1], n, psi), reject[: n + 1])) for n in ns]


def _connor(psi: float, drop: float, alpha: float, power: float) -> float:
    """Connor (1987): the normal approximation of the McNemar sample size."""
    za, zb = _NORMAL.inv_cdf(1 - alpha / 2), _NORMAL.inv_cdf(power)
    return (za * math.sqrt(psi) + zb * math.sqrt(psi - drop * drop)) ** 2 / (drop * drop)


def cases_for_paired_drop(
    pass_rate: float,
    drop: float,
    *,
    level: float = 0.95,
    power: float = 0.8,
    discordance: float | None = None,
) -> int:
    """Paired cases to detect the drop with the exact McNemar test: the smallest n whose
    power reaches `power`, found from Connor's approximation by bisection, then looked for
    among the `SAWTOOTH` n below (an exact test's power is not monotone in n)."""
    _check_drop(pass_rate, drop)
    psi = paired_discordance(pass_rate, drop, discordance)
    alpha = 1 - level

    def reaches(n: int) -> bool:
        return _paired_powers([n], psi, drop, alpha)[0] >= power

    high = max(2, math.ceil(_connor(psi, drop, alpha, power)))
    while not reaches(high):
        high = math.ceil(high * 1.1)
    low = max(1, high // 2)
    while low > 1 and reaches(low):
        low = max(1, low // 2)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if reaches(middle) else (middle, high)
    below = list(range(max(1, high - SAWTOOTH), high))
    if below:
        found = _paired_powers(below, psi, drop, alpha)
        return next((n for n, p in zip(below, found, strict=True) if p >= power), high)
    return high


def paired_discordance(pass_rate: float, drop: float, discordance: float | None) -> float:
    """The discordance a paired plan assumes: the one seen (at least the drop itself, which
    every drop needs), else that of independent verdicts."""
    if discordance is None:
        return independent_discordance(pass_rate, drop)
    if not 0 <= discordance <= 1:
        raise ValueError(f"discordance {discordance!r}: a share between 0 and 1")
    return max(discordance, drop)


def detectable_drop(
    n: int,
    pass_rate: float,
    *,
    level: float = 0.95,
    power: float = 0.8,
    discordance: float | None = None,
    paired: bool = True,
) -> float | None:
    """The smallest drop (to 0.1 point) that n cases detect with `power`: paired with the
    exact McNemar test, or with two independent sets of n; None when not even a drop to 0."""
    _check_rate(pass_rate)
    if n < 1:
        return None

    def enough(drop: float) -> bool:
        if paired:
            psi = paired_discordance(pass_rate, drop, discordance)
            return _paired_powers([n], psi, drop, 1 - level)[0] >= power
        return cases_for_drop(pass_rate, drop, level=level, power=power) <= n

    steps = round(pass_rate * 1000)
    if steps < 1 or not enough(steps / 1000):
        return None
    low, high = 0, steps  # in tenths of a point: enough(high), not enough(low)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if enough(middle / 1000) else (middle, high)
    return high / 1000


def _check_rate(pass_rate: float) -> None:
    if not 0 <= pass_rate <= 1:
        raise ValueError(f"pass rate {pass_rate!r}: a share between 0 and 1 (0.9)")


def _check_drop(pass_rate: float, drop: float) -> None:
    _check_rate(pass_rate)
    if not 0 < drop <= pass_rate:
        raise ValueError(
            f"drop {drop!r}: give a drop between 0 and the pass rate {pass_rate:g} (0.05)"
        )
