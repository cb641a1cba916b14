"""How fast `jury estimate` counts a run: synthetic cases of varied length, three seats of
three providers priced from their names (no key, no call), one of them with a strategy where
the checkout has strategies.

    python benchmarks/estimate.py                 # 5,000 cases
    python benchmarks/estimate.py --cases 20000

It imports `jury` from the working directory, so that `benchmarks/ab.py` can run this one
script in two checkouts (``python benchmarks/ab.py --a ../main --b . --metric
'([\\d,.]+) cases/s' -- $PWD/benchmarks/estimate.py``). It prints the CPU time of one
`estimate` over the cases, and cases per second.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path.cwd()))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))

from benchmarks._machine import machine
from jury import Case, Juror, Panel
from jury.runs._estimate import estimate

JURORS = (
    "openai/gpt-4.1-mini-2025-04-14",
    "anthropic/claude-haiku-4-5-20251001",
    "google/gemini-2.5-flash",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=5000)
    args = parser.parse_args()
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY"):
        os.environ.pop(key, None)
    # Prompt sizes vary as in a real file: a question of 0 to 996 words.
    cases = [
        Case(id=f"c{i}", question="word " * ((i * 7919) % 997), answer="an answer " * 20)
        for i in range(args.cases)
    ]
    plain = Panel(jurors=JURORS, rubric="five-metric")
    jurors = plain.jurors
    if "strategy" in Juror.model_fields:
        jurors = (*jurors[:2], Juror(model=JURORS[2], strategy="metrics_reference"))
    panel = plain.model_copy(update={"jurors": jurors})
    estimate(panel, cases[:10])  # the price tables are read once, before the clock
    started = time.process_time()
    estimate(panel, cases)
    spent = time.process_time() - started
    print(f"machine: {machine()}")
    print(f"{args.cases:,} cases in {spent:.3f} s CPU: {args.cases / spent:,.0f} cases/s")


if __name__ == "__main__":
    main()
