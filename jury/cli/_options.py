"""What the commands share: the options that choose a panel or set the output, and reading
a recorded run's rubric. No command imports another; each imports from here."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from .._case import Case
from .._defaults import default_panel
from .._errors import ConfigError
from .._panel import Panel, load_panel
from .._registry import load_rubric
from .._verdict import CaseVerdict, Metric

__all__ = [
    "add_output_arguments",
    "add_panel_options",
    "manifest_rubric",
    "panel_for",
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


def rubric_metrics(
    name: str | None, verdicts: Sequence[CaseVerdict], required: bool
) -> tuple[Metric, ...] | None:
    """The rubric's metrics (declared values and levels), or None to infer them from votes."""
    if not name:
        return None
    try:
        rubric = load_rubric(name)
        probe = Case(id=verdicts[0].case_id if verdicts else "-", answer="")
        # A rubric whose metrics depend on the case (points) has none for a probe case:
        # then the metrics are read from the votes.
        return rubric.metrics(probe) or None
    except (ConfigError, ValueError, KeyError):
        if required:
            raise
        return None


def manifest_rubric(manifest: dict[str, Any]) -> str | None:
    rubric = manifest.get("rubric")
    if isinstance(rubric, dict):
        rubric = rubric.get("name") or rubric.get("path")
    return rubric if isinstance(rubric, str) else None
