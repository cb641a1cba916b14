"""`jury estimate CASES [--jury FILE]` (also `jury run --dry-run`): the calls, tokens and cost
a run would make, without making a call."""

from __future__ import annotations

import argparse
from typing import Any

from ..report._estimate import estimated

__all__ = ["register"]


def register(sub: Any) -> None:
    from ._options import (
        add_case_arguments,
        add_check_options,
        add_panel_options,
        add_subset_options,
    )

    parser: argparse.ArgumentParser = sub.add_parser(
        "estimate",
        help="what a run would cost, without calling a judge or needing a key",
        description="Count the calls, tokens and cost `jury run` would make on these cases: "
        "the checks run first (they are free) and a case they fail is not counted. No key is "
        "needed: a judge whose key is not set is priced from its name.",
    )
    add_case_arguments(parser)
    add_panel_options(parser)
    add_subset_options(parser)
    add_check_options(parser)
    parser.add_argument(
        "--batch",
        action="store_true",
        help="also the cost through the providers' batch APIs (about half)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..cases._subset import Selection
    from ..runner._options import RunOptions, case_source, checks_for, panel_for, subset_from

    options = RunOptions.of(args)
    panel = panel_for(options)
    source = case_source(options, panel)
    try:
        selection = Selection.of(source, subset_from(options), source.count)
        checks = checks_for(options, panel)
        estimated(
            panel, selection.cases(), checks=checks, judge_all=args.judge_all, batch=args.batch
        ).print()
        return 0
    finally:
        source.close()
