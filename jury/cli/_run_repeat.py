"""`jury run GOLDEN --agent SPEC --repeat N`: the agent asked N times per case, each answer judged.

Each repeat is a run directory of its own (``OUT/repeat-1`` ... ``OUT/repeat-N``), complete
and resumable like any run, so that `jury compare --a OLD/repeat-* --b NEW/repeat-*` reads
them as the repeats it already knows (flaky cases, the noise between repeats). After the last
one, each case's stability is reported and kept in ``OUT/stability.json``: in how many of
the N repeats it passed, and the distinct answers the agent gave when they differ.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .._errors import ConfigError
from ..runs._records import new_run_dir, read_cases, read_verdicts, write_atomic

__all__ = ["STABILITY", "repeat_dirs", "run_repeats"]

STABILITY = "stability.json"
#: Unstable cases listed in the terminal (all of them are in stability.json).
SHOWN = 30
#: Characters of each differing answer shown in the terminal.
ANSWER_CHARS = 80


def repeat_dirs(out: Path, count: int) -> list[Path]:
    return [out / f"repeat-{index}" for index in range(1, count + 1)]


def run_repeats(
    args: argparse.Namespace, run_one: Callable[[argparse.Namespace], int], *, agent: bool
) -> int:
    """Run the N repeats (each resumed when already there), then report stability. The
    exit code is the worst repeat's: 1 when any failed the gate, else 3 when any was
    inconclusive, else 0."""
    count = args.repeat
    if count < 1:
        raise ConfigError(f"--repeat {count}: give at least 1")
    if not agent:
        raise ConfigError("--repeat: only with an agent (--agent, or agent = ... in the jury file)")
    if args.resume:
        raise ConfigError("--repeat: give the same --out again to resume the repeats")
    out = Path(args.out) if args.out else new_run_dir()
    codes = []
    for index, path in enumerate(repeat_dirs(out, count), start=1):
        print(f"jury: repeat {index} of {count}: {path}", file=sys.stderr)
        one = copy.copy(args)
        one.repeat, one.out = None, str(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        codes.append(run_one(one))
        if codes[-1] > 128:  # interrupted (128 + the signal): the repeats left are not run
            return codes[-1]
    stability = case_stability(repeat_dirs(out, count))
    write_atomic(out / STABILITY, json.dumps(stability, indent=2, ensure_ascii=False) + "\n")
    print_stability(stability, count, out)
    for code in (2, 1, 3):
        if code in codes:
            return code
    return 0


def case_stability(runs: list[Path]) -> dict[str, Any]:
    """Per case: PASS count of N, each repeat's verdict, and the distinct answers."""
    verdicts: dict[str, list[str]] = {}
    answers: dict[str, list[str | None]] = {}
    for run in runs:
        for verdict in read_verdicts(run):
            verdicts.setdefault(verdict.case_id, []).append(verdict.verdict.value)
        for case in read_cases(run):
            answers.setdefault(case.id, []).append(case.answer)
    cases = {}
    for case_id, seen in verdicts.items():
        distinct = list(dict.fromkeys(answers.get(case_id, [])))
        cases[case_id] = {
            "passed": seen.count("PASS"),
            "repeats": len(seen),
            "verdicts": seen,
            "answers": distinct if len(distinct) > 1 else [],
        }
    stable = sum(1 for c in cases.values() if c["passed"] in (0, c["repeats"]))
    return {"repeats": len(runs), "cases": len(cases), "stable": stable, "by_case": cases}


def print_stability(stability: dict[str, Any], count: int, out: Path) -> None:
    by_case = stability["by_case"]
    unstable = {
        case_id: c
        for case_id, c in by_case.items()
        if c["passed"] not in (0, c["repeats"]) or c["answers"]
    }
    print(
        f"\nStability over {count} repeat(s): {stability['stable']} of {stability['cases']} "
        f"case(s) gave the same verdict every time; {len(unstable)} flaky or answered "
        f"differently (all in {out / STABILITY})"
    )
    for case_id, c in list(unstable.items())[:SHOWN]:
        print(f"  {case_id}: passed {c['passed']} of {c['repeats']}  ({' '.join(c['verdicts'])})")
        for answer in c["answers"]:
            text = " ".join((answer or "(no answer)").split())
            more = "…" if len(text) > ANSWER_CHARS else ""
            print(f"      answer: {text[:ANSWER_CHARS]}{more}")
    if len(unstable) > SHOWN:
        print(f"  … and {len(unstable) - SHOWN} more")
