"""A run with ``repeat = N`` (``jury run --repeat N``): the agent asked N times per case, each
answer judged.

Each repeat is a run directory of its own (``OUT/repeat-1`` ... ``OUT/repeat-N``), complete
and resumable like any run, so that `jury compare --a OLD/repeat-* --b NEW/repeat-*` reads
them as the repeats it already knows (flaky cases, the noise between repeats). After the last
one, each case's stability is reported and kept in ``OUT/stability.json``: in how many of
the N repeats it passed, and the distinct answers the agent gave when they differ.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import ConfigError
from ..runs._records import new_run_dir, read_cases, read_verdicts, write_atomic
from ._options import RunOptions
from ._result import Run

if TYPE_CHECKING:
    from ._notices import Notices

__all__ = ["STABILITY", "repeat_dirs", "run_repeats", "stability_lines"]

STABILITY = "stability.json"
#: Unstable cases listed in the terminal (all of them are in stability.json).
SHOWN = 30
#: Characters of each differing answer shown in the terminal.
ANSWER_CHARS = 80


def repeat_dirs(out: Path, count: int) -> list[Path]:
    return [out / f"repeat-{index}" for index in range(1, count + 1)]


async def run_repeats(
    options: RunOptions,
    run_one: Callable[[RunOptions], Awaitable[Run]],
    *,
    agent: bool,
    said: Notices,
) -> Run:
    """Run the N repeats (each resumed when already there), then keep each case's stability
    in ``OUT/stability.json``; the run of the repeats (its exit code is the worst repeat's:
    1 when any failed the gate, else 3 when any was inconclusive, else 0)."""
    count = options.repeat or 0
    if count < 1:
        raise ConfigError(f"--repeat {count}: give at least 1")
    if not agent:
        raise ConfigError("--repeat: only with an agent (--agent, or agent = ... in the jury file)")
    if options.resume:
        raise ConfigError("--repeat: give the same --out again to resume the repeats")
    out = Path(options.out) if options.out else new_run_dir()
    runs = []
    for index, path in enumerate(repeat_dirs(out, count), start=1):
        said.status(f"repeat {index} of {count}: {path}")
        path.parent.mkdir(parents=True, exist_ok=True)
        runs.append(await run_one(options.replace(repeat=None, out=str(path))))
    stability = case_stability(repeat_dirs(out, count))
    write_atomic(out / STABILITY, json.dumps(stability, indent=2, ensure_ascii=False) + "\n")
    return Run.repeated(out, runs, stability, stability_lines(stability, out), said)


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


def stability_lines(stability: dict[str, Any], out: Path) -> list[str]:
    """What the terminal says of the repeats' stability (all of it is in stability.json)."""
    count = stability["repeats"]
    by_case = stability["by_case"]
    unstable = {
        case_id: c
        for case_id, c in by_case.items()
        if c["passed"] not in (0, c["repeats"]) or c["answers"]
    }
    lines = [
        "",
        f"Stability over {count} repeat(s): {stability['stable']} of {stability['cases']} "
        f"case(s) gave the same verdict every time; {len(unstable)} flaky or answered "
        f"differently (all in {out / STABILITY})",
    ]
    for case_id, c in list(unstable.items())[:SHOWN]:
        lines.append(
            f"  {case_id}: passed {c['passed']} of {c['repeats']}  ({' '.join(c['verdicts'])})"
        )
        for answer in c["answers"]:
            text = " ".join((answer or "(no answer)").split())
            more = "…" if len(text) > ANSWER_CHARS else ""
            lines.append(f"      answer: {text[:ANSWER_CHARS]}{more}")
    if len(unstable) > SHOWN:
        lines.append(f"  … and {len(unstable) - SHOWN} more")
    return lines
