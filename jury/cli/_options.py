"""What the commands share: the options that choose a panel or set the output, and reading
a recorded run's rubric. No command imports another; each imports from here."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from .._case import Case
from .._defaults import default_panel
from .._errors import ConfigError
from .._panel import Panel, load_panel, thresholds_problem
from .._registry import load_rubric
from .._verdict import CaseVerdict, Metric
from ..cases import FORMATS, CaseSource, field_map_problems, parse_map

__all__ = [
    "add_case_arguments",
    "add_output_arguments",
    "add_panel_options",
    "case_source",
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


def add_case_arguments(parser: argparse.ArgumentParser, help: str = "the cases") -> None:
    """The cases to read and how: the source, its format and where its fields are."""
    parser.add_argument(
        "cases",
        help=f"{help}: a file (JSONL, JSON, CSV, TSV, YAML, Parquet), - for standard input, "
        "or hf://owner/name[:split]",
    )
    parser.add_argument(
        "--map",
        metavar="FIELD=PATH",
        action="append",
        default=[],
        help="read a case field from a dotted path of each record (repeatable), such as "
        "golden_answer=expected.answer; adds to the jury file's [fields]",
    )
    parser.add_argument(
        "--format", choices=FORMATS, help="the cases file's format (default: from its name)"
    )


def case_source(args: argparse.Namespace, panel: Panel) -> CaseSource:
    """The cases of the arguments, read with the panel's field map (``[fields]`` and
    ``--map``), checked whole; how they were read is said on stderr."""
    import sys

    source = CaseSource(args.cases, fields=panel.fields, format=args.format)
    try:
        source.validate()
    except BaseException:
        source.close()
        raise
    for notice in source.notices:
        print(f"jury: note: {notice}", file=sys.stderr)
    return source


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
    if getattr(args, "map", None):
        try:
            fields = {**panel.fields, **parse_map(args.map)}
        except ValueError as exc:
            raise ConfigError(f"--map {exc}") from None
        problems = field_map_problems(fields)
        if problems:
            raise ConfigError(f"--map: {'; '.join(problems)}")
        update["fields"] = fields
    panel = panel.model_copy(update=update) if update else panel
    if args.threshold is not None or args.rubric:
        problem = thresholds_problem(panel)
        if problem is not None:
            flag = f"--threshold {args.threshold:g}" if args.threshold is not None else "threshold"
            raise ConfigError(f"{flag}: {problem[1]}")
    return panel


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
