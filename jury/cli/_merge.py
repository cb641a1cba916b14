"""`jury merge RUN... [--out DIR]`: the shards of one run (``jury run --shard i/n``) joined into
one run directory, published like a run, exiting with its gate."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
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
    from ..panel._panel import Panel
    from ..report._publish import publish
    from ..runs._merge import merge_runs
    from ..runs._records import new_run_dir

    configure_logging(args.verbose, json=args.log_json)
    out = Path(args.out) if args.out else new_run_dir()
    merged = merge_runs(args.runs, out, sys.argv)
    panel = Panel.model_validate(merged.manifest["jury"])
    rubric = merged.manifest["rubric"]["name"]
    summary = publish(out, panel, rubric, jurors=[juror.id for juror in panel.jurors])
    code = summary.exit_code(panel.gate)
    merged.record.finish(exit_code=code)
    return code
