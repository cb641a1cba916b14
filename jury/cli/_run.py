"""`jury run CASES [--jury FILE]`: judge a cases file, record the run, report, exit with the gate.

The steps: `panel_for` (the panel from the arguments), `open_cache`, `open_record` (a new
run directory, or the one being resumed), `judge_cases` (the event loop: verdicts are
recorded as they arrive), and `publish` (summary, HTML, JUnit and the terminal report, from
the records alone).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .._batch_dispatch import eta
from .._batch_run import BatchRun, BatchRunResult, batch_jurors
from .._batch_store import BatchStore
from .._cache import SqliteCache, default_cache_dir
from .._case import Case, iter_cases, validate_cases
from .._errors import ConfigError
from .._jury import Jury
from .._panel import Panel
from .._records import (
    Redactor,
    RunRecord,
    build_manifest,
    file_digest,
    jury_identity,
    new_run_dir,
    panel_record,
    prompt_hashes,
    require_manifest,
)
from .._shards import Shard
from .._verdict import CaseVerdict
from ..checks._suite import CheckSuite
from ..report._progress import RunProgress
from ..report._publish import publish
from ._options import add_output_arguments, add_panel_options, panel_for

__all__ = ["register"]

#: A batch run that sent its batches and stopped before they ended (``--submit-only``).
EXIT_PENDING = 3


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "run",
        help="judge a cases file, record the run and report",
        description="Judge every case of a JSONL file with the panel, record the run in a "
        "directory, print the report, and exit 0 (gate passed), 1 (failed), 2 (usage error) "
        "or 3 (inconclusive).",
    )
    parser.add_argument(
        "cases", nargs="?", help="cases file (JSONL, one case per line); with --resume: the run's"
    )
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
    parser.add_argument(
        "--otel",
        action="store_true",
        help="emit each vote as an OpenTelemetry gen_ai.evaluation.result event "
        "(needs aiojury[otel]; also JURY_OTEL=1)",
    )
    checks = parser.add_argument_group("checks")
    checks.add_argument(
        "--no-checks", action="store_true", help="skip the deterministic checks (judges only)"
    )
    checks.add_argument(
        "--judge-all",
        action="store_true",
        help="ask the judges even when a required check failed (for agreement studies)",
    )
    parser.set_defaults(handler=run)


def open_cache(args: argparse.Namespace, redactor: Redactor) -> SqliteCache | None:
    if args.no_cache:
        return None
    return SqliteCache(
        args.cache_dir or default_cache_dir(), refresh=args.refresh, redact=redactor.text
    )


def _run_dir(args: argparse.Namespace) -> tuple[Path, bool]:
    """Where the run is recorded, and whether it resumes a run already there."""
    if args.resume:
        if args.out and Path(args.out) != Path(args.resume):
            raise ConfigError("give either --out or --resume, or the same directory to both")
        return Path(args.resume), True
    if args.out:
        path = Path(args.out)
        return path, (path / "manifest.json").exists()
    return new_run_dir(), False


def open_record(
    args: argparse.Namespace,
    jury: Jury,
    panel: Panel,
    count: int,
    redactor: Redactor,
    cache: SqliteCache | None,
    shard: Shard | None = None,
) -> RunRecord:
    path, resume = _run_dir(args)
    if resume:
        manifest = require_manifest(path)
        _same_run(manifest, args.cases, panel, jury)
        _same_shard(manifest, shard)
        return RunRecord.resume(path, redactor)
    manifest = build_manifest(
        run_id=path.name,
        panel=panel,
        rubric=jury.rubric,
        cases_path=args.cases,
        cases_count=count,
        prompts=prompt_hashes(jury.rubric, iter_cases(args.cases, validate=False)),
        jury_file=args.jury,
        cache=str(cache.path) if cache is not None else None,
        redact_patterns=redactor.patterns,
    )
    # What a run resumed by its directory alone must do again as it did.
    for option in ("batch", "no_checks", "judge_all"):
        if getattr(args, option):
            manifest[option] = True
    if shard is not None:
        manifest["shard"] = shard.record(count)
    return RunRecord.create(path, manifest, cases_of(args.cases, shard), redactor)


def cases_of(path: str, shard: Shard | None) -> Iterator[Case]:
    """The cases of the file (the shard's only, with one)."""
    cases = iter_cases(path, validate=False)
    return shard.select(cases) if shard is not None else cases


def _same_run(manifest: dict[str, Any], cases: str, panel: Panel, jury: Jury) -> None:
    """A resumed run must judge the same cases with the same panel and rubric."""
    changed = []
    if manifest["cases"]["sha256"] != file_digest(cases):
        changed.append("the cases file")
    if jury_identity(manifest["jury"]) != jury_identity(
        json.loads(json.dumps(panel_record(panel)))
    ):
        changed.append("the jury")
    if manifest["rubric"]["fingerprint"] != jury.rubric.fingerprint():
        changed.append("the rubric")
    if changed:
        raise ConfigError(
            f"cannot resume: {' and '.join(changed)} changed since the run started; "
            "start a new run (another --out)"
        )


def _same_shard(manifest: dict[str, Any], shard: Shard | None) -> None:
    recorded = manifest.get("shard")
    then = f"{recorded['index']}/{recorded['count']}" if recorded else None
    if then != (str(shard) if shard else None):
        raise ConfigError(
            f"cannot resume: the run judged shard {then or '(all cases)'}, not "
            f"{shard or '(all cases)'}"
        )


def resumed_arguments(args: argparse.Namespace) -> None:
    """What a resumed run takes from its manifest when the command line leaves it out: the
    cases file, the jury file, batch mode, the checks and the shard (``jury run --resume
    RUN``)."""
    run = args.resume or (
        args.out if args.out and (Path(args.out) / "manifest.json").exists() else None
    )
    if run is None:
        return
    manifest = require_manifest(run)
    where = Path(manifest.get("cwd") or ".")
    if not args.cases:
        args.cases = str(where / manifest["cases"]["path"])
    if not args.jury and manifest.get("jury_file"):
        args.jury = str(where / manifest["jury_file"])
    for option in ("batch", "no_checks", "judge_all"):
        setattr(args, option, getattr(args, option) or bool(manifest.get(option)))
    recorded = manifest.get("shard")
    if not args.shard and recorded:
        args.shard = f"{recorded['index']}/{recorded['count']}"
        args.shard_limits = recorded.get("limits", "divided")


async def judge_cases(
    jury: Jury,
    record: RunRecord,
    cases: str,
    progress: RunProgress,
    on_verdict: Callable[[CaseVerdict], None] | None = None,
    shard: Shard | None = None,
) -> None:
    """Judge the cases that have no verdict yet, recording each one as it finishes."""
    finished = record.finished()
    todo = (case for case in cases_of(cases, shard) if case.id not in finished)
    async with jury:
        async for verdict in jury.evaluate(todo):
            record.append(verdict)
            progress.add(verdict)
            if on_verdict is not None:
                on_verdict(verdict)


async def judge_batches(
    run: BatchRun,
    record: RunRecord,
    cases: str,
    shard: Shard | None,
    progress: RunProgress,
    on_verdict: Callable[[CaseVerdict], None] | None,
    submit_only: bool,
) -> BatchRunResult:
    """Judge the cases without a verdict through provider batches (`jury._batch_run`)."""
    finished = record.finished()

    def todo() -> Iterator[Case]:
        return (case for case in cases_of(cases, shard) if case.id not in finished)

    def decided(verdict: CaseVerdict) -> None:
        finished.add(verdict.case_id)
        record.append(verdict)
        progress.add(verdict)
        if on_verdict is not None:
            on_verdict(verdict)

    async with run:
        return await run.run(todo, decided, submit_only=submit_only)


def _pending(result: BatchRunResult, run_dir: Path) -> int:
    """Say what a batch run waits for and when to come back; the exit code (3)."""
    batches = len(result.pending)
    print(
        f"Pending: {result.waiting} case{'s' * (result.waiting != 1)} wait on {batches} "
        f"batch{'es' * (batches != 1)}:"
    )
    for row in result.pending:
        counts = ", ".join(f"{name} {n}" for name, n in row.counts.items())
        where = row.provider_id or "(not sent yet)"
        print(
            f"  {row.model}  {where}  {row.status or row.state}  {row.requests} requests  {counts}"
        )
    print(f"Come back with: jury run --resume {run_dir}  ({eta(result.pending)})")
    return EXIT_PENDING


def run(args: argparse.Namespace) -> int:
    from .._logging import configure_logging

    configure_logging(args.verbose, json=args.log_json)
    resumed_arguments(args)
    if not args.cases:
        raise ConfigError("give a cases file, or --resume RUN")
    count = validate_cases(args.cases)
    panel = panel_for(args)
    shard = Shard.parse(args.shard, args.shard_limits) if args.shard else None
    if shard is not None:
        panel = shard.panel(panel)
        count = sum(1 for _ in cases_of(args.cases, shard))
    batch = any(batch_jurors(panel, all_jurors=args.batch))
    if args.submit_only and not batch:
        raise ConfigError("--submit-only: only in batch mode (--batch, or a [batch] table)")
    if batch and args.max_cost is not None:
        raise ConfigError(
            "--max-cost: a batch's cost is committed when it is sent; check it first with "
            "`jury estimate --batch`"
        )
    if args.dry_run:
        from ..report._estimate import print_estimate

        return print_estimate(Jury(panel), args.cases, batch=batch)
    from .._panel_warnings import panel_warnings

    # Said before the run (a long run should not hide them until the end) and in the report.
    warnings = panel_warnings(panel)
    for warning in warnings:
        print(f"jury: warning: {warning}", file=sys.stderr)
    redactor = Redactor(args.redact)
    cache = open_cache(args, redactor)
    try:
        checks = None if args.no_checks else CheckSuite.from_settings(panel.checks)
        jury = Jury(
            panel, cache=cache, max_cost=args.max_cost, checks=checks, judge_all=args.judge_all
        )
        on_verdict = _otel_hook(args)
        with open_record(args, jury, panel, count, redactor, cache, shard) as record:
            done = len(record.finished())
            with RunProgress(count, done=done, mode=args.progress) as progress:
                if batch:
                    batched = _batch_run(args, panel, record.path, cache, checks)
                    jury = batched.jury
                    result = asyncio.run(
                        judge_batches(
                            batched,
                            record,
                            args.cases,
                            shard,
                            progress,
                            on_verdict,
                            args.submit_only,
                        )
                    )
                else:
                    asyncio.run(judge_cases(jury, record, args.cases, progress, on_verdict, shard))
            if batch and not result.finished:
                return _pending(result, record.path)
            if cache is not None:
                cache.close()
                if cache.error is not None:
                    print(f"jury: some replies were not cached: {cache.error}", file=sys.stderr)
            summary = publish(
                record.path,
                panel,
                jury.rubric.name,
                jurors=jury.jurors,
                warnings=[*warnings, *jury.warnings],
                checks=checks.names if checks is not None else (),
                judge_all=args.judge_all,
            )
            record.finish(exit_code=summary.exit_code(panel.gate))
    finally:
        if cache is not None:
            cache.close()
    return summary.exit_code(panel.gate)


def _batch_run(
    args: argparse.Namespace,
    panel: Panel,
    run_dir: Path,
    cache: SqliteCache | None,
    checks: CheckSuite | None,
) -> BatchRun:
    quiet = args.progress == "none"

    def notify(line: str) -> None:
        if not quiet:
            print(f"jury: {line}", file=sys.stderr, flush=True)

    batched = BatchRun(
        panel,
        BatchStore(run_dir),
        all_jurors=args.batch,
        cache=cache,
        checks=checks,
        judge_all=args.judge_all,
        notify=notify,
    )
    for model in batched.online:
        notify(f"{model} has no batch API: judged online")
    return batched


def _otel_hook(args: argparse.Namespace) -> Callable[[CaseVerdict], None] | None:
    import os

    if not (args.otel or os.environ.get("JURY_OTEL") == "1"):
        return None
    from .._otel import VerdictEvents

    return VerdictEvents().emit
