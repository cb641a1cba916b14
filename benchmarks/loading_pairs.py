"""Case loading, two versions of `jury` in one process, alternating pass by pass.

The machines are shared: rounds in separate processes swing with the load. Here the old
version is imported as another package (`git archive <commit> jury | tar -x -C DIR`, then the
folder renamed `jury_old`), and the two `validate_cases` passes alternate on the same file,
so that the machine's drift hits both alike. Prints B/A of the pairs (A's CPU time over B's:
above 1, this tree loads faster).

    python benchmarks/loading_pairs.py --old DIR --cases FILE --pairs 20
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from collections.abc import Callable


def cpu(load: Callable[[], object]) -> float:
    start = time.process_time()
    load()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True, help="the folder holding the package jury_old")
    parser.add_argument("--cases", required=True, help="a cases file (e.g. benchmarks/cases.py's)")
    parser.add_argument("--pairs", type=int, default=20)
    args = parser.parse_args()
    sys.path.insert(0, args.old)
    old = importlib.import_module("jury_old")
    import jury

    def run_a() -> object:
        return old.validate_cases(args.cases)

    def run_b() -> object:
        return jury.validate_cases(args.cases)

    n = len(list(jury.load_cases(args.cases)))
    run_a(), run_b()  # warm: imports, caches
    a_times, b_times, ratios = [], [], []
    for i in range(args.pairs):
        # The order alternates, so that neither side always runs first.
        if i % 2:
            b, a = cpu(run_b), cpu(run_a)
        else:
            a, b = cpu(run_a), cpu(run_b)
        a_times.append(a)
        b_times.append(b)
        ratios.append(a / b)
    ratios.sort()
    q = len(ratios) // 4
    print(
        f"A fastest {min(a_times) / n * 1e6:.2f} µs a case, B fastest {min(b_times) / n * 1e6:.2f};"
        f" B/A median {statistics.median(ratios):.3f}, interquartile {ratios[q]:.3f}-"
        f"{ratios[-q - 1]:.3f} ({len(ratios)} pairs)"
    )


if __name__ == "__main__":
    main()
