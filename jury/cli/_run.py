"""`jury run CASES [--jury FILE]`: judge a cases file, record the run, report, exit with the gate.

The steps: `panel_for` (the panel from the arguments), `open_cache`, `open_record` (a new
run directory, or the one being resumed), `judge_cases` (the event loop: verdicts are
recorded as they arrive), and `publish` (summary, HTML, JUnit and the terminal report, from
the records alone).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .._errors import ConfigError
from .._verdict import CaseVerdict
from ..adapters._agent import Agent
from ..batch._run import batch_jurors
from ..cases._subset import Selection, Subset
from ..engine._cache import SqliteCache, default_cache_dir
from ..engine._jury import Jury
from ..panel._agent_spec import AgentSettings
from ..panel._panel import Panel
from ..report._progress import RunProgress
from ..report._publish import JudgedCases, publish
from ..runs._cases_file import CasesFile
from ..runs._interrupt import Interrupted, run_interruptible
from ..runs._records import Redactor
from ..runs._shards import Shard
from ._options import (
    add_case_arguments,
    add_check_options,
    add_output_arguments,
    add_panel_options,
    add_report_paths,
    add_subset_options,
    case_source,
    checks_for,
    panel_for,
    report_paths,
    subset_from,
)
from ._run_agent import (
    AnswerNotice,
    add_agent_arguments,
    agent_for,
    answers_source,
    refuse_nothing_to_judge,
    resumed_agent,
)
from ._run_batches import (
    batch_run,
    judge_batches,
    print_pending,
    resumed_arguments,
)
from ._run_record import cases_file, judge_cases, open_record, run_dir
from ._run_repeat import run_repeats

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
    parser.add_argument("--concurrency", type=int, help="cases judged at once")
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
    add_report_paths(parser)
    parser.add_argument(
        "--otel",
        action="store_true",
        help="emit each vote as an OpenTelemetry gen_ai.evaluation.result event "
        "(needs aiojury[otel]; also JURY_OTEL=1)",
    )
    add_check_options(parser)
    add_agent_arguments(parser)
    parser.set_defaults(handler=run)


def open_cache(args: argparse.Namespace, redactor: Redactor) -> SqliteCache | None:
    if args.no_cache:
        return None
    return SqliteCache(
        args.cache_dir or default_cache_dir(), refresh=args.refresh, redact=redactor.text
    )


def run(args: argparse.Namespace) -> int:
    from .._logging import configure_logging

    configure_logging(args.verbose, json=args.log_json)
    answers_source(args)
    resumed_arguments(args)
    resumed_agent(args)
    if not args.cases:
        raise ConfigError("give a cases file, or --resume RUN")
    panel = panel_for(args)
    shard = Shard.parse(args.shard, args.shard_limits) if args.shard else None
    if shard is not None:
        panel = shard.panel(panel)
    # Resolved first: a missing file, module or function stops the run before any call.
    agent, agent_settings = agent_for(args, panel)
    if args.repeat is not None:
        return run_repeats(args, run, agent=agent is not None)
    subset, redactor = subset_from(args), Redactor(args.redact)
    where = run_dir(args)
    # A new run's cases.jsonl is written as the cases are validated: one parse, not two (with
    # an agent, the record writes each case as the agent answers it).
    written = None if agent is not None else cases_file(args, where, subset, shard, redactor)
    try:
        return _run(args, panel, shard, subset, redactor, where, written, agent, agent_settings)
    finally:
        if written is not None:
            written.discard()  # a no-op once the record holds it


def _run(
    args: argparse.Namespace,
    panel: Panel,
    shard: Shard | None,
    subset: Subset,
    redactor: Redactor,
    where: tuple[Path, bool],
    written: CasesFile | None,
    agent: Agent | None,
    agent_settings: AgentSettings,
) -> int:
    with_images: list[str] = []
    source = case_source(args, panel, None if written is None else written.add, with_images)
    selection = Selection.of(source, subset, source.count)
    if shard is not None:
        selection = shard.narrow(selection)
    checks = checks_for(args, panel)
    batch = any(batch_jurors(panel, all_jurors=args.batch))
    if batch and agent is not None:
        raise ConfigError("--agent: not in batch mode yet; run the agent online")
    if args.submit_only and not batch:
        raise ConfigError("--submit-only: only in batch mode (--batch, or a [batch] table)")
    if batch and args.max_cost is not None:
        raise ConfigError(
            "--max-cost: a batch's cost is committed when it is sent; check it first with "
            "`jury estimate --batch`"
        )
    if args.dry_run:
        from ..report._estimate import print_estimate

        try:
            return print_estimate(
                panel, selection.cases(), checks=checks, judge_all=args.judge_all, batch=batch
            )
        finally:
            source.close()
    # Without an agent a case must have an answer; the cases written as they were validated
    # say so without reading them again.
    if agent is None and not args.resume and (written is None or not written.answered):
        refuse_nothing_to_judge(selection.cases())
    from ..panel._images import agent_images, image_warnings
    from ..panel._lifecycle import agent_lifecycle
    from ..panel._warnings import panel_warnings

    # Said before the run (a long run should not hide them until the end) and in the report.
    warnings = panel_warnings(panel, agent)
    # Only the cases this run takes count (--ids, --shard, --limit ... may leave the
    # image cases out).
    if selection.ids is not None:
        with_images = [case_id for case_id in with_images if case_id in selection.ids]
    warnings += image_warnings(panel, with_images)
    warnings += agent_images(agent, with_images)
    if agent is not None and (said := agent_lifecycle(agent, panel)) is not None:
        warnings.append(said)
    for warning in warnings:
        print(f"jury: warning: {warning}", file=sys.stderr)
    cache = open_cache(args, redactor)
    if cache is not None and cache.notice is not None:
        print(f"jury: {cache.notice}", file=sys.stderr)
    try:
        jury = Jury(
            panel, cache=cache, max_cost=args.max_cost, checks=checks, judge_all=args.judge_all
        )
        on_verdict = _otel_hook(args)
        calling = (agent, agent_settings) if agent is not None else None
        notice = AnswerNotice()
        with open_record(
            args, jury, panel, source, selection, redactor, cache, shard, calling, where, written
        ) as record:
            done = len(record.finished())
            judged: JudgedCases | None = None
            try:
                with RunProgress(selection.count, done=done, mode=args.progress) as progress:
                    if batch:
                        batched = batch_run(args, panel, record.path, cache, checks)
                        jury = batched.jury
                        result = run_interruptible(
                            judge_batches(
                                batched, record, selection, progress, on_verdict, args.submit_only
                            )
                        )
                    else:
                        # A new run's cases all pass through here (a resumed one's only in
                        # part); with an agent, the judged case is the answered one, which
                        # the record holds: the reports read it there.
                        if agent is None:
                            judged = JudgedCases(redactor, report_paths(args).html_cases)
                        run_interruptible(
                            judge_cases(
                                jury,
                                record,
                                selection,
                                progress,
                                on_verdict,
                                calling,
                                notice,
                                judged,
                            )
                        )
            except Interrupted as stop:
                recorded = len(record.finished())
                print(
                    f"jury: interrupted ({stop.name}): {recorded} of {selection.count} cases "
                    f"recorded; `jury run --resume {record.path}` continues",
                    file=sys.stderr,
                )
                return stop.exit_code
            notice.say()
            if batch and not result.finished:
                return print_pending(result, record.path, batched.settings.in_flight)
            _say_resumed(record.path, done, selection.count)
            if cache is not None:
                cache.close()
                if cache.error is not None:
                    print(f"jury: some replies were not cached: {cache.error}", file=sys.stderr)
            summary = publish(
                record.path,
                panel,
                jury.rubric,  # loaded once, by the jury: the reports reuse it
                jurors=jury.jurors,
                warnings=[*warnings, *jury.warnings],
                checks=checks.names if checks is not None else (),
                judge_all=args.judge_all,
                paths=report_paths(args),
                offline_hint=args.jury is None,
                judged=judged,
            )
            record.finish(exit_code=summary.exit_code(panel.gate))
    finally:
        source.close()
        if cache is not None:
            cache.close()
    return summary.exit_code(panel.gate)


def _say_resumed(path: Path, done: int, count: int) -> None:
    """On a resumed run, say what was already there (a finished run is reported again with
    no call, and says so rather than staying silent)."""
    if done >= count:
        print(f"jury: {path} already complete: {done} verdicts, 0 calls", file=sys.stderr)
    elif done:
        print(
            f"jury: resumed {path}: {done} verdicts already recorded, {count - done} judged now",
            file=sys.stderr,
        )


def _otel_hook(args: argparse.Namespace) -> Callable[[CaseVerdict], None] | None:
    import os

    if not (args.otel or os.environ.get("JURY_OTEL") == "1"):
        return None
    from ..report._otel_events import VerdictEvents

    return VerdictEvents().emit
