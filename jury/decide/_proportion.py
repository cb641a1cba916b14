"""A pass rate's uncertainty: its confidence interval, and how many more cases would decide a
gate that the interval leaves undecided.

Two intervals, both as SciPy's ``binomtest(k, n).proportion_ci`` computes them (tests hold
them equal):

- ``"wilson"`` (the default): the Wilson score interval (Wilson 1927; Newcombe 1998's
  formulas). Its coverage is close to the level it claims even at small n and near 0 or 1,
  where the textbook Wald interval (p ± z·se) collapses (at 20 of 20 passed, Wald says
  [100%, 100%]). Computed here with the standard library (`statistics.NormalDist`), so that
  the gate costs no SciPy import.
- ``"exact"``: Clopper-Pearson (1934), from the beta quantiles (`beta_quantile`, also with
  the standard library). It never covers less than its level, and so is wider (coverage
  measured in ``benchmarks/interval_coverage.py``).

`successes` may be fractional (a case's share of passing repeats, `jury compare` with
repeats): both formulas are continuous in it.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = [
    "METHODS",
    "METHOD_NAMES",
    "Interval",
    "IntervalMethod",
    "cases_to_decide",
    "level_text",
    "proportion_interval",
    "z_value",
]

IntervalMethod = Literal["wilson", "exact"]
METHODS: tuple[IntervalMethod, ...] = ("wilson", "exact")
#: The names the reports print.
METHOD_NAMES = {"wilson": "Wilson", "exact": "Clopper-Pearson"}
#: No gate is told to wait for more than this many cases: beyond it, "no number of cases".
MOST_CASES = 10_000_000


class Interval(BaseModel):
    """A proportion (a pass rate) with its two-sided confidence interval.

    `estimate`, `low` and `high` are None for no case at all (n = 0).
    """

    model_config = ConfigDict(frozen=True)

    successes: int | float
    n: int
    estimate: float | None
    low: float | None
    high: float | None
    method: IntervalMethod = "wilson"
    level: float = 0.95

    @property
    def half_width(self) -> float | None:
        """Half the interval's width: the ``±`` of "90% ± 5 points"."""
        if self.low is None or self.high is None:
            return None
        return (self.high - self.low) / 2

    def contains(self, value: float) -> bool:
        return self.low is not None and self.high is not None and self.low <= value <= self.high

    def text(self) -> str:
        """``"95% Wilson 71.0-92.9%"``."""
        if self.low is None or self.high is None:
            return f"{level_text(self.level)} {METHOD_NAMES[self.method]} -"
        return (
            f"{level_text(self.level)} {METHOD_NAMES[self.method]} "
            f"{100 * self.low:.1f}–{100 * self.high:.1f}%"
        )


def level_text(level: float) -> str:
    """``"95%"``, ``"99.5%"``."""
    text = f"{100 * level:.1f}".rstrip("0").rstrip(".")
    return f"{text}%"


def z_value(level: float) -> float:
    """The two-sided normal quantile of a confidence level (1.96 at 0.95)."""
    return NormalDist().inv_cdf(0.5 + level / 2)


def proportion_interval(
    successes: float, n: int, *, method: IntervalMethod = "wilson", level: float = 0.95
) -> Interval:
    """The pass rate `successes` / `n` with its two-sided interval at `level`.

    Raises `ValueError` for a level outside (0, 1), a negative n, successes outside [0, n]
    or an unknown method.
    """
    if not 0 < level < 1:
        raise ValueError(f"level {level!r}: give a confidence level between 0 and 1 (0.95)")
    if method not in METHODS:
        raise ValueError(f"interval {method!r}: one of {', '.join(METHODS)}")
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"{successes} successes of {n}: need 0 <= successes <= n")
    if n == 0:
        return Interval(
            successes=0, n=0, estimate=None, low=None, high=None, method=method, level=level
        )
    low, high = (_wilson if method == "wilson" else _exact)(successes, n, level)
    return Interval(
        successes=successes,
        n=n,
        estimate=successes / n,
        low=low,
        high=high,
        method=method,
        level=level,
    )


