"""Case loading, two versions of `jury` in one process, alternating pass by pass.

The machines are shared: rounds in separate processes swing with the load. Here the old
version is imported as another package (`git archive <commit> jury | tar -x -C DIR`, then the
folder renamed `jury_old`), and the two `validate_cases` passes alternate on the same file,
so that the machine's drift hits both alike. Prints B/A of the pairs (A's CPU time over B's:
above 1, this tree loads faster).

    python benchmarks/loading_pairs.py --old DIR --cases FILE --pairs 20
    python benchmarks/loading_pairs.py --old DIR --format csv --count 20000 --pairs 20

`--format` writes `benchmarks/cases.py`'s synthetic cases (seed 7, every case with an ID, as
a loader before content IDs needs) in that format, as that script writes it, and loads that
file; a version that cannot read the format is said to, before any pair is run. With
`--old-format`, A reads the same cases in that format instead (30d68d7 read JSONL only: what
B takes to load a CSV file against what A took to load the same cases as JSONL).
"""

from __future__ import annotations

import argparse
import importlib
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.cases import synthetic, write_all


def cpu(load: Callable[[], object]) -> float:
    start = time.process_time()
    load()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True, help="the folder holding the package jury_old")
    given = parser.add_mutually_exclusive_group(required=True)
    given.add_argument("--cases", help="a cases file (e.g. benchmarks/cases.py's)")
    given.add_argument(
        "--format", choices=("jsonl", "json", "csv", "yaml", "parquet"), help="synthetic cases"
    )
    parser.add_argument("--count", type=int, default=20_000, help="cases, with --format")
    parser.add_argument(
        "--old-format", choices=("jsonl", "json", "csv", "yaml", "parquet"), help="what A reads"
    )
    parser.add_argument("--pairs", type=int, default=20)
    args = parser.parse_args()
    if args.format:
        with tempfile.TemporaryDirectory() as folder:
            rng = random.Random(7)
            cases = [{"id": f"c{i}", **synthetic(rng, i)} for i in range(args.count)]
            paths = write_all(Path(folder), cases)
            if args.format not in paths:
                sys.exit(f"{args.format}: benchmarks/cases.py could not write it (pyarrow?)")
            args.cases = str(paths[args.format])
            args.old_cases = str(paths[args.old_format or args.format])
            pairs(args)
    else:
        args.old_cases = args.cases
        pairs(args)


def pairs(args: argparse.Namespace) -> None:
    sys.path.insert(0, args.old)
    old = importlib.import_module("jury_old")
    import jury

    def run_a() -> object:
        return old.validate_cases(args.old_cases)

    def run_b() -> object:
        return jury.validate_cases(args.cases)

    n = len(list(jury.load_cases(args.cases)))
    try:
        count = run_a()
    except Exception as exc:  # any failure of the old loader is its answer, said as one
        sys.exit(f"A cannot read {args.old_cases}: {type(exc).__name__}: {exc}"[:400])
    if count != n:
        sys.exit(f"A read {count} cases, B {n}: not the same work")
    run_b()  # warm: imports, caches
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
