"""`jury export RUN --format csv|jsonl|parquet`: a recorded run as a table, one row per case
(or per vote with ``--rows votes``), for a spreadsheet or a dataframe. Reads the records
only: no judge call, nothing written into the run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["register"]


def register(sub: Any) -> None:
    from ..report._export import FORMATS

    parser: argparse.ArgumentParser = sub.add_parser(
        "export",
        help="a recorded run as a table (CSV, JSON lines or Parquet)",
        description="Write a recorded run as a table: one row per case (its verdict, reasons, "
        "the panel's value per metric, each juror's verdict, checks, cost and the case's texts) "
        "or, with --rows votes, one row per vote (status, verdict, values, reason or error, the "
        "model that served it, tokens and cost). Parquet needs aiojury[parquet].",
    )
    parser.add_argument("run", metavar="RUN", help="a run directory")
    parser.add_argument("--format", choices=FORMATS, default="csv", help="default csv")
    parser.add_argument(
        "--rows", choices=("cases", "votes"), default="cases", help="one row per case (default)"
    )
    parser.add_argument(
        "-o", "--output", metavar="PATH", help="file to write (default: standard output)"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..report._export import case_rows, vote_rows, write_rows
    from ..runner._result import Run

    run = Run.open(args.run)
    verdicts = sorted(run.verdicts, key=lambda v: v.case_id)
    if args.rows == "votes":
        rows = vote_rows(verdicts)
    else:
        rows = case_rows(verdicts, {case.id: case for case in run.cases()})
    # "-" is standard output, as no -o is: nothing else is printed there (the count goes to
    # stderr), and a file named "-" was written instead.
    output = Path(args.output) if args.output and args.output != "-" else None
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
    write_rows(rows, args.format, sys.stdout, output)
    if output is not None:
        print(f"jury export: {len(rows)} rows ({args.rows}) written to {output}", file=sys.stderr)
    return 0
