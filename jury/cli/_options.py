"""What the commands share: the options that choose a panel or set the output, and reading
a recorded run's rubric. No command imports another; each imports from here."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from ..cases import FORMATS
from ..report._agreement import manifest_rubric, rubric_metrics
from ..report._publish import HTML_CASES

__all__ = [
    "add_case_arguments",
    "add_check_options",
    "add_output_arguments",
    "add_panel_options",
    "add_report_paths",
    "add_subset_options",
    "manifest_rubric",
    "rubric_metrics",
]


def add_panel_options(parser: argparse.ArgumentParser) -> None:
    """The options that choose the panel, shared by the commands that build one."""
    parser.add_argument("--jury", metavar="FILE", help="jury file (TOML); default: offline jurors")
    parser.add_argument("--rubric", help="rubric name or file, overriding the jury file's")
    parser.add_argument(
        "--threshold", type=float, help="pass threshold for every metric, overriding the rubric's"
    )


def _count(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text}")
    return value


def _names(values: Sequence[str] | None) -> tuple[str, ...]:
    """Comma-separated and repeated values, in order, each once."""
    names = (name.strip() for value in values or () for name in value.split(","))
    return tuple(dict.fromkeys(name for name in names if name))


def add_subset_options(parser: argparse.ArgumentParser, *, seed: bool = True) -> None:
    """The options that pick a subset of the cases (`jury.Subset`), shared by the commands
    that read cases or verdicts. `seed=False` where the command has a ``--seed`` already."""
    group = parser.add_argument_group(
        "subset", "take only some cases; the filters apply in this order"
    )
    group.add_argument(
        "--ids", action="append", metavar="ID,ID", help="these cases only (repeatable)"
    )
    group.add_argument(
        "--category",
        action="append",
        metavar="NAME,NAME",
        help="cases of these categories only (repeatable)",
    )
    group.add_argument(
        "--sample",
        type=_count,
        metavar="N",
        help="a random sample of N cases, stratified by category (reproducible: --seed)",
    )
    group.add_argument("--limit", type=_count, metavar="N", help="the first N cases only")
    if seed:
        group.add_argument(
            "--seed", type=int, default=0, metavar="S", help="seed of --sample (default 0)"
        )


def add_check_options(parser: argparse.ArgumentParser) -> None:
    """The options that turn the deterministic checks off or keep the judges asked."""
    checks = parser.add_argument_group("checks")
    checks.add_argument(
        "--no-checks", action="store_true", help="skip the deterministic checks (judges only)"
    )
    checks.add_argument(
        "--judge-all",
        action="store_true",
        help="ask the judges even when a required check failed (for agreement studies)",
    )


def add_case_arguments(
    parser: argparse.ArgumentParser, help: str = "the cases", *, required: bool = True
) -> None:
    """The cases to read and how: the source, its format and where its fields are (not
    `required` where a resumed run can read them from its manifest)."""
    parser.add_argument(
        "cases",
        nargs=None if required else "?",
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
    parser.add_argument(
        "--root",
        metavar="PATH",
        help="the dotted path of the list of cases inside a JSON or YAML file whose top is an "
        "object (samples, testCases, examples)",
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


def add_report_paths(parser: argparse.ArgumentParser, *, no_html: bool = False) -> None:
    """``--junit``, ``--html``, ``--json``: copies of a run's reports where CI expects them;
    with `no_html`, ``--no-html`` (for the commands that write a run directory)."""
    group = parser.add_argument_group("report files (besides the run directory)")
    group.add_argument("--junit", metavar="PATH", help="write the JUnit XML report to PATH")
    group.add_argument("--html", metavar="PATH", help="write the HTML report to PATH")
    group.add_argument("--json", metavar="PATH", help="write the summary (JSON) to PATH")
    group.add_argument(
        "--html-cases",
        metavar="N",
        type=_cases,
        default=HTML_CASES,
        help="passing cases the HTML report shows at most, by case ID (every failed and "
        f"inconclusive case is shown; default {HTML_CASES})",
    )
    if no_html:
        group.add_argument(
            "--no-html",
            action="store_true",
            help="write no HTML report in the run directory (its agreement statistics need "
            "NumPy: 21 MB more at the peak of a 1,000-case run); `jury report RUN --html "
            "PATH` writes it later",
        )


def _cases(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number of cases, 0 or more, got {text}")
    return value
