"""`jury run CASES [--jury FILE]`: the release gate from a shell.

A shell over `jury.run`: the flags become its options (named alike: ``--max-cost`` is
`max_cost`), its warnings and notes are printed as they are said, then the run's terminal
report, and the command exits with the run's code. Ctrl-C (SIGINT) and SIGTERM end it at
once, keeping what is recorded, with one line that says how to continue.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .._errors import RunRecordError
from ..report import print_report
from ..runner._main import run_options
from ..runner._notices import Kind, Notices
from ..runner._options import RunOptions
from ..runner._result import Run
from ..runs import Interrupted, run_interruptible
from ._options import (
    _count,
    add_case_arguments,
    add_check_options,
    add_output_arguments,
    add_panel_options,
    add_report_paths,
    add_subset_options,
)

__all__ = ["register"]


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "run",
        help="judge a cases file, record the run and report",
        description="Judge every case of a cases file with the panel, record the run in a "
        "directory, print the report, and exit 0 (gate passed), 1 (failed), 2 (usage error) "
        "or 3 (inconclusive).",
    )
    add_case_arguments(parser, "the cases (with --resume: the run's)", required=False)
    add_panel_options(parser)
    parser.add_argument("--concurrency", type=_count, help="cases judged at once")
    parser.add_argument(
        "--max-cost",
        type=float,
        metavar="USD",
        help="stop starting calls once this much is spent; cases left are INCONCLUSIVE",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="print the estimate of calls and cost; call nothing"
    )
    records = parser.add_argument_group("run records")
    records.add_argument(
        "--out",
        metavar="DIR",
        help="run directory (default runs/<UTC time>-<id>); a run already there is resumed",
    )
    records.add_argument(
        "--resume", metavar="RUN", help="finish the unfinished cases of the run in RUN"
    )
    records.add_argument(
        "--redact",
        metavar="PATTERN",
        action="append",
        default=[],
        help="regular expression removed from every stored text (repeatable); "
        "credentials are always removed",
    )
    cache = parser.add_argument_group("call cache")
    cache.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="where judge calls are cached (default $JURY_CACHE_DIR, else .jury-cache)",
    )
    choice = cache.add_mutually_exclusive_group()
    choice.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    choice.add_argument(
        "--refresh", action="store_true", help="ask every judge again and replace cached replies"
    )
    add_subset_options(parser)
    scale = parser.add_argument_group("batches and shards")
    scale.add_argument(
        "--batch",
        action="store_true",
        help="send the judges' calls through the providers' batch APIs: about half the price, "
        "results within hours (not for a quick PR gate)",
    )
    scale.add_argument(
        "--submit-only",
        action="store_true",
        help="in batch mode, exit 3 (pending) once the batches are sent; "
        "`jury run --resume RUN` collects them",
    )
    scale.add_argument(
        "--shard",
        metavar="I/N",
        help="judge the I-th of N slices of the cases (by a hash of the case ID); "
        "`jury merge` joins the shards' runs",
    )
    scale.add_argument(
        "--shard-limits",
        choices=("divided", "whole"),
        default="divided",
        help="each shard gets the jury file's account limits divided by N (default), or whole",
    )
    add_output_arguments(parser)
    add_report_paths(parser, no_html=True)
    parser.add_argument(
        "--otel",
        action="store_true",
        help="emit each vote as an OpenTelemetry gen_ai.evaluation.result event "
        "(needs aiojury[otel]; also JURY_OTEL=1)",
    )
    add_check_options(parser)
    add_agent_arguments(parser)
    parser.set_defaults(handler=run)


def add_agent_arguments(parser: argparse.ArgumentParser) -> None:
    agent = parser.add_argument_group("the system under test")
    agent.add_argument(
        "--agent",
        metavar="SPEC",
        help="call this agent for each case before judging it: path/to/file.py:function, "
        "package.module:function, an http(s):// endpoint or provider/model "
        '(default: the jury file\'s agent = "...")',
    )
    agent.add_argument(
        "--agent-prompt",
        metavar="FILE",
        help="for a provider/model agent: the prompt template ({{question}}, {{var}})",
    )
    agent.add_argument(
        "--answers",
        metavar="RUN",
        help="judge the answers recorded in RUN (its cases.jsonl) again, with this jury; "
        "the agent is not called",
    )
    agent.add_argument(
        "--repeat",
        type=int,
        metavar="N",
        help="call the agent N times per case and judge each answer (RUN/repeat-1 ... N); "
        "the report gives each case's stability",
    )
    agent.add_argument(
        "--require",
        type=int,
        metavar="K",
        help="with --repeat N: a case passes only when at least K of its N answers pass, and "
        "the gate decides on those verdicts ([gate] require)",
    )


def _say(kind: Kind, text: str) -> None:
    print(f"jury: {text}" if kind == "status" else f"jury: {kind}: {text}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    from .._logging import configure_logging

    configure_logging(args.verbose, json=args.log_json)
    options = RunOptions.of(args)
    if not (options.out or options.resume or options.dry_run):
        # Chosen here so that an interrupted run can say where it is recorded.
        options.out = str(Run.new_path())
    try:
        found = run_interruptible(run_options(options, Notices(_say)))
    except Interrupted as stop:
        print(f"jury: {_interrupted(stop, options)}", file=sys.stderr)
        return stop.exit_code
    print_report(found)
    return found.exit_code


def _interrupted(stop: Interrupted, options: RunOptions) -> str:
    """The one line an interrupted run says: how many cases are recorded, how to go on."""
    where = Path(options.resume or options.out or ".")
    said = f"interrupted ({stop.name})"
    if options.repeat:
        require = f" --require {options.require}" if options.require else ""
        return f"{said}; `jury run ... --repeat {options.repeat}{require} --out {where}` continues"
    try:
        recorded = Run.open(where)
        count = recorded.manifest.get("cases", {}).get("count")
        done = len(recorded.verdicts)
    except RunRecordError:  # nothing recorded yet (stopped while it read its cases)
        return f"{said} before any case was recorded"
    return f"{said}: {done} of {count} cases recorded; `jury run --resume {where}` continues"
