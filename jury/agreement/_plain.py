"""The agreement figures a run's page shows, in plain Python (issue 36).

For each metric and the jurors' own verdicts: Krippendorff's alpha at the metric's level with
its percentile bootstrap interval, and Fleiss' kappa, Gwet's AC1 and percent agreement; for
each pair of jurors, Cohen's kappa on their verdicts. The formulas are `_reliability`'s and
the resamples the same draws from the same seed, so the page and `jury agreement` print the
same numbers (tests/agreement/test_plain.py holds every figure to `summarize_agreement`).
Written without NumPy because NumPy's import alone raised a 1,000-case run's peak memory by
8 MB, above the bare SDK's (benchmarks/README.md); only a ratio metric of many values has its
alpha from NumPy (`_vectorised`).

A case's contribution to alpha depends only on the multiset of its ratings, so the cases are
grouped by that pattern: a resample is a count of each pattern, and a statistic's sums take
one pass over the few patterns rather than one over the cases.
"""

from __future__ import annotations

import math
import random
import sys
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from .._verdict import Score
from ..adapters._rubric import Level
from ._values import TINY, Estimate, quantiles, undefined

__all__ = ["Coded", "Figures", "PageAgreement", "cohen_points", "figures"]

#: The resampled alpha from one resample's sums (NaN where undefined).
Finish = Callable[[Sequence[float]], float]
#: A pattern's quantities: (index into the sums, value) for each non-zero sum.
Quantities = list[tuple[int, float]]

_NAN = float("nan")
_ONE_VALUE = "every rating has the same value: there is no variation to agree about"
_NO_PAIRS = "no case has two or more ratings"


@dataclass(frozen=True, slots=True)
class Coded:
    """One metric's ratings as codes into `values` (-1 where missing): a row per case (in
    case-ID order), a column per juror."""

    name: str
    level: Level
    values: tuple[Score, ...]
    codes: list[list[int]]


@dataclass(frozen=True, slots=True)
class Figures:
    """One metric's figures, under `MetricAgreement`'s names."""

    metric: str
    level: Level
    alpha: Estimate
    fleiss_kappa: Estimate
    gwet_ac1: Estimate
    percent_agreement: Estimate


@dataclass(frozen=True, slots=True)
class PageAgreement:
    """What a run's page shows of its jurors' agreement."""

    jurors: tuple[str, ...]
    verdict: Figures
    metrics: dict[str, Figures]
    #: Cohen's kappa of each pair of jurors on their verdicts (point estimates):
    #: ``pairwise[a][b]`` for a != b.
    pairwise: dict[str, dict[str, Estimate]]


def figures(
    columns: Iterable[Coded], *, resamples: int, confidence: float, seed: int | None
) -> list[Figures]:
    """Each column's figures; alpha's interval from `resamples` percentile bootstrap draws
    of cases (no interval with 0). Each column is read once and not kept (a run's page hands
    them over one at a time: their codes are a large run's memory); the alphas that
    resample the same number of cases then share each resample's draws."""
    tail = (1 - confidence) / 2
    made: list[tuple[str, Level, _Alpha | Estimate, tuple[Estimate, Estimate, Estimate]]] = []
    for column in columns:
        alpha = (
            _numpy_alpha(column, resamples, confidence, seed)
            if _vectorised(column)
            else _Alpha(column)
        )
        made.append((column.name, column.level, alpha, _chance_corrected(column)))
    by_units: dict[int, list[_Alpha]] = {}
    for _, _, alpha, _ in made:
        if isinstance(alpha, _Alpha) and resamples and alpha.value is not None:
            by_units.setdefault(len(alpha.pattern_of), []).append(alpha)
    for units, group in by_units.items():
        _resample(units, group, resamples, seed)
    return [
        Figures(
            name,
            level,
            alpha.estimate(resamples, confidence, tail) if isinstance(alpha, _Alpha) else alpha,
            *chance,
        )
        for name, level, alpha, chance in made
    ]


def cohen_points(column: Coded, jurors: Sequence[str]) -> dict[str, dict[str, Estimate]]:
    """Unweighted Cohen's kappa of each pair of jurors (the columns of a nominal `column`),
    on the cases both rated: `cohen_kappa` on the declared scale, without an interval."""
    cells: dict[str, dict[str, Estimate]] = {juror: {} for juror in jurors}
    for i, a in enumerate(jurors):
        for j in range(i + 1, len(jurors)):
            both = Counter((row[i], row[j]) for row in column.codes if row[i] >= 0 and row[j] >= 0)
            cells[a][jurors[j]] = cells[jurors[j]][a] = _cohen(both, len(column.values))
    return cells


# --- Krippendorff's alpha ---------------------------------------------------------------------


