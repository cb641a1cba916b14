"""`jury estimate CASES [--jury FILE]` (also `jury run --dry-run`): the calls, tokens and cost
a run would make, without making a call."""

from __future__ import annotations

import argparse
from typing import Any

from .._jury import Jury
from ..report._estimate import print_estimate

__all__ = ["register"]


def register(sub: Any) -> None:
    from ._options import add_panel_options

    parser: argparse.ArgumentParser = sub.add_parser(
        "estimate",
        help="what a run would cost, without calling a judge",
        description="Count the calls, tokens and cost `jury run` would make on these cases.",
    )
    parser.add_argument("cases", help="cases file (JSONL, one case per line)")
    add_panel_options(parser)
    parser.add_argument(
        "--batch",
        action="store_true",
        help="also the cost through the providers' batch APIs (about half)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from .._case import validate_cases
    from ._options import panel_for

    validate_cases(args.cases)
    return print_estimate(Jury(panel_for(args)), args.cases, batch=args.batch)
