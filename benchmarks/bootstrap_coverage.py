"""How often a 95 % bootstrap interval holds the true agreement: percentile against BCa.

Two raters label units PASS/FAIL from a known joint distribution (both PASS 0.45, both FAIL
0.35, each disagreement 0.10), so the population's Cohen's kappa is known exactly:
(0.80 - 0.505) / 0.495 = 0.596; Krippendorff's alpha (nominal) and Gwet's AC1 have their
population values from the same table. Each trial draws `units` units, computes the interval
with `resamples` resamples by each method, and checks whether it holds the true value.

Run: ``python benchmarks/bootstrap_coverage.py [--trials 2000] [--resamples 1000]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._machine import machine
from jury.agreement import Bootstrap, Estimate, Ratings, cohen_kappa, gwet_ac1, krippendorff_alpha

#: (rater 1, rater 2) -> probability.
TABLE = {
    ("PASS", "PASS"): 0.45,
    ("FAIL", "FAIL"): 0.35,
    ("PASS", "FAIL"): 0.10,
    ("FAIL", "PASS"): 0.10,
}


def truth() -> dict[str, float]:
    agree = TABLE[("PASS", "PASS")] + TABLE[("FAIL", "FAIL")]
    first = TABLE[("PASS", "PASS")] + TABLE[("PASS", "FAIL")]
    second = TABLE[("PASS", "PASS")] + TABLE[("FAIL", "PASS")]
    chance_kappa = first * second + (1 - first) * (1 - second)
    pooled = (first + second) / 2  # alpha and AC1 pool the two raters' labels
    chance_alpha = pooled**2 + (1 - pooled) ** 2
    chance_ac1 = 2 * pooled * (1 - pooled)  # q = 2: sum p(1 - p) / (q - 1)
    return {
        "cohen_kappa": (agree - chance_kappa) / (1 - chance_kappa),
        # Large-sample alpha (nominal): 1 - observed / expected disagreement.
        "krippendorff_alpha": 1 - (1 - agree) / (1 - chance_alpha),
        "gwet_ac1": (agree - chance_ac1) / (1 - chance_ac1),
    }


STATISTICS: dict[str, Callable[..., Estimate]] = {
    "cohen_kappa": cohen_kappa,
    "krippendorff_alpha": krippendorff_alpha,
    "gwet_ac1": gwet_ac1,
}


def coverage(
    units: int, trials: int, resamples: int, seed: int
) -> dict[tuple[str, str], tuple[int, int, float]]:
    """(statistic, method) -> (intervals holding the truth, intervals computed, mean width)."""
    rng = np.random.default_rng(seed)
    pairs = list(TABLE)
    weights = np.array([TABLE[p] for p in pairs])
    true = truth()
    out: dict[tuple[str, str], list[float]] = {}
    for trial in range(trials):
        drawn = rng.choice(len(pairs), size=units, p=weights)
        rows: list[Sequence[str]] = [pairs[i] for i in drawn]
        ratings = Ratings.from_rows(rows, values=("FAIL", "PASS"))
        for name, statistic in STATISTICS.items():
            for method in ("percentile", "bca"):
                found = statistic(
                    ratings, bootstrap=Bootstrap(resamples, seed=trial, method=method)
                )
                tally = out.setdefault((name, method), [0, 0, 0.0])
                if found.low is None or found.high is None:
                    continue
                tally[1] += 1
                tally[0] += found.low <= true[name] <= found.high
                tally[2] += found.high - found.low
    return {k: (int(v[0]), int(v[1]), v[2] / v[1] if v[1] else 0.0) for k, v in out.items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=2000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--units", type=int, nargs="+", default=[30, 100])
    args = parser.parse_args(argv)
    started = time.perf_counter()
    print(f"true values: {', '.join(f'{k} {v:.4f}' for k, v in truth().items())}")
    print(
        "| units | statistic | percentile coverage | BCa coverage | mean width (percentile / BCa) |"
    )
    print("|---:|---|---:|---:|---|")
    for units in args.units:
        found = coverage(units, args.trials, args.resamples, seed=units)
        for name in STATISTICS:
            p_hit, p_n, p_width = found[(name, "percentile")]
            b_hit, b_n, b_width = found[(name, "bca")]
            print(
                f"| {units} | {name} | {100 * p_hit / p_n:.1f} % of {p_n} | "
                f"{100 * b_hit / b_n:.1f} % of {b_n} | {p_width:.3f} / {b_width:.3f} |"
            )
    print(
        f"{args.trials} trials, {args.resamples} resamples, nominal 95 %; "
        f"{time.perf_counter() - started:.0f} s; {machine()}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
