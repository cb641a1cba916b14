"""How often the offline panel judges short and exact answers, and answers that contradict a
specific of the golden answer, as a person does.

    python benchmarks/offline_short.py            # a table for benchmarks/README.md
    python benchmarks/offline_short.py --json

The cases are hand-labelled (`labels.pass`) in the offline jurors' tests:
`tests/data/short_answers.jsonl` (the issue's three examples and the cases the rules were
written against) and `tests/data/short_answers_heldout.jsonl` (written before the rules were
run on them); `tests/data/contradictions.jsonl` (numbers, dates, amounts, durations and names
the answer contradicts, and paraphrases that keep them: issue 31) and
`tests/data/contradictions_heldout.jsonl` (the same, written before the rules were run on
them). For each file it prints the panel's accuracy (its verdict against the label,
the checks off: only the jurors are measured), each juror's accuracy (its own verdict), and
the cases the panel gets wrong.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._machine import machine
from jury import Jury, Verdict, default_panel, load_cases

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
FILES = (
    "short_answers.jsonl",
    "short_answers_heldout.jsonl",
    "contradictions.jsonl",
    "contradictions_heldout.jsonl",
)


async def measure(path: Path) -> dict[str, Any]:
    cases = load_cases(path)
    panel_right = 0
    jurors: dict[str, int] = {}
    wrong = []
    async with Jury(default_panel(), checks=None) as jury:
        for case in cases:
            verdict = await jury.judge(case)
            expected = Verdict.PASS if case.labels["pass"] else Verdict.FAIL
            if verdict.verdict is expected:
                panel_right += 1
            else:
                wrong.append(
                    {"id": case.id, "verdict": verdict.verdict.value, "why": verdict.reasons}
                )
            for vote in verdict.votes:
                jurors[vote.juror] = jurors.get(vote.juror, 0) + (vote.verdict is expected)
    return {
        "file": path.name,
        "cases": len(cases),
        "panel": panel_right,
        "jurors": jurors,
        "wrong": wrong,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = [asyncio.run(measure(DATA / name)) for name in FILES]
    if args.json:
        print(json.dumps({"machine": machine(), "results": results}, indent=2))
        return
    print(f"machine: {machine()}\n")
    names = sorted(results[0]["jurors"])
    print("| cases | n | panel | " + " | ".join(names) + " |")
    print("| --- | ---: | ---: |" + " ---: |" * len(names))
    for r in results:
        n = r["cases"]
        cells = [f"{r['jurors'][name]}/{n}" for name in names]
        print(
            f"| `{r['file']}` | {n} | {r['panel']}/{n} ({r['panel'] / n:.0%}) | "
            + " | ".join(cells)
            + " |"
        )
    for r in results:
        for miss in r["wrong"]:
            print(f"\n{r['file']}: {miss['id']} judged {miss['verdict']}: {'; '.join(miss['why'])}")


if __name__ == "__main__":
    main()
