"""Publishing a run: the summary, HTML and JUnit reports written into the run directory, and
the terminal report, all read back from the records (so a resumed or re-scored run reports
every case)."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._panel import Gate, Panel
from .._records import (
    JUNIT,
    REPORT,
    SUMMARY,
    read_cases,
    read_manifest,
    read_verdicts,
    write_atomic,
)
from ._summary import RunSummary, summarize

__all__ = ["publish"]

#: Runs up to this many cases get a per-case table in the terminal report.
CASE_TABLE_LIMIT = 60


def publish(
    run_dir: Path,
    panel: Panel,
    rubric: str,
    *,
    jurors: Sequence[str],
    warnings: Sequence[str] = (),
    checks: Sequence[str] | None = None,
    judge_all: bool = False,
    stream: Any = None,
) -> RunSummary:
    """Write the summary, HTML and JUnit reports of a run and print the terminal report.

    Everything is read back from the run directory, so a resumed run reports every case, and
    `jury rescore` publishes the same way.
    """
    from rich.console import Console

    from ._html import render_html
    from ._junit import render_junit
    from ._terminal import CaseLine, ReportHeader, render_report

    verdicts = sorted(read_verdicts(run_dir), key=lambda v: v.case_id)
    summary = summarize(verdicts, jurors)
    gate = panel.gate
    header = ReportHeader(
        rubric=rubric,
        jurors=tuple(jurors),
        offline_jurors=[name for name, stats in summary.jurors.items() if stats.offline],
        checks=checks,
        judge_all=judge_all,
    )
    write_atomic(run_dir / SUMMARY, _summary_json(summary, gate))
    cases = {case.id: case for case in read_cases(run_dir)}
    manifest = read_manifest(run_dir)
    write_atomic(run_dir / REPORT, render_html(summary, verdicts, cases, header, gate, manifest))
    write_atomic(run_dir / JUNIT, render_junit(verdicts, summary, name=f"aiojury {rubric}"))
    stream = stream or sys.stdout
    console = Console(file=stream, width=None if stream.isatty() else 120)
    lines = [CaseLine.of(v) for v in verdicts] if len(verdicts) <= CASE_TABLE_LIMIT else []
    render_report(summary, header, console, gate=gate, cases=lines)
    for warning in warnings:
        console.print(f"[yellow]warning:[/] {warning}")
    console.print(f"Run recorded in {run_dir}")
    return summary


def _summary_json(summary: RunSummary, gate: Gate) -> str:
    data = summary.model_dump(mode="json")
    data["pass_rate"] = summary.pass_rate
    data["cost"] = summary.cost
    data["gate"] = gate.model_dump(mode="json")
    data["exit_code"] = summary.exit_code(gate)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
