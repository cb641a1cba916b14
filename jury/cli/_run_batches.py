"""What `jury run` does for batch mode and shards: a run resumed from its directory alone,
the shard a resumed run must be, the passes through provider batches, and what a run that
stops with its batches pending says (exit 3).

Kept apart from ``jury.cli._run`` so that the command reads as the online run it mostly is.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .._errors import ConfigError
from .._verdict import CaseVerdict
from ..adapters._request import CallCache
from ..batch._dispatch import eta
from ..batch._run import BatchRun, BatchRunResult
from ..batch._store import BatchRow, BatchStore
from ..cases import FORMATS, parse_map
from ..cases._case import Case
from ..cases._subset import Selection
from ..checks._suite import CheckSuite
from ..panel._panel import Panel
from ..report._progress import RunProgress
from ..runs._records import RunRecord, require_manifest
from ..runs._shards import Shard

__all__ = [
    "EXIT_PENDING",
    "batch_run",
    "judge_batches",
    "print_pending",
    "record_options",
    "resumed_arguments",
    "same_shard",
]

#: A batch run that sent its batches and stopped before they ended (``--submit-only``).
EXIT_PENDING = 3

#: The run options a run resumed by its directory alone does again as it did.
RECORDED_OPTIONS = ("batch", "no_checks", "judge_all")


def resumed_arguments(args: argparse.Namespace) -> None:
    """What a resumed run takes from its manifest when the command line leaves it out: the
    cases file and how it was read, the jury file, batch mode, the checks, the subset and the
    shard (``jury run --resume RUN``)."""
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
    for option in RECORDED_OPTIONS:
        setattr(args, option, getattr(args, option) or bool(manifest.get(option)))
    subset = manifest.get("subset") or {}
    if not (args.ids or args.category or args.sample or args.limit):
        args.ids = subset.get("ids") or None
        args.category = subset.get("categories") or None
        args.sample, args.limit = subset.get("sample"), subset.get("limit")
        args.seed = subset.get("seed", args.seed)
    recorded = manifest.get("shard")
    if not args.shard and recorded:
        args.shard = f"{recorded['index']}/{recorded['count']}"
        args.shard_limits = recorded.get("limits", "divided")
    if "reading" in manifest:  # not in the manifests of runs made before it was recorded
        _same_reading(args, manifest["reading"])


def _same_reading(args: argparse.Namespace, reading: dict[str, Any]) -> None:
    """A resumed run reads its cases as it did: with the ``--map`` and ``--format`` recorded
    (taken when the command line leaves them out, refused when it gives others)."""
    recorded = reading.get("map") or {}
    if not args.map:
        args.map = [f"{field}={path}" for field, path in recorded.items()]
    elif _parsed(args.map) not in (None, recorded):
        then = " ".join(f"--map {field}={path}" for field, path in recorded.items())
        raise ConfigError(
            f"cannot resume: the run read its cases with {then or 'no --map'}, not "
            f"{' '.join(f'--map {item}' for item in args.map)}; give the same, or none"
        )
    format = reading.get("format")
    if args.format is None:
        args.format = format
    elif format is not None and args.format != format:
        raise ConfigError(
            f"cannot resume: the run read its cases as {format}, not --format {args.format}"
        )


def _parsed(items: list[str]) -> dict[str, str] | None:
    """A ``--map`` as a field map; None when it is malformed (the panel says so, naming the
    item at fault)."""
    try:
        return parse_map(items)
    except ValueError:
        return None


def record_options(
    args: argparse.Namespace,
    manifest: dict[str, Any],
    shard: Shard | None,
    count: int,
    format: str,
) -> None:
    """Write into a new run's manifest what a run resumed by its directory alone needs: the
    options above, the shard, and how the cases file was read (`format`: the source's)."""
    for option in RECORDED_OPTIONS:
        if getattr(args, option):
            manifest[option] = True
    manifest["reading"] = {
        "map": parse_map(args.map),
        "format": format if format in FORMATS else None,
    }
    if shard is not None:
        manifest["shard"] = shard.record(count)


def same_shard(manifest: dict[str, Any], shard: Shard | None) -> None:
    """A resumed run must judge the shard it started with."""
    recorded = manifest.get("shard")
    then = f"{recorded['index']}/{recorded['count']}" if recorded else None
    if then != (str(shard) if shard else None):
        raise ConfigError(
            f"cannot resume: the run judged shard {then or '(all cases)'}, not "
            f"{shard or '(all cases)'}"
        )


def batch_run(
    args: argparse.Namespace,
    panel: Panel,
    run_dir: Path,
    cache: CallCache | None,
    checks: CheckSuite | None,
) -> BatchRun:
    """The batch run of these arguments, saying on stderr what it does (unless quiet)."""
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


async def judge_batches(
    run: BatchRun,
    record: RunRecord,
    selection: Selection,
    progress: RunProgress,
    on_verdict: Callable[[CaseVerdict], None] | None,
    submit_only: bool,
) -> BatchRunResult:
    """Judge the cases without a verdict through provider batches (`jury.batch._run`)."""
    finished = record.finished()

    def todo() -> Iterator[Case]:
        return (case for case in selection.cases() if case.id not in finished)

    def decided(verdict: CaseVerdict) -> None:
        finished.add(verdict.case_id)
        record.append(verdict)
        progress.add(verdict)
        if on_verdict is not None:
            on_verdict(verdict)

    async with run:
        return await run.run(todo, decided, submit_only=submit_only)


def print_pending(result: BatchRunResult, run_dir: Path, in_flight: int) -> int:
    """Say what a batch run waits for, what it has not sent yet and why, and when to come
    back; the exit code (3)."""
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
    sent = [row for row in result.pending if row.state != "sealed"]
    unsent = [row for row in result.pending if row.state == "sealed"]
    print(f"Sent: {_batches(sent)}.")
    if unsent:
        refused = [row for row in unsent if row.error]
        why = f"held by the in-flight limit ([batch] in_flight = {in_flight} a model)"
        if refused:
            why += f", or refused for now by the provider ({_batches(refused)})"
        print(
            f"Not sent yet: {_batches(unsent)}, {why}; `jury run --resume` sends them as "
            "the batches sent end."
        )
    print(f"Come back with: jury run --resume {run_dir}  ({eta(result.pending, in_flight)})")
    return EXIT_PENDING


def _batches(rows: list[BatchRow]) -> str:
    requests = sum(row.requests for row in rows)
    return f"{len(rows)} batch{'es' * (len(rows) != 1)} ({requests} requests)"
