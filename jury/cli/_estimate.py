"""`jury estimate CASES [--jury FILE]` (also `jury run --dry-run`): the calls, tokens and cost
a run would make, without making a call."""

from __future__ import annotations

import argparse
from typing import Any

from .._jury import Jury
from ..report._estimate import print_estimate

__all__ = ["register"]


def register(sub: Any) -> None:
    from ._options import add_case_arguments, add_panel_options

    parser: argparse.ArgumentParser = sub.add_parser(
        "estimate",
        help="what a run would cost, without calling a judge",
        description="Count the calls, tokens and cost `jury run` would make on these cases.",
    )
    add_case_arguments(parser)
    add_panel_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ._options import case_source, panel_for

    panel = panel_for(args)
    cases = case_source(args, panel)
    try:
        return print_estimate(Jury(panel), cases)
    finally:
        cases.close()
