"""`jury merge RUN... [--out DIR]`: the shards of one run (``jury run --shard i/n``) joined into
one run directory, published like a run, exiting with its gate."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["register"]


def register(sub: Any) -> None:
    from ._options import add_output_arguments

    parser: argparse.ArgumentParser = sub.add_parser(
        "merge",
        help="join the run directories of a run's shards into one",
        description="Join the run directories of `jury run --shard i/n` into one run directory: "
        "the shards must share the cases file, jury and rubric, each shard given once and none "
        "missing, each finished. Writes the summary, HTML and JUnit reports of the whole run "
        "and exits like `jury run` (0 passed, 1 failed, 2 usage error, 3 inconclusive).",
    )
    parser.add_argument("runs", nargs="+", metavar="RUN", help="the shards' run directories")
    parser.add_argument("--out", metavar="DIR", help="where to write (default runs/<time>-<id>)")
    add_output_arguments(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from .._logging import configure_logging
    from ..report import print_report
    from ..runner._merge import merge

    configure_logging(args.verbose, json=args.log_json)
    merged = merge(args.runs, out=args.out)
    print_report(merged)
    return merged.exit_code
