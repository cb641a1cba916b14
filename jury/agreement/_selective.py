"""Verdicts with a guarantee: calibrated confidence, a threshold by fixed-sequence testing, and
the accuracy-coverage trade-off.

Confidence
    A model's probability is mapped to the agreement with the labels it had on held-out cases:
    isotonic regression of "the verdict was right" on the probability (pool adjacent
    violators, `scipy.optimize.isotonic_regression`). On adversarial data the most confident
    verdicts are not always the most often right (three judges fooled alike); pooling merges
    such levels with their neighbours, so that the confidence is monotone in agreement.
Threshold
    Jung, Brahman & Choi (2025), "Trust or Escalate", ICLR, after Bauer (1991) and Angelopoulos
    et al. (2021) "Learn then Test": for each candidate threshold, from the most to the least
    demanding, test H0: "agreement on the cases at or above it is below the target" with the
    exact binomial p-value P(Bin(n, 1 - target) <= errors); walk down while H0 is rejected at
    level `risk`, and keep the last threshold rejected. Then, with probability at least
    1 - risk, the cases decided agree with the labels at least `target` of the time. Candidate
    thresholds deciding fewer cases than could ever reject H0 (n below log(risk) / log(target))
    are skipped: that depends on the confidences alone, not on the labels, so the order of the
    tests is fixed before any label is read. The calibration cases must not be those the model
    was fitted on; `jury._fitting` keeps them apart.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = ["Threshold", "calibrated", "curve", "fixed_sequence", "isotonic_steps"]

Steps = tuple[tuple[float, float], ...]


def isotonic_steps(probability: Sequence[float], correct: Sequence[bool]) -> Steps:
    """(lowest probability of a block, its agreement) for each block of the isotonic fit of
    `correct` on `probability`, rising."""
    import numpy as np
    from scipy.optimize import isotonic_regression

    p = np.asarray(probability, dtype=np.float64)
    y = np.asarray(correct, dtype=np.float64)
    if p.size == 0:
        return ()
    levels, inverse = np.unique(p, return_inverse=True)
    weight = np.bincount(inverse).astype(np.float64)
    mean = np.bincount(inverse, weights=y) / weight
    fitted = isotonic_regression(mean, weights=weight, increasing=True).x
    steps: list[tuple[float, float]] = []
    for level, value in zip(levels.tolist(), fitted.tolist(), strict=True):
        if not steps or value > steps[-1][1] + 1e-12:
            steps.append((float(level), float(value)))
    return tuple(steps)


def calibrated(steps: Steps, probability: NDArray[np.float64]) -> NDArray[np.float64]:
    """`jury.decide._learned.FitStage.calibrated`, for many probabilities at once."""
    import numpy as np

    if not steps:
        return np.asarray(probability, dtype=np.float64)
    bounds = np.array([b for b, _ in steps])
    values = np.array([v for _, v in steps])
    index = np.searchsorted(bounds, probability, side="right") - 1
    return np.asarray(values[np.clip(index, 0, None)], dtype=np.float64)


@dataclass(frozen=True, slots=True)
class Threshold:
    """A threshold the test kept: the cases it decides, their errors, and the p-value."""

    value: float
    decided: int
    errors: int
    p_value: float
    cases: int

    @property
    def coverage(self) -> float:
        return self.decided / self.cases if self.cases else 0.0

    @property
    def agreement(self) -> float:
        return 1 - self.errors / self.decided if self.decided else 0.0


def fixed_sequence(
    confidence: Sequence[float], correct: Sequence[bool], target: float, risk: float
) -> Threshold | None:
    """The least demanding threshold that fixed-sequence testing certifies, or None."""
    import numpy as np
    from scipy.stats import binom

    conf = np.asarray(confidence, dtype=np.float64)
    wrong = ~np.asarray(correct, dtype=bool)
    fewest = math.ceil(math.log(risk) / math.log(target))
    # Every level at once: cases at or above it, and their errors.
    levels, inverse = np.unique(conf, return_inverse=True)
    at_level = np.bincount(inverse, minlength=len(levels))[::-1]
    errors_at = np.bincount(inverse, weights=wrong, minlength=len(levels))[::-1]
    decided = np.cumsum(at_level)
    errors = np.cumsum(errors_at).astype(np.int64)
    p_values = binom.cdf(errors, decided, 1 - target)
    kept: Threshold | None = None
    for i, level in enumerate(levels[::-1]):
        if decided[i] < fewest:
            continue  # too few cases to reject even with no error: not a hypothesis tested
        if p_values[i] > risk:
            break
        kept = Threshold(
            float(level), int(decided[i]), int(errors[i]), float(p_values[i]), len(conf)
        )
    return kept


def curve(confidence: Sequence[float | None], correct: Sequence[bool]) -> list[tuple[float, float]]:
    """(coverage, accuracy on the decided) at each confidence level, most confident first.

    A None confidence is a case the rater left undecided at any level. In plain Python, as a
    run's page draws it (issue 36: no NumPy for the page)."""
    total = len(confidence)
    kept = sorted(
        (
            (level, bool(right))
            for level, right in zip(confidence, correct, strict=True)
            if level is not None and level >= 0
        ),
        key=lambda pair: pair[0],
        reverse=True,
    )
    points: list[tuple[float, float]] = []
    taken = right = 0
    for _, group in groupby(kept, key=lambda pair: pair[0]):
        for _, was_right in group:
            taken += 1
            right += was_right
        points.append((taken / total, right / taken))
    return points
