"""`jury check-quotes CASES [--sources PATH ...]`: every point's quote, found word for word.

Before any run, and free: each case file line is read (a bad line is refused with every bad
line named, exit 2), and each point that carries a ``quote`` is looked up in the case's own
sources (retrieved context, tool results) and in the source files given (a file, or every
file under a folder). The rules are `jury.checks._quotes`'s. Prints one line per quote, then
"N of M quotes found word for word"; exits 0 when every quote is found, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .. import load_cases
from .._errors import ConfigError
from ..checks._quotes import QuoteCheck, case_sources, quote_source, quoted_points, read_library

__all__ = ["register"]


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "check-quotes",
        help="check that every point's quote occurs word for word in the sources (free)",
        description="Check a cases file before any run: every point's quote must occur word "
        "for word (whitespace aside; an ellipsis marks words left out) in the case's "
        "retrieved context or tool results, or in the source files given. Exit 0 when all "
        "are found, 1 when any is not, 2 for a bad file.",
    )
    parser.add_argument("cases", help="cases file (JSONL, one case per line)")
    parser.add_argument(
        "--sources",
        metavar="PATH",
        action="append",
        default=[],
        help="a source file, or a folder of them, to look quotes up in (repeatable)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    cases = load_cases(args.cases)
    try:
        library = read_library(args.sources)
    except ValueError as exc:
        raise ConfigError(f"--sources: {exc}") from None
    checked = [
        QuoteCheck(
            case.id, point.id, point.quote, quote_source(point.quote, case_sources(case) + library)
        )
        for case in cases
        for point in quoted_points(case)
        if point.quote
    ]
    out = sys.stdout
    if not checked:
        print(f"No point of the {len(cases)} cases carries a quote: nothing to check.", file=out)
        return 0
    for item in checked:
        if item.found_in is not None:
            print(f"✓ {item.case_id} {item.point}: found in {item.found_in}", file=out)
        else:
            shown = item.quote if len(item.quote) <= 80 else item.quote[:79] + "…"
            print(f'✗ {item.case_id} {item.point}: not found: "{shown}"', file=out)
    found = sum(item.found_in is not None for item in checked)
    print(f"{found} of {len(checked)} quotes found word for word", file=out)
    return 0 if found == len(checked) else 1
