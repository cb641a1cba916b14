"""A recorded run as a table: one row per case, or one row per vote, for spreadsheets and
dataframes (CSV, JSON lines, Parquet).

Every cell is a scalar (text, number, true/false or empty), so the three formats hold the same
table; lists are joined with "; " and a case's metadata is a JSON text. Nothing is rounded or
filled in: a cost that is unknown is empty, never 0; an invalid vote keeps its reply verbatim;
a vote without soft confidence has an empty probability, never 0 or 1.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from .._errors import ConfigError
from .._verdict import CaseVerdict, CheckOutcome, Vote
from ..cases._case import Case

__all__ = ["FORMATS", "case_rows", "vote_rows", "write_rows"]

FORMATS = ("csv", "jsonl", "parquet")
Row = dict[str, Any]


def _joined(items: Iterable[str]) -> str:
    return "; ".join(items)


def _cost(votes: Iterable[Vote]) -> float | None:
    total = 0.0
    for vote in votes:
        if vote.calls.cost is None:
            return None
        total += vote.calls.cost
    return total


def case_rows(verdicts: Sequence[CaseVerdict], cases: Mapping[str, Case]) -> list[Row]:
    """One row per case: its verdict and why, the panel's value per metric (``metric.NAME``),
    each juror's own verdict (``juror.NAME``: PASS, FAIL, or its vote's status) and, for the
    jurors that gave one, the probability of it (``probability.NAME``), the checks, what its
    calls cost, and the case's texts."""
    metrics = list(dict.fromkeys(name for v in verdicts for name in v.metrics))
    jurors = sorted({vote.juror for v in verdicts for vote in v.votes})
    # Only the jurors with soft confidence somewhere: a run without it exports as before.
    sure = sorted(
        {vote.juror for v in verdicts for vote in v.votes if vote.probability is not None}
    )
    rows = []
    for verdict in verdicts:
        case = cases.get(verdict.case_id)
        votes = {vote.juror: vote for vote in verdict.votes}
        row: Row = {
            "case_id": verdict.case_id,
            "category": verdict.category,
            "verdict": verdict.verdict.value,
            "reasons": _joined(verdict.reasons),
            "failed_stage": verdict.failed_stage,
            "score": verdict.score,
        }
        for name in metrics:
            result = verdict.metrics.get(name)
            row[f"metric.{name}"] = None if result is None else result.value
        for juror in jurors:
            vote = votes.get(juror)
            own = None if vote is None else (vote.verdict.value if vote.verdict else None)
            row[f"juror.{juror}"] = own or (vote.status.value if vote else None)
        for juror in sure:
            vote = votes.get(juror)
            row[f"probability.{juror}"] = None if vote is None else vote.probability
        row |= {
            "disagreement": verdict.disagreement,
            "disagreement_reasons": _joined(verdict.disagreement_reasons),
            "dissenting_jurors": _joined(d.juror for d in verdict.dissent),
            "valid_votes": verdict.valid_votes,
            "votes": len(verdict.votes),
            "checks_failed": _joined(
                c.name for c in verdict.checks if c.outcome is CheckOutcome.FAIL
            ),
            "checks_passed": _joined(
                c.name for c in verdict.checks if c.outcome is CheckOutcome.PASS
            ),
            "judges_spared": verdict.judges_spared,
            "attempts": sum(v.calls.attempts for v in verdict.votes),
            "input_tokens": sum(v.calls.input_tokens for v in verdict.votes),
            "output_tokens": sum(v.calls.output_tokens for v in verdict.votes),
            "cost": _cost(verdict.votes),
            "duration_s": verdict.duration_s,
            "offline": verdict.offline,
            "fake": any(v.fake for v in verdict.votes),
            "question": case.question if case else None,
            "answer": case.answer if case else None,
            "golden_answer": case.golden_answer if case else None,
            "metadata": json.dumps(case.metadata, ensure_ascii=False)
            if case and case.metadata
            else None,
        }
        rows.append(row)
    return rows


def vote_rows(verdicts: Sequence[CaseVerdict]) -> list[Row]:
    """One row per vote: the case and its verdict, the juror, its vote's status and own
    verdict and how sure it was of it (``probability``, the whole ``distribution`` as a JSON
    text and where it came from: ``logprobs`` or ``samples``; empty where the vote has none),
    its value per metric (``metric.NAME``), its reason or error, the model that served it and
    what its calls cost; an invalid vote's last reply, verbatim."""
    metrics = list(dict.fromkeys(n for v in verdicts for vote in v.votes for n in vote.scores))
    rows = []
    for verdict in verdicts:
        dissenters = {d.juror for d in verdict.dissent}
        for vote in verdict.votes:
            row: Row = {
                "case_id": verdict.case_id,
                "category": verdict.category,
                "case_verdict": verdict.verdict.value,
                "juror": vote.juror,
                "status": vote.status.value,
                "verdict": vote.verdict.value if vote.verdict else None,
                "dissent": vote.juror in dissenters,
                "probability": vote.probability,
                "distribution": None
                if vote.distribution is None
                else json.dumps(vote.distribution, sort_keys=True),
                "probability_from": vote.probability_from,
            }
            for name in metrics:
                row[f"metric.{name}"] = vote.scores.get(name)
            calls = vote.calls
            row |= {
                "reason": vote.reason,
                "error": vote.error,
                "samples": len(vote.samples),
                "served_by": vote.served_by,
                "offline": vote.offline,
                "fake": vote.fake,
                "attempts": calls.attempts,
                "reasks": calls.reasks,
                "cache_hits": calls.cache_hits,
                "input_tokens": calls.input_tokens,
                "output_tokens": calls.output_tokens,
                "cached_tokens": calls.cached_tokens,
                "cost": calls.cost,
                "latency_s": calls.latency_s,
                "raw": vote.raw,
            }
            rows.append(row)
    return rows


def _csv_cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def _write_csv(rows: Sequence[Row], out: IO[str]) -> None:
    columns = list(rows[0]) if rows else []
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({key: _csv_cell(value) for key, value in row.items()})


def _write_jsonl(rows: Sequence[Row], out: IO[str]) -> None:
    for row in rows:
        out.write(json.dumps(row, ensure_ascii=False) + "\n")


def _parquet_column(values: list[Any]) -> list[Any]:
    """A column of one type: a metric whose values mix numbers and words (a category scale
    beside a number) is written as text, every value as it reads."""
    kinds = {type(v) for v in values if v is not None}
    if str in kinds and len(kinds) > 1:
        return [None if v is None else str(v) for v in values]
    if kinds == {int, float}:
        return [None if v is None else float(v) for v in values]
    return values


def _write_parquet(rows: Sequence[Row], path: Path) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ConfigError(
            "--format parquet needs pyarrow: pip install 'aiojury[parquet]'"
        ) from None
    columns = list(rows[0]) if rows else []
    table = pa.table({name: _parquet_column([row[name] for row in rows]) for name in columns})
    pq.write_table(table, path)


def write_rows(rows: Sequence[Row], fmt: str, out: IO[str] | None, path: Path | None) -> None:
    """Write `rows` as `fmt` to `path`, or to `out` (text formats only)."""
    if fmt == "parquet":
        if path is None:
            raise ConfigError(
                "--format parquet writes a file (binary, not for standard output): "
                "give --output PATH"
            )
        _write_parquet(rows, path)
        return
    writer = _write_csv if fmt == "csv" else _write_jsonl
    if path is None:
        assert out is not None
        writer(rows, out)
        return
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer(rows, handle)
