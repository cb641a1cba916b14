"""The learned jury's fitting cost alone: `fit_jury` (stacked, one tier, and a cascade of one
model a tier) on the training halves of `benchmarks/juries.py`'s seat panels, CPU seconds.

For an interleaved A/B of the fitting code (issue 21): the same script in two checkouts,

    python benchmarks/ab.py --a OLD --b . --runs 3 --metric 'fitting ([\\d.]+) s' -- \\
        benchmarks/fitting.py --splits 2

Run: ``python benchmarks/fitting.py [--splits 2] [--panel a|b]`` (prints ``fitting X s``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import juries, llmbar
from jury._logging import configure_logging
from jury.agreement._evidence import Labelled, labelled_table
from jury.agreement._fitting import fit_jury


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--splits", type=int, default=2)
    parser.add_argument("--panel", choices=("a", "b"), default="b")
    args = parser.parse_args()
    from threadpoolctl import threadpool_limits

    configure_logging(0)
    bar = llmbar.find_data(None)
    if bar is None:
        print("fitting: no LLMBar data folder found", file=sys.stderr)
        return 2
    items = [it for it in llmbar.load_items(bar) if it["subset"].startswith("LLMBar/")]
    name = next(n for n in juries.SEAT_PANELS if f"({args.panel})" in n)
    jurors = juries.SEAT_PANELS[name]
    with threadpool_limits(limits=1):  # the same in both checkouts: the fitting code differs
        data = juries.llmbar_data(items, jurors)
        table = labelled_table(data.cases, data.verdicts, data.rubric, "winner")
        labelled = [i for i, label in enumerate(table.labels) if label >= 0]
        models = sorted({juries.model_of(j) for j in jurors})
        cascade = {j: models.index(juries.model_of(j)) + 1 for j in jurors}
        spent = 0.0
        for split in range(args.splits):
            order = np.random.default_rng(split).permutation(labelled)
            train = set(order[: len(labelled) // 2].tolist())
            half = Labelled(
                table.target,
                table.classes,
                table.ids,
                table.rows,
                table.jurors,
                [label if i in train else -1 for i, label in enumerate(table.labels)],
            )
            started = time.process_time()
            fit_jury(half, dict.fromkeys(jurors, 1), data.rubric, model="stacked", seed=split)
            fit_jury(half, cascade, data.rubric, seed=split)
            spent += time.process_time() - started
    print(f"panel ({args.panel}), {len(jurors)} seats, {args.splits} splits: fitting {spent:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
