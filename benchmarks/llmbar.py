"""LLMBar: a jury of three recorded judges against each judge alone, on 885 pairwise items.

The judges' verdicts were recorded by the LLMBar authors (princeton-nlp/LLMBar, MIT) in both
presentation orders; they are served again by the replay provider (``replay/<file>``), through
the engine, with the pairwise rubric: each juror judges both orders and abstains when its two
verdicts disagree (Zheng et al. 2023); the jury takes the majority of the jurors that did not
abstain (quorum 1 by default), and an even split is undecided.

How an unparseable verdict ("None" in the data) counts:
- for the jury, the recorded reply text is served as it is, so the rubric cannot read it: the
  juror's vote is invalid (never a default, never a guess) and the jury decides without it;
- for a judge alone, the authors' figures are reproduced: accuracy is the mean over both
  orders of agreement with gold, where "None" never agrees; positional agreement is the share
  of items whose two orders give the same verdict, where "None" in both orders counts as
  agreeing (it is what reproduces the published figures; see `check_published`).

Run: ``python benchmarks/llmbar.py [--data DIR] [--quorum 1]`` (exit 1 when a published
single-judge figure is not reproduced).
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import os
import platform
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jury import Case, CaseVerdict, Juror, Jury, Panel, Verdict, VoteStatus
from jury._logging import configure_logging
from jury.providers.replay import Record, write_records
from jury.rubrics import position_consistency
from jury.rubrics._pairwise import PairwiseFile, PairwiseRubric

ROOT = Path(__file__).resolve().parents[1]
#: One strategy, three model families (the published table has all eight subsets for these).
JUDGES: dict[str, str] = {
    "GPT-4/Vanilla_NoRules": "openai",
    "PaLM2/Vanilla_NoRules": "google",
    "LLaMA2/Vanilla_NoRules": "meta",
}
DATA_FILE = "llmbar_multijudge.jsonl"
PUBLISHED_FILE = "llmbar_published_statistics.tsv"
#: The rubric that reads the recorded verdicts: no ties in LLMBar, and PASS means A won.
RUBRIC = PairwiseRubric(
    PairwiseFile(
        kind="pairwise",
        name="llmbar-replay",
        description="LLMBar's recorded verdicts: which output is better.",
        allow_tie=False,
        pass_when=("A",),
    )
)


def find_data(given: str | None = None) -> Path | None:
    """The LLMBar folder: given, $LLMBAR_DATA, or ../shared/data/llmbar beside the repository."""
    candidates = [given, os.environ.get("LLMBAR_DATA")]
    candidates += [str(base / "shared/data/llmbar") for base in (ROOT.parent, ROOT.parent.parent)]
    for candidate in candidates:
        if candidate and (Path(candidate) / DATA_FILE).is_file():
            return Path(candidate)
    return None


def load_items(data: Path) -> list[dict[str, Any]]:
    with open(data / DATA_FILE, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def case_id(item: Mapping[str, Any]) -> str:
    return f"{item['subset']}#{item['idx']}"


# --- one judge alone, the authors' way -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Alone:
    """A judge alone on one subset, by the authors' definitions."""

    n: int
    accuracy: float
    positional_agreement: float
    unparseable: int


def alone(items: Sequence[Mapping[str, Any]], judge: str) -> Alone:
    rated = [item for item in items if judge in item["judges"]]
    hits = agree = unparseable = 0
    for item in rated:
        verdicts = item["judges"][judge]
        gold = str(item["gold"])
        hits += (verdicts["noswap"] == gold) + (verdicts["swap"] == gold)
        agree += verdicts["noswap"] == verdicts["swap"]
        unparseable += (verdicts["noswap"] == "None") + (verdicts["swap"] == "None")
    n = len(rated)
    return Alone(n, 100 * hits / (2 * n), 100 * agree / n, unparseable)