class _Alpha:
    """Alpha of one column: its point estimate and, once resampled, its resampled values."""

    def __init__(self, column: Coded) -> None:
        self.statistic = f"krippendorff_alpha[{column.level}]"
        rows = [tuple(sorted(code for code in row if code >= 0)) for row in column.codes]
        groups: dict[tuple[int, ...], int] = {}
        self.pattern_of = [groups.setdefault(row, len(groups)) for row in rows if len(row) >= 2]
        self.resampled: list[float] = []
        self.value: float | None = None
        if not self.pattern_of:
            return
        build = _interval if column.level == "interval" else _coincidences
        counts = Counter(self.pattern_of)
        self.quantities, self.finish = build(list(groups), counts, column)
        self.width = 1 + max(at for row in self.quantities for at, _ in row)
        value = self.finish(self.sums(counts))
        self.value = None if math.isnan(value) else value

    def sums(self, counts: Counter[int]) -> list[float]:
        """The statistic's sums over cases, `counts[p]` cases of pattern p."""
        out = [0.0] * self.width
        for pattern, count in counts.items():
            for at, quantity in self.quantities[pattern]:
                out[at] += count * quantity
        return out

    def estimate(self, resamples: int, confidence: float, tail: float) -> Estimate:
        units = len(self.pattern_of)
        if not units:
            return undefined(self.statistic, _NO_PAIRS, 0)
        if self.value is None:
            return undefined(self.statistic, _ONE_VALUE, units)
        if not resamples:
            return Estimate(statistic=self.statistic, value=self.value, units=units)
        good = sorted(value for value in self.resampled if not math.isnan(value))
        low = high = None
        if good:
            low, high = quantiles(good, [tail, 1 - tail])
        return Estimate(
            statistic=self.statistic,
            value=self.value,
            units=units,
            low=low,
            high=high,
            confidence=confidence,
            resamples=resamples,
            undefined_resamples=resamples - len(good),
        )


#: Values above which a ratio metric's alpha is left to NumPy: its expected disagreement sums
#: over every pair of values on every resample, a loop plain Python makes slow (2,500 values:
#: 13 minutes for 1,000 resamples, NumPy's path one).
_RATIO_VALUES = 40


def _vectorised(column: Coded) -> bool:
    return column.level == "ratio" and len(column.values) > _RATIO_VALUES


def _numpy_alpha(column: Coded, resamples: int, confidence: float, seed: int | None) -> Estimate:
    """`krippendorff_alpha` itself, on NumPy, for the metrics `_vectorised` names."""
    import numpy as np

    from ._ratings import Ratings
    from ._reliability import Bootstrap, krippendorff_alpha

    width = len(column.codes[0]) if column.codes else 0
    codes = np.array(column.codes, dtype=np.int64).reshape(len(column.codes), width)
    ratings = Ratings(
        [str(row) for row in range(len(codes))],
        [str(rater) for rater in range(width)],
        codes,
        column.values,
        column.level,
        name=column.name,
    )
    return krippendorff_alpha(ratings, bootstrap=Bootstrap(resamples, confidence, seed))


def _resample(units: int, alphas: Sequence[_Alpha], resamples: int, seed: int | None) -> None:
    """Each alpha on `resamples` resamples of its `units` cases, drawn as `_reliability`'s
    `_uniform` draws them: word w of the stdlib's Mersenne Twister gives case
    floor(w * units / 2**64), resample r takes words r * units to (r + 1) * units - 1."""
    rng = random.Random(seed)
    high_word = (64).__rrshift__  # x -> x >> 64
    for _ in range(resamples):
        words = array("Q", rng.randbytes(8 * units))
        if sys.byteorder == "big":  # the draws are little-endian words, as NumPy reads them
            words.byteswap()
        drawn = list(map(high_word, map(units.__mul__, words)))
        for alpha in alphas:
            value = alpha.finish(alpha.sums(Counter(map(alpha.pattern_of.__getitem__, drawn))))
            alpha.resampled.append(value)


def _interval(
    patterns: Sequence[tuple[int, ...]], counts: Counter[int], column: Coded
) -> tuple[list[Quantities], Finish]:
    """`_alpha_interval`'s four sums (m, observed, sum x, sum x^2), each pattern's values
    centred on the mean of every pairable value."""
    number = [float(value) for value in column.values]
    total = sum(counts[p] * sum(number[c] for c in pattern) for p, pattern in enumerate(patterns))
    centre = total / sum(counts[p] * len(pattern) for p, pattern in enumerate(patterns))
    quantities = []
    for pattern in patterns:
        x = [number[code] - centre for code in pattern]
        m = len(x)
        mean = sum(x) / m
        within = sum((v - mean) ** 2 for v in x)
        quantities.append(
            [(0, float(m)), (1, 2 * m * within / (m - 1)), (2, sum(x)), (3, sum(v * v for v in x))]
        )
    used = [number[code] for code in {code for pattern in patterns for code in pattern}]
    spread = max(used) - min(used)

    def finish(sums: Sequence[float]) -> float:
        n, observed, s1, s2 = sums
        expected = 2 * (n * s2 - s1**2)
        if spread == 0 or expected <= TINY * n**2 * max(spread, 1e-300) ** 2:
            return _NAN
        return 1 - (n - 1) * observed / expected

    return quantities, finish