def _wilson(k: float, n: int, level: float) -> tuple[float, float]:
    # Newcombe (1998), as scipy.stats._binomtest._binom_wilson_conf_int writes it.
    z = z_value(level)
    p = k / n
    denominator = 2 * (n + z * z)
    centre = (2 * n * p + z * z) / denominator
    delta = z / denominator * math.sqrt(4 * n * p * (1 - p) + z * z)
    low = 0.0 if k == 0 else centre - delta
    high = 1.0 if k == n else centre + delta
    return max(low, 0.0), min(high, 1.0)


def _exact(k: float, n: int, level: float) -> tuple[float, float]:
    # Clopper-Pearson from the beta quantiles (the roots SciPy's proportion_ci finds).
    alpha = (1 - level) / 2
    low = 0.0 if k == 0 else beta_quantile(alpha, k, n - k + 1)
    high = 1.0 if k == n else beta_quantile(1 - alpha, k + 1, n - k)
    return low, high


def beta_quantile(p: float, a: float, b: float) -> float:
    """The x at which the beta(a, b) distribution's CDF is `p` (0 < p < 1, a, b > 0).

    Written with the standard library, as Wilson's interval is, so that the exact interval
    costs no SciPy import (74 MB of a run's memory, issue 36); tests hold it to SciPy's
    ``beta.ppf``. Newton's steps on the CDF (`_beta_cdf`), kept inside a bracket that is cut
    (at its geometric middle, so that tiny quantiles are reached in few cuts) whenever a step
    would leave it; it ends when x is known to 13 digits, or after 200 steps (not reached in
    the tests, down to quantiles of 1e-166)."""
    if p > 0.5:  # from the other tail: near 1, p's own rounding would blur x
        return 1 - beta_quantile(1 - p, b, a)
    log_norm = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    # Start at the normal approximation's x, or, below it, at the small-x one (I_x(a, b) is
    # about x^a / (a B(a, b)) there): the lower bound of a case's tiny share of passes.
    mean = a / (a + b)
    spread = math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
    normal = min(max(mean + spread * NormalDist().inv_cdf(p), 1e-12), 1 - 1e-12)
    log_small = (math.log(p) + math.log(a) - log_norm) / a
    if log_small < -744:  # below the smallest float
        return 0.0
    x = min(normal, math.exp(log_small))
    low, high = 0.0, 1.0
    for _ in range(200):
        gap = _beta_cdf(x, a, b) - p
        if gap > 0:
            high = x
        else:
            low = x
        log_density = log_norm + (a - 1) * math.log(x) + (b - 1) * math.log1p(-x)
        step = x - gap * math.exp(-min(max(log_density, -700.0), 700.0))
        # (in logs: the product of two tiny bounds underflows to 0)
        middle = (
            math.exp((math.log(low) + math.log(high)) / 2) if low > 0 else max(high / 1e4, 5e-324)
        )
        following = step if low < step < high else middle
        if abs(following - x) <= 1e-13 * x or high - low <= 1e-13 * high:
            return following
        x = following
    return x


def _beta_cdf(x: float, a: float, b: float) -> float:
    """The regularized incomplete beta function I_x(a, b): its continued fraction (Lentz's
    method, as Numerical Recipes 6.4 gives it), on the side of x where it converges fast."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(x, a, b) / a
    return 1 - front * _beta_fraction(1 - x, b, a) / b


def _beta_fraction(x: float, a: float, b: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    fraction = d
    for m in range(1, 1_000_000):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            fraction *= c * d
        if abs(c * d - 1) < 1e-16:
            break
    return fraction


def cases_to_decide(
    successes: float,
    n: int,
    bar: float,
    *,
    method: IntervalMethod = "wilson",
    level: float = 0.95,
) -> int | None:
    """How many further cases, passing at the rate seen so far, would put the interval wholly
    on one side of `bar` (above it when the rate seen is above, below when below).

    0 when it already is; None when no number of cases would (the rate seen is the bar, or
    more than `MOST_CASES` would be needed).
    """
    if n <= 0:
        return None
    rate = successes / n

    def decided(total: int) -> bool:
        found = proportion_interval(rate * total, total, method=method, level=level)
        assert found.low is not None
        assert found.high is not None
        return found.low >= bar if rate > bar else found.high < bar

    if rate == bar:
        return None
    if decided(n):
        return 0
    # The interval narrows as the cases grow at a fixed rate: double, then halve the gap.
    low, high = n, 2 * n
    while not decided(high):
        low, high = high, 2 * high
        if high > MOST_CASES:
            return None
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if decided(middle) else (middle, high)
    return high - n
