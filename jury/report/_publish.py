"""Publishing a run: the summary, HTML and JUnit reports written into the run directory, and
the terminal report, all read back from the records (so a resumed or re-scored run reports
every case)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
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
from ._console import console_for
from ._summary import RunSummary, summarize

__all__ = ["ReportPaths", "publish"]

#: Runs up to this many cases get a per-case table in the terminal report.
CASE_TABLE_LIMIT = 60


@dataclass(frozen=True, slots=True)
class ReportPaths:
    """Where to write copies of a run's reports besides its directory (``--junit``,
    ``--html``, ``--json``: where CI expects them). None: no copy."""

    junit: Path | None = None
    html: Path | None = None
    json: Path | None = None


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
    paths: ReportPaths | None = None,
    offline_hint: bool = False,
    into_run: bool = True,
) -> RunSummary:
    """Write the summary, HTML and JUnit reports of a run and print the terminal report.

    Everything is read back from the run directory, so a resumed run reports every case, and
    `jury rescore` publishes the same way. The reports go into the run directory (unless
    `into_run` is false: `jury report` leaves a recorded run as it is) and to `paths`.
    """
    from ._conversation import conversation_line
    from ._html import render_html
    from ._junit import render_junit
    from ._terminal import CaseLine, ReportHeader, render_report

    verdicts = sorted(read_verdicts(run_dir), key=lambda v: v.case_id)
    cases = {case.id: case for case in read_cases(run_dir)}
    summary = summarize(verdicts, jurors)
    gate = panel.gate
    header = ReportHeader(
        rubric=rubric,
        jurors=tuple(jurors),
        offline_jurors=[name for name, stats in summary.jurors.items() if stats.offline],
        checks=checks,
        judge_all=judge_all,
        offline_hint=offline_hint,
    )
    paths = paths or ReportPaths()
    reports: dict[str, tuple[Path | None, Callable[[], str]]] = {
        SUMMARY: (paths.json, lambda: _summary_json(summary, gate)),
        REPORT: (
            paths.html,
            lambda: render_html(
                summary,
                verdicts,
                cases,
                header,
                gate,
                read_manifest(run_dir),
            ),
        ),
        JUNIT: (paths.junit, lambda: render_junit(verdicts, summary, name=f"aiojury {rubric}")),
    }
    for name, (copy, render) in reports.items():
        if not into_run and copy is None:
            continue
        text = render()
        if into_run:
            write_atomic(run_dir / name, text)
        if copy is not None:
            copy.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(copy, text)
    console = console_for(stream)
    lines = [CaseLine.of(v) for v in verdicts] if len(verdicts) <= CASE_TABLE_LIMIT else []
    conversations = {
        v.case_id: conversation_line(cases[v.case_id], v)
        for v in verdicts
        if v.case_id in cases and cases[v.case_id].turns
    }
    render_report(summary, header, console, gate=gate, cases=lines, conversations=conversations)
    for warning in warnings:
        console.print(f"[yellow]warning:[/] {warning}")
    if into_run:
        console.print(f"Run recorded in {run_dir}")
    for copy in (paths.junit, paths.html, paths.json):
        if copy is not None:
            console.print(f"Report written to {copy}")
    return summary


def _summary_json(summary: RunSummary, gate: Gate) -> str:
    data = summary.model_dump(mode="json")
    data["pass_rate"] = summary.pass_rate
    data["coverage"] = summary.coverage
    data["cost"] = summary.cost
    # Every call of the run, the jurors' and the model checks' (`check_calls`), added up.
    data["calls"] = asdict(summary.calls)
    data["gate"] = gate.model_dump(mode="json")
    data["exit_code"] = summary.exit_code(gate)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
