"""Interleaved A/B: one benchmark command run alternately in two checkouts, compared as ratios.

    python benchmarks/ab.py --a ../old --b . --runs 5 \\
        --metric '([\\d,.]+) calls/s' -- benchmarks/engine.py throughput

Each round runs A then B (the order alternates every round, so that a drift of the machine
during a round does not favour one side), reads the first number the `--metric` regular
expression captures from each side's output, and prints B/A. The summary gives the median
ratio and its range over the rounds: on a shared machine only a ratio within one run means
anything, and the range is the noise band.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._machine import machine


def measure(checkout: Path, command: list[str], metric: re.Pattern[str]) -> float:
    out = subprocess.run(
        [sys.executable, *command], cwd=checkout, capture_output=True, text=True, check=True
    ).stdout
    found = metric.search(out)
    if found is None:
        raise SystemExit(f"{checkout}: no match for {metric.pattern!r} in:\n{out}")
    return float(found.group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", type=Path, required=True, help="the baseline checkout")
    parser.add_argument("--b", type=Path, required=True, help="the checkout to compare")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--metric", required=True, help="regex; group 1 is the number")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- script and its arguments")
    args = parser.parse_args()
    command = [part for part in args.command if part != "--"]
    metric = re.compile(args.metric)
    print(f"machine: {machine()}; load before: {os.getloadavg()[0]:.2f}")
    print(f"command: python {' '.join(command)}  (metric {args.metric!r})")
    ratios = []
    for round_ in range(args.runs):
        sides = [("a", args.a), ("b", args.b)]
        if round_ % 2:
            sides.reverse()
        values = {name: measure(path, command, metric) for name, path in sides}
        ratio = values["b"] / values["a"]
        ratios.append(ratio)
        print(f"round {round_ + 1}: A {values['a']:,.3f}  B {values['b']:,.3f}  B/A {ratio:.3f}")
    print(
        f"B/A median {statistics.median(ratios):.3f}, range {min(ratios):.3f}-{max(ratios):.3f} "
        f"over {len(ratios)} rounds; load after: {os.getloadavg()[0]:.2f}"
    )


if __name__ == "__main__":
    main()
