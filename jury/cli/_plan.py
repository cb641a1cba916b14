"""`jury plan [RUN]`: how many cases a decision needs, as a short table.

A shell over `jury.plan`: from a past run (its pass rate and size; ``--against RUN`` a second
run of the same cases, for the discordance the paired figures use) or a stated pass rate,
the cases an interval of ±w needs, the cases a drop of d points needs (paired, and with two
separate sets), and what the current size can and cannot detect.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

__all__ = ["register"]


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "plan",
        help="how many cases a decision needs (an interval's width, a drop to detect)",
        description="How many cases a decision needs, from a past run (its pass rate and "
        "size) or a stated pass rate: the cases that give the pass rate an interval no wider "
        "than ±W; the cases that detect a drop of D points between two versions with power "
        "0.8 at the level (paired, as `jury compare` tests them, from the discordance seen "
        "between RUN and --against when given; and with two separate sets); and what a set "
        "of the current size can and cannot detect. With neither --width nor --drop, both "
        "are 0.05.",
    )
    parser.add_argument("run", nargs="?", metavar="RUN", help="a past run to plan from")
    parser.add_argument(
        "--against",
        metavar="RUN",
        help="a second run of the same cases: the paired figures use the discordance seen",
    )
    parser.add_argument(
        "--pass-rate", type=float, metavar="P", help="the pass rate to plan for (0.9)"
    )
    parser.add_argument(
        "--cases", type=int, metavar="N", help="the set's current size, to say what it detects"
    )
    parser.add_argument(
        "--width",
        type=float,
        action="append",
        default=[],
        metavar="W",
        help="half-width of the interval wanted: 0.05 = ±5 points (repeatable)",
    )
    parser.add_argument(
        "--drop",
        type=float,
        action="append",
        default=[],
        metavar="D",
        help="drop in pass rate to detect: 0.05 = five points (repeatable)",
    )
    parser.add_argument("--level", type=float, help="confidence level (default 0.95)")
    parser.add_argument("--power", type=float, default=0.8, help="power (default 0.8)")
    parser.add_argument(
        "--interval",
        choices=("wilson", "exact"),
        help="the interval shown: Wilson's (default) or Clopper-Pearson's",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..runner._plan import plan

    found = plan(
        args.run,
        against=args.against,
        pass_rate=args.pass_rate,
        cases=args.cases,
        width=args.width,
        drop=args.drop,
        level=args.level,
        power=args.power,
        interval=args.interval,
    )
    if args.json:
        json.dump(found.model_dump(mode="json"), sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    from ..report._console import console_for

    console = console_for(sys.stdout)
    console.print(
        f"aiojury plan  ·  pass rate {found.pass_rate:.1%} ({escape(found.source)})  ·  "
        f"level {found.level:g}, power {found.power:g}"
    )
    table = Table(box=box.SIMPLE_HEAD, show_edge=False)
    table.add_column("question")
    table.add_column("cases", justify="right")
    table.add_column("how")
    for row in found.rows:
        cases = "-" if row.cases is None else f"{row.cases:,}"
        table.add_row(escape(row.question), cases, escape(row.how))
    console.print(table)
    return 0
