"""`jury run CASES [--jury FILE]`: judge a cases file, print the report, exit with the gate."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from ._case import iter_cases, validate_cases
from ._check_suite import CheckSuite
from ._defaults import default_panel
from ._engine import Jury
from ._panel import Panel, load_panel
from ._summary import RunSummary, Tally

__all__ = ["register"]

#: Runs up to this many cases get a per-case table in the terminal report.
CASE_TABLE_LIMIT = 60


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "run",
        help="judge a cases file and report",
        description="Judge every case of a JSONL file with the panel, print the report, and "
        "exit 0 (gate passed), 1 (failed), 2 (usage error) or 3 (inconclusive).",
    )
    parser.add_argument("cases", help="cases file (JSONL, one case per line)")
    add_panel_options(parser)
    parser.add_argument("--concurrency", type=int, help="cases judged at once")
    parser.add_argument(
        "--max-cost",
        type=float,
        metavar="USD",
        help="stop starting calls once this much is spent; cases left are INCONCLUSIVE",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="print the estimate of calls and cost; call nothing"
    )
    parser.add_argument(
        "--no-checks", action="store_true", help="skip the deterministic checks (judges only)"
    )
    parser.add_argument(
        "--judge-all",
        action="store_true",
        help="ask the judges even when a required check failed (for agreement studies)",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="log more (-v, -vv)")
    parser.add_argument("--log-json", action="store_true", help="log JSON lines to stderr")
    parser.set_defaults(handler=run)


def add_panel_options(parser: argparse.ArgumentParser) -> None:
    """The options that choose the panel, shared by the commands that build one."""
    parser.add_argument("--jury", metavar="FILE", help="jury file (TOML); default: offline jurors")
    parser.add_argument("--rubric", help="rubric name or file, overriding the jury file's")
    parser.add_argument(
        "--threshold", type=float, help="pass threshold for every metric, overriding the rubric's"
    )


def panel_for(args: argparse.Namespace) -> Panel:
    panel = load_panel(args.jury) if args.jury else default_panel()
    update: dict[str, Any] = {}
    if args.rubric:
        update["rubric"] = args.rubric
    if args.threshold is not None:
        update["thresholds"] = {"*": args.threshold}
    if getattr(args, "concurrency", None):
        update["concurrency"] = args.concurrency
    return panel.model_copy(update=update) if update else panel


async def judge_file(jury: Jury, path: str, keep_lines: bool) -> tuple[RunSummary, list[Any]]:
    from ._report_terminal import CaseLine

    tally = Tally(jury.jurors)
    lines: list[CaseLine] = []
    async for verdict in jury.evaluate(iter_cases(path, validate=False)):
        tally.add(verdict)
        if keep_lines and len(lines) < CASE_TABLE_LIMIT:
            lines.append(CaseLine.of(verdict))
    lines.sort(key=lambda line: line.case_id)
    return tally.summary(), lines


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from ._logging import configure_logging
    from ._report_terminal import ReportHeader, render_report

    configure_logging(args.verbose, json=args.log_json)
    count = validate_cases(args.cases)
    panel = panel_for(args)
    if args.dry_run:
        from ._cmd_estimate import report

        return report(Jury(panel), args.cases)
    checks = None if args.no_checks else CheckSuite.from_settings(panel.checks)
    jury = Jury(panel, max_cost=args.max_cost, checks=checks, judge_all=args.judge_all)

    async def go() -> tuple[RunSummary, list[Any]]:
        async with jury:
            return await judge_file(jury, args.cases, count <= CASE_TABLE_LIMIT)

    summary, lines = asyncio.run(go())
    console = Console(file=sys.stdout, width=None if sys.stdout.isatty() else 120)
    header = ReportHeader(
        rubric=jury.rubric.name,
        jurors=jury.jurors,
        offline_jurors=[m.name for m in jury.models if m.offline],
        checks=checks.names if checks is not None else (),
        judge_all=args.judge_all,
    )
    render_report(summary, header, console, gate=panel.gate, cases=lines)
    for warning in jury.warnings:
        console.print(f"[yellow]warning:[/] {warning}")
    return summary.exit_code(panel.gate)
