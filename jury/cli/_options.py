"""What the commands share: the options that choose a panel or set the output, and reading
a recorded run's rubric. No command imports another; each imports from here."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .._defaults import default_panel
from .._panel import Panel, load_panel
from ..report._agreement import manifest_rubric, rubric_metrics
from ..report._publish import ReportPaths

__all__ = [
    "add_output_arguments",
    "add_panel_options",
    "add_report_paths",
    "manifest_rubric",
    "panel_for",
    "report_paths",
    "rubric_metrics",
]


def add_panel_options(parser: argparse.ArgumentParser) -> None:
    """The options that choose the panel, shared by the commands that build one."""
    parser.add_argument("--jury", metavar="FILE", help="jury file (TOML); default: offline jurors")
    parser.add_argument("--rubric", help="rubric name or file, overriding the jury file's")
    parser.add_argument(
        "--threshold", type=float, help="pass threshold for every metric, overriding the rubric's"
    )


def add_output_arguments(parser: argparse.ArgumentParser) -> None:
    """Progress and logging options, shared by the commands that judge or re-score."""
    parser.add_argument(
        "--progress",
        choices=("auto", "rich", "plain", "none"),
        default="auto",
        help="live progress on stderr: rich on a terminal, plain lines elsewhere (default auto)",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="log more (-v, -vv)")
    parser.add_argument("--log-json", action="store_true", help="log JSON lines to stderr")


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


def add_report_paths(parser: argparse.ArgumentParser) -> None:
    """``--junit``, ``--html``, ``--json``: copies of a run's reports where CI expects them."""
    group = parser.add_argument_group("report files (besides the run directory)")
    group.add_argument("--junit", metavar="PATH", help="write the JUnit XML report to PATH")
    group.add_argument("--html", metavar="PATH", help="write the HTML report to PATH")
    group.add_argument("--json", metavar="PATH", help="write the summary (JSON) to PATH")


def report_paths(args: argparse.Namespace) -> ReportPaths:
    def path(value: str | None) -> Path | None:
        return Path(value) if value else None

    return ReportPaths(junit=path(args.junit), html=path(args.html), json=path(args.json))