def by_subset(items: Iterable[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for item in items:
        groups.setdefault(item["subset"], []).append(item)
    return dict(sorted(groups.items()))


def check_published(
    items: Sequence[Mapping[str, Any]], data: Path, tolerance: float = 1e-9
) -> tuple[int, list[str]]:
    """Recompute every published (subset, judge) row; return (rows checked, mismatches)."""
    groups = by_subset(items)
    mismatches: list[str] = []
    rows = 0
    with open(data / PUBLISHED_FILE, encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            rows += 1
            mine = alone(groups.get(row["subset"], []), row["evaluator"])
            published = (
                int(row["n"]),
                float(row["published_acc_pct"]),
                float(row["published_positional_agreement_pct"]),
            )
            ours = (mine.n, mine.accuracy, mine.positional_agreement)
            if ours[0] != published[0] or any(
                abs(a - b) > tolerance for a, b in zip(ours[1:], published[1:], strict=True)
            ):
                mismatches.append(f"{row['subset']} {row['evaluator']}: {ours} != {published}")
    return rows, mismatches


# --- the jury, through the engine ------------------------------------------------------------


def cases(items: Iterable[Mapping[str, Any]]) -> list[Case]:
    return [
        Case(
            id=case_id(item),
            category=item["subset"],
            question=item["input"],
            answer=item["output_1"],
            answer_b=item["output_2"],
        )
        for item in items
    ]


def records(items: Iterable[Mapping[str, Any]], judge: str) -> list[Record]:
    """A judge's recorded verdicts as replies to the pairwise rubric's two prompts.

    "AB" shows output_1 (A) first: the verdict "1" is the reply "1". "BA" shows output_2
    first, and the data's swap verdict is already in the original numbering, so "1" (output_1
    better) is the reply "2". "None" stays the text "None": unreadable, as it was.
    """
    out = []
    reason = f"recorded LLMBar verdict of {judge}"
    for item in items:
        verdicts = item["judges"].get(judge)
        if verdicts is None:
            continue
        for prompt, said in (("AB", verdicts["noswap"]), ("BA", verdicts["swap"])):
            if said == "None":
                reply = "None"
            else:
                shown = said if prompt == "AB" else {"1": "2", "2": "1"}[said]
                reply = json.dumps({"reason": reason, "winner": shown})
            out.append(Record(case=case_id(item), prompt=prompt, reply=reply, model=judge))
    return out


async def judge_with_jury(
    items: Sequence[Mapping[str, Any]], folder: Path, judges: Mapping[str, str], quorum: int
) -> list[CaseVerdict]:
    jurors = []
    for judge, family in judges.items():
        path = folder / f"{judge.replace('/', '_')}.jsonl"
        write_records(path, records(items, judge))
        jurors.append(Juror(model=f"replay/{path}", name=judge, family=family))
    panel = Panel(
        jurors=tuple(jurors),
        quorum=quorum,
        ties="inconclusive",
        aggregation="majority",
        # A replayed reply cannot change when asked again: an unreadable one is invalid at once.
        reasks=0,
        concurrency=64,
        case_timeout=None,
    )
    # The recorded judges alone: a check (a garbled output) must not spare a recorded vote.
    async with Jury(panel, rubric=RUBRIC, checks=None) as jury:
        return [verdict async for verdict in jury.evaluate(cases(items))]


@dataclass(slots=True)
class Row:
    """One line of the results: a subset, or all items."""

    name: str
    n: int = 0
    jury_right: int = 0
    jury_decided: int = 0
    alone: dict[str, Alone] = field(default_factory=dict)
    #: Per juror: votes right with the swap-abstain rule, abstained, invalid.
    right: dict[str, int] = field(default_factory=dict)
    abstained: dict[str, int] = field(default_factory=dict)
    invalid: dict[str, int] = field(default_factory=dict)
    consistency: dict[str, tuple[int, int]] = field(default_factory=dict)


def summarise(
    items: Sequence[Mapping[str, Any]],
    verdicts: Sequence[CaseVerdict],
    judges: Sequence[str],
) -> list[Row]:
    gold = {case_id(item): "A" if item["gold"] == 1 else "B" for item in items}
    by_case = {verdict.case_id: verdict for verdict in verdicts}
    groups = by_subset(items)
    rows = []
    for name, members in [*groups.items(), ("all", list(items))]:
        row = Row(name=name, n=len(members))
        chosen = [by_case[case_id(item)] for item in members]
        for verdict in chosen:
            winner = verdict.metrics["winner"].value if verdict.metrics else None
            decided = verdict.verdict is not Verdict.INCONCLUSIVE
            row.jury_decided += decided
            row.jury_right += decided and winner == gold[verdict.case_id]
        consistency = position_consistency(chosen)
        for judge in judges:
            row.alone[judge] = alone(members, judge)
            votes = [v for verdict in chosen for v in verdict.votes if v.juror == judge]
            row.right[judge] = sum(
                1
                for verdict in chosen
                for v in verdict.votes
                if v.juror == judge
                and v.status is VoteStatus.VALID
                and v.scores["winner"] == gold[verdict.case_id]
            )
            row.abstained[judge] = sum(v.status is VoteStatus.ABSTAINED for v in votes)
            row.invalid[judge] = sum(v.status is VoteStatus.INVALID for v in votes)
            tally = consistency.get(judge)
            row.consistency[judge] = (tally.consistent, tally.judged) if tally else (0, 0)
        rows.append(row)
    return rows


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}" if whole else "-"


def markdown(rows: Sequence[Row], judges: Sequence[str]) -> str:
    short = [judge.split("/")[0] for judge in judges]
    lines = [
        "Accuracy against gold, % of items (undecided and abstained count as wrong):",
        "",
        "| subset | n | jury | jury decided | jury when decided | "
        + " | ".join(f"{s} alone | {s} swap-abstain" for s in short)
        + " |",
        "|---|---:|---:|---:|---:|" + "---:|---:|" * len(judges),
    ]
    for row in rows:
        cells = [
            row.name,
            str(row.n),
            _pct(row.jury_right, row.n),
            _pct(row.jury_decided, row.n),
            _pct(row.jury_right, row.jury_decided),
        ]
        for judge in judges:
            cells += [f"{row.alone[judge].accuracy:.1f}", _pct(row.right[judge], row.n)]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "Position consistency (both orders agree, % of votes with two readable orders; the "
        "authors' positional agreement in brackets), abstentions and invalid votes "
        "(% of items):",
        "",
        "| subset | "
        + " | ".join(f"{s} consistent | {s} abstain | {s} invalid" for s in short)
        + " |",
        "|---|" + "---:|---:|---:|" * len(judges),
    ]
    for row in rows:
        cells = [row.name]
        for judge in judges:
            consistent, judged = row.consistency[judge]
            cells += [
                f"{_pct(consistent, judged)} ({row.alone[judge].positional_agreement:.1f})",
                _pct(row.abstained[judge], row.n),
                _pct(row.invalid[judge], row.n),
            ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", help="the llmbar folder (default: ../shared/data/llmbar)")
    parser.add_argument("--quorum", type=int, default=1, help="valid votes a verdict needs")
    args = parser.parse_args(argv)
    configure_logging(0)
    data = find_data(args.data)
    if data is None:
        print("llmbar: no data folder found (pass --data or set LLMBAR_DATA)", file=sys.stderr)
        return 2
    items = load_items(data)
    checked, mismatches = check_published(items, data)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        verdicts = asyncio.run(judge_with_jury(items, Path(folder), JUDGES, args.quorum))
    elapsed = time.perf_counter() - started
    rows = summarise(items, verdicts, list(JUDGES))
    print(f"LLMBar, {len(items)} items, jurors {', '.join(JUDGES)}; quorum {args.quorum}")
    machine = f"{platform.machine()}, {os.cpu_count()} cores"
    print(f"machine: {machine}, Python {platform.python_version()}")
    print(f"replayed through the engine in {elapsed:.1f} s")
    print()
    print(markdown(rows, list(JUDGES)))
    print()
    print(
        f"published figures: {checked - len(mismatches)} of {checked} (subset, judge) rows "
        "reproduced exactly (accuracy and positional agreement)"
    )
    for line in mismatches:
        print(f"  mismatch: {line}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
