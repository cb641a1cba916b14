"""How often the pass rate's 95 % interval holds the true pass rate: Wilson, Clopper-Pearson,
and the textbook Wald interval for contrast.

A run of n cases each passing with probability p gives k ~ Binomial(n, p) passes. Each trial
draws k with a seeded generator, computes each interval with `jury.agreement.proportion_interval`
(Wald by hand: p ± z·sqrt(p(1-p)/n)), and checks whether it holds p. The exact coverage (the
sum of P(k) over the k whose interval holds p) is printed beside each simulated figure, as a
check on the simulation.

Run: ``python benchmarks/interval_coverage.py [--trials 20000] [--seed 35]``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import binom

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._machine import machine
from jury.agreement import proportion_interval
from jury.decide._proportion import z_value

SIZES = (10, 30, 100)
RATES = (0.5, 0.9, 0.98)
METHODS = ("wilson", "exact", "wald")


def bounds(k: int, n: int, method: str, level: float) -> tuple[float, float]:
    if method == "wald":
        p = k / n
        half = z_value(level) * math.sqrt(p * (1 - p) / n)
        return p - half, p + half
    found = proportion_interval(k, n, method=method, level=level)  # type: ignore[arg-type]
    assert found.low is not None
    assert found.high is not None
    return found.low, found.high


def measure(
    n: int, p: float, trials: int, seed: int, level: float
) -> dict[str, tuple[float, float, float]]:
    """Per method: simulated coverage, exact coverage, mean width."""
    draws = np.random.default_rng(seed).binomial(n, p, trials)
    counts = np.bincount(draws, minlength=n + 1)
    out = {}
    for method in METHODS:
        table = [bounds(k, n, method, level) for k in range(n + 1)]
        holds = np.array([low <= p <= high for low, high in table])
        widths = np.array([high - low for low, high in table])
        simulated = float(counts[holds].sum() / trials)
        exact = float(binom.pmf(np.arange(n + 1)[holds], n, p).sum())
        width = float((counts * widths).sum() / trials)
        out[method] = (simulated, exact, width)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--level", type=float, default=0.95)
    args = parser.parse_args()
    started = time.perf_counter()
    print(machine())
    print(f"trials {args.trials}, seed {args.seed}, level {args.level}")
    print("| n | p | Wilson | Clopper-Pearson | Wald | mean width (Wilson / CP / Wald) |")
    print("|---:|---:|---:|---:|---:|---|")
    for n in SIZES:
        for p in RATES:
            found = measure(n, p, args.trials, args.seed + n, args.level)
            cells = [f"{100 * s:.1f} % ({100 * e:.1f})" for s, e, _ in found.values()]
            widths = " / ".join(f"{w:.3f}" for _, _, w in found.values())
            print(f"| {n} | {p} | {' | '.join(cells)} | {widths} |")
    print(f"{time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