def _coincidences(
    patterns: Sequence[tuple[int, ...]], counts: Counter[int], column: Coded
) -> tuple[list[Quantities], Finish]:
    """`_alpha_coincidences`: each pattern's contribution to the coincidence matrix,
    o_ck += 1 / (m - 1) for each ordered pair of its ratings (c, k), over the cells used."""
    cell_at: dict[tuple[int, int], int] = {}
    quantities = []
    for pattern in patterns:
        weight = 1.0 / (len(pattern) - 1)
        row: dict[int, float] = {}
        for i, c in enumerate(pattern):
            for j, k in enumerate(pattern):
                if i != j:
                    at = cell_at.setdefault((c, k), len(cell_at))
                    row[at] = row.get(at, 0.0) + weight
        quantities.append(sorted(row.items()))
    cells = list(cell_at)
    values = len(column.values)
    level = column.level
    number = [float(v) for v in column.values] if level == "ratio" else []

    def ratio(a: float, b: float) -> float:
        return ((a - b) / (a + b)) ** 2 if a + b > 0 else 0.0

    def finish(sums: Sequence[float]) -> float:
        n_c = [0.0] * values
        for (c, _), o in zip(cells, sums, strict=True):
            n_c[c] += o
        n = sum(n_c)
        if level == "nominal":
            observed = sum(o for (c, k), o in zip(cells, sums, strict=True) if c != k)
            expected = n**2 - sum(v * v for v in n_c)
            scale = n**2
        elif level == "ratio":
            observed = sum(
                o * ratio(number[c], number[k]) for (c, k), o in zip(cells, sums, strict=True)
            )
            expected = sum(
                n_c[i] * n_c[j] * ratio(number[i], number[j])
                for i in range(values)
                for j in range(values)
            )
            scale = n**2
        else:
            # Ordinal: differences of mid-ranks in the pooled pairable values.
            midrank, below = [], 0.0
            for count in n_c:
                below += count
                midrank.append(below - count / 2)
            observed = sum(
                o * (midrank[c] - midrank[k]) ** 2 for (c, k), o in zip(cells, sums, strict=True)
            )
            first = sum(count * rank for count, rank in zip(n_c, midrank, strict=True))
            second = sum(count * rank**2 for count, rank in zip(n_c, midrank, strict=True))
            expected = 2 * (n * second - first**2)
            scale = n**4
        if expected <= TINY * scale:
            return _NAN
        return 1 - (n - 1) * observed / expected

    return quantities, finish


# --- Fleiss' kappa, Gwet's AC1, percent agreement; Cohen's kappa ------------------------------


def _chance_corrected(column: Coded) -> tuple[Estimate, Estimate, Estimate]:
    """`fleiss_kappa`, `gwet_ac1` and `percent_agreement` (Gwet 2014 with missing ratings:
    agreement over cases with two ratings or more, prevalence over every rated case)."""
    q = len(column.values)
    agree = pairs = rated = 0.0
    prevalence = [0.0] * q
    for row in column.codes:
        counts = Counter(code for code in row if code >= 0)
        m = sum(counts.values())
        if not m:
            continue
        rated += 1
        for code, count in counts.items():
            prevalence[code] += count / m
        if m >= 2:
            pairs += 1
            agree += sum(count * (count - 1) for count in counts.values()) / (m * (m - 1))
    units = int(pairs)
    total = "every rating has the same value: chance agreement is total"
    few = undefined("gwet_ac1", "the scale has fewer than two values", 0) if q < 2 else None
    if not units:
        lost = [undefined(name, _NO_PAIRS, 0) for name in ("fleiss_kappa", "percent_agreement")]
        return lost[0], few or undefined("gwet_ac1", _NO_PAIRS, 0), lost[1]
    observed = agree / pairs
    p = [share / rated for share in prevalence]

    def corrected(statistic: str, expected: float, reason: str, constant: bool) -> Estimate:
        if 1 - expected <= TINY or (constant and max(p) >= 1 - TINY):
            return undefined(statistic, reason, units)
        value = (observed - expected) / (1 - expected)
        return Estimate(statistic=statistic, value=value, units=units)

    constant = (
        "every rating has the same value: there is no variation to agree about "
        "(Gwet's formula would say 1 by construction)"
    )
    fleiss = corrected("fleiss_kappa", sum(v * v for v in p), total, False)
    ac1 = few or corrected("gwet_ac1", sum(v * (1 - v) for v in p) / (q - 1), constant, True)
    return fleiss, ac1, corrected("percent_agreement", 0.0, total, False)


def _cohen(table: Counter[tuple[int, int]], size: int) -> Estimate:
    n = sum(table.values())
    if not n:
        return undefined("cohen_kappa", "no case was rated by both", 0)
    rows, cols = [0] * size, [0] * size
    for (a, b), count in table.items():
        rows[a] += count
        cols[b] += count
    observed = sum(count for (a, b), count in table.items() if a != b)
    expected = sum(rows[a] * cols[b] for a in range(size) for b in range(size) if a != b) / n
    if expected <= TINY * n:
        return undefined(
            "cohen_kappa",
            "both raters gave one and the same value on every case: chance agreement is total",
            n,
        )
    return Estimate(statistic="cohen_kappa", value=1 - observed / expected, units=n)
