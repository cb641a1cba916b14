"""The `refusal` check against people's labels: XSTest's labelled completions.

    python benchmarks/refusal.py                  # the table for benchmarks/README.md
    python benchmarks/refusal.py --json
    python benchmarks/refusal.py --data DIR       # other XSTest completion files (a clone's)

XSTest (Röttger et al. 2024, paul-rottger/exaggerated-safety) gives real model replies to 450
prompts (250 safe, 200 unsafe: ``type`` starts with ``contrast_``), each labelled by two
annotators: full compliance, full refusal, or partial refusal (refuses, then answers in part).
The files kept in `tests/data/refusal/xstest/` (see its SOURCE.md) are GPT-4's and
Mistral-7B-Instruct's (with and without a guard-rail system prompt).

Each reply is one case for the `refusal` check, with ``expect_refusal`` as a user writing the
set would give it: true for an unsafe prompt, false for a safe one. The check *calls the
reply a refusal* when it passes an expected refusal or fails an unexpected one (where a
refusal is not expected it counts only unambiguous phrases, "please contact" being a redirect
in an ordinary answer). Precision, recall and F1 are of that call against the label "full
refusal". A partial refusal is counted three ways, each printed: left out (full refusal
against full compliance only: the headline), as a refusal, and as compliance.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._machine import machine
from jury import Case, CheckOutcome
from jury.checks import CheckSettings, CheckSuite

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "refusal" / "xstest"
LABELS = {
    "1_full_compliance": "compliance",
    "2_full_refusal": "refusal",
    "3_partial_refusal": "partial",
}
#: How a partial refusal is counted: left out, as a refusal, as compliance.
PARTIAL = ("left out", "as refusal", "as compliance")


@dataclass(frozen=True)
class Reply:
    file: str
    id: str
    unsafe: bool
    label: str  # compliance, refusal or partial
    text: str


@dataclass(frozen=True)
class Score:
    partial: str
    n: int
    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def read(paths: Iterable[Path]) -> list[Reply]:
    replies: list[Reply] = []
    for path in paths:
        with path.open(newline="", encoding="utf-8") as handle:
            replies.extend(
                Reply(
                    path.name,
                    row["id"],
                    row["type"].startswith("contrast_"),
                    LABELS[row["final_label"]],
                    row["completion"],
                )
                for row in csv.DictReader(handle)
            )
    return replies


#: The built-in `refusal` check, with the default settings (no phrase added).
_CHECK = next(c for c in CheckSuite.from_settings(CheckSettings()).checks if c.name == "refusal")


def calls_refusal(reply: Reply) -> bool:
    """Whether the `refusal` check, as a user of the set would run it, calls `reply` one."""
    case = Case(id=reply.id, question="", answer=reply.text, expect_refusal=reply.unsafe)
    outcome = _CHECK(case).outcome
    return (outcome is CheckOutcome.PASS) == reply.unsafe


def score(replies: Sequence[Reply], called: Sequence[bool], partial: str) -> Score:
    tp = fp = fn = n = 0
    for reply, said in zip(replies, called, strict=True):
        label = reply.label
        if label == "partial":
            if partial == "left out":
                continue
            label = "refusal" if partial == "as refusal" else "compliance"
        n += 1
        tp += said and label == "refusal"
        fp += said and label == "compliance"
        fn += not said and label == "refusal"
    return Score(partial, n, tp, fp, fn)


@dataclass(frozen=True)
class Result:
    replies: int
    #: Over all the files, by how a partial refusal is counted (`PARTIAL`).
    scores: dict[str, Score]
    #: Each file's, partial refusals left out.
    files: dict[str, Score]
    #: The replies it gets wrong (partial refusals aside).
    wrong: list[dict[str, object]]


def measure(paths: Iterable[Path]) -> Result:
    replies = read(paths)
    called = [calls_refusal(r) for r in replies]
    per_file = {}
    for name in sorted({r.file for r in replies}):
        mine = [(r, c) for r, c in zip(replies, called, strict=True) if r.file == name]
        per_file[name] = score([r for r, _ in mine], [c for _, c in mine], "left out")
    wrong: list[dict[str, object]] = [
        {"file": r.file, "id": r.id, "label": r.label, "called_refusal": c, "text": r.text[:160]}
        for r, c in zip(replies, called, strict=True)
        if r.label != "partial" and c != (r.label == "refusal")
    ]
    scores = {how: score(replies, called, how) for how in PARTIAL}
    return Result(len(replies), scores, per_file, wrong)


def rows(result: Result) -> Iterator[str]:
    yield "| replies | partial refusals | n | precision | recall | F1 |"
    yield "| --- | --- | ---: | ---: | ---: | ---: |"
    named = [(f"all {result.replies}", s) for s in result.scores.values()]
    named += [(f"`{name}`", s) for name, s in result.files.items()]
    for name, s in named:
        yield (
            f"| {name} | {s.partial} | {s.n} | {s.precision:.3f} | {s.recall:.3f} | {s.f1:.3f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="a folder of XSTest CSV files")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--wrong", type=int, default=0, help="list this many misjudged replies")
    args = parser.parse_args()
    result = measure(sorted(args.data.glob("*.csv")))
    if args.json:
        print(json.dumps({"machine": machine(), **asdict(result)}, indent=2))
        return
    print(f"machine: {machine()}\n")
    print("\n".join(rows(result)))
    print(f"\n{len(result.wrong)} replies misjudged (partial refusals left out)")
    for miss in result.wrong[: args.wrong]:
        print(json.dumps(miss, ensure_ascii=False))


if __name__ == "__main__":
    main()
