"""`jury report RUN`: a recorded run's reports again, where CI expects them; `jury report
--compare A B`: two runs side by side in one HTML page.

``jury report RUN`` prints the terminal report and writes ``--junit``, ``--html`` and
``--json`` copies; it leaves the run directory as it is and exits like the run did (0, 1 or
3). ``--compare`` writes the comparison page (``--html``, default ``compare-A-vs-B.html``)
and exits 0.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .._errors import ConfigError

__all__ = ["register"]


def register(sub: Any) -> None:
    from ._options import add_report_paths

    parser: argparse.ArgumentParser = sub.add_parser(
        "report",
        help="a recorded run's reports again, or two runs side by side (--compare A B)",
        description="Print a recorded run's terminal report and write its reports where asked "
        "(--junit, --html, --json), without touching the run; exit as the run's gate did. With "
        "--compare A B, write one HTML page with the two runs side by side.",
    )
    parser.add_argument("run", metavar="RUN", nargs="?", help="a run directory")
    parser.add_argument(
        "--compare", nargs=2, metavar=("A", "B"), help="two run directories to compare"
    )
    add_report_paths(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if bool(args.run) == bool(args.compare):
        raise ConfigError("jury report: give a run directory, or --compare A B (not both)")
    if args.compare:
        return _compare(args)
    from ..report._publish import print_published
    from ..report._run_reports import republish
    from ..runner._options import RunOptions, report_paths

    published = republish(args.run, report_paths(RunOptions.of(args)))
    print_published(published)
    return published.summary.exit_code(published.gate)


def _compare(args: argparse.Namespace) -> int:
    from ..report._compare_html import write_compare

    if args.junit or args.json:
        raise ConfigError("jury report --compare writes one HTML page: give --html PATH only")
    a, b = (Path(path) for path in args.compare)
    out = Path(args.html) if args.html else Path(f"compare-{a.name}-vs-{b.name}.html")
    warnings = _compare_warnings(a, b)
    for warning in warnings:
        print(f"jury: warning: {warning}", file=sys.stderr)
    comparison = write_compare(a, b, out, warnings)
    counts = ", ".join(f"{count} {name}" for name, count in comparison.changes.items() if count)
    print(f"jury report: {a} vs {b}: {counts or 'no case'}; written to {out}")
    return 0


def _compare_warnings(a: Path, b: Path) -> list[str]:
    """What `jury compare` says the comparison stands on (other juries, what degraded in
    either run), said on the page as in the terminal."""
    from ..runner._compare_juries import degradations, jury_changes
    from ..runner._result import Run

    runs_a, runs_b = [Run.open(a)], [Run.open(b)]
    return [
        *jury_changes(runs_a, runs_b)[1],
        *degradations("A", runs_a),
        *degradations("B", runs_b),
    ]
