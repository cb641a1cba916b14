"""`jury rescore RUN`: a shell over `jury.rescore` (the verdicts a recorded run gives under
other rules, with no judge call): its flags are the options, its report printed, its exit
code the new run's."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..runner._rescore import AGGREGATIONS, RescoreOptions, rescore_options

__all__ = ["register"]


def register(sub: Any) -> None:
    from ._options import add_output_arguments, add_report_paths, add_subset_options

    parser: argparse.ArgumentParser = sub.add_parser(
        "rescore",
        help="decide a recorded run again under other rules, without calling a judge",
        description="Recompute the verdicts of a recorded run from its votes under a new "
        "aggregation, quorum, tie policy or threshold. Makes no judge call. Writes a new run "
        "directory and exits like `jury run`.",
    )
    parser.add_argument("run", metavar="RUN", help="a run directory")
    parser.add_argument("--aggregation", choices=AGGREGATIONS, help="how votes combine")
    parser.add_argument(
        "--calibration",
        metavar="FIT",
        help="decide with the learned jury of this fit file (jury calibrate --fit)",
    )
    parser.add_argument("--quorum", type=int, help="valid votes a verdict needs")
    parser.add_argument("--ties", choices=("inconclusive", "fail", "pass"), help="tie policy")
    parser.add_argument(
        "--threshold", type=float, help="pass threshold for every metric, overriding the run's"
    )
    parser.add_argument(
        "--min-pass-rate", type=float, help="the gate's required pass rate (0 to 1)"
    )
    parser.add_argument(
        "--require-every-juror",
        action="store_true",
        help="hold INCONCLUSIVE a case on which a juror has no valid vote "
        "([gate] require_every_juror)",
    )
    parser.add_argument(
        "--gate-on",
        choices=("estimate", "lower_bound"),
        help="hold --min-pass-rate by the pass rate, or by its interval's lower bound ([gate] on)",
    )
    parser.add_argument(
        "--interval",
        choices=("wilson", "exact"),
        help="the pass rate's interval: Wilson's or Clopper-Pearson's ([gate] interval)",
    )
    parser.add_argument("--level", type=float, help="the interval's level ([gate] level)")
    parser.add_argument("--out", metavar="DIR", help="where to write (default runs/<time>-<id>)")
    add_subset_options(parser)
    add_output_arguments(parser)
    add_report_paths(parser, no_html=True)
    parser.set_defaults(handler=_handle)


def _handle(args: argparse.Namespace) -> int:
    from .._logging import configure_logging
    from ..report import print_report

    configure_logging(args.verbose, json=args.log_json)
    found = rescore_options(Path(args.run), RescoreOptions.of(args))
    print_report(found)
    return found.exit_code
