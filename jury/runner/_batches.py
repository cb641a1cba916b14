"""What a run does for batch mode and shards: a run resumed from its directory alone, the
shard a resumed run must be, the passes through provider batches, and what a run that stops
with its batches pending says (exit 3).

Kept apart from the run's main module so that it reads as the online run it mostly is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
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
from ._options import RunOptions

__all__ = [
    "EXIT_PENDING",
    "batch_run",
    "judge_batches",
    "pending_lines",
    "record_options",
    "resumed_arguments",
    "same_shard",
]

#: A batch run that sent its batches and stopped before they ended (``--submit-only``).
EXIT_PENDING = 3

#: The run options a run resumed by its directory alone does again as it did.
RECORDED_OPTIONS = ("batch", "no_checks", "judge_all", "no_html")


def resumed_arguments(options: RunOptions) -> None:
    """What a resumed run takes from its manifest when the command line leaves it out: the
    cases file and how it was read, the jury file, batch mode, the checks, the subset and the
    shard (``jury run --resume RUN``)."""
    run = options.resume or (
        options.out if options.out and (Path(options.out) / "manifest.json").exists() else None
    )
    if run is None:
        return
    if options.resume and next(Path(run).glob("repeat-*/manifest.json"), None):
        # A run of repeats has no manifest of its own: its command, given again, resumes it.
        raise ConfigError(
            f"--resume {run}: a run of repeats; give the command that started it again with "
            f"--out {run}: the repeats it finished are kept, the one it stopped in is resumed"
        )
    manifest = require_manifest(run)
    where = Path(manifest.get("cwd") or ".")
    if not options.cases:
        options.cases = str(where / manifest["cases"]["path"])
    if not options.jury and manifest.get("jury_file"):
        options.jury = str(where / manifest["jury_file"])
    for option in RECORDED_OPTIONS:
        setattr(options, option, getattr(options, option) or bool(manifest.get(option)))
    subset = manifest.get("subset") or {}
    if not (options.ids or options.category or options.sample or options.limit):
        options.ids = subset.get("ids") or None
        options.category = subset.get("categories") or None
        options.sample, options.limit = subset.get("sample"), subset.get("limit")
        options.seed = subset.get("seed", options.seed)
    recorded = manifest.get("shard")
    if not options.shard and recorded:
        options.shard = f"{recorded['index']}/{recorded['count']}"
        options.shard_limits = recorded.get("limits", "divided")
    if "reading" in manifest:  # not in the manifests of runs made before it was recorded
        _same_reading(options, manifest["reading"])


def _same_reading(options: RunOptions, reading: dict[str, Any]) -> None:
    """A resumed run reads its cases as it did: with the ``--map`` and ``--format`` recorded
    and ``--root`` recorded (taken when the command line leaves them out, refused when it
    gives others)."""
    recorded = reading.get("map") or {}
    if not options.map:
        options.map = [f"{field}={path}" for field, path in recorded.items()]
    elif _parsed(options.map) not in (None, recorded):
        then = " ".join(f"--map {field}={path}" for field, path in recorded.items())
        raise ConfigError(
            f"cannot resume: the run read its cases with {then or 'no --map'}, not "
            f"{' '.join(f'--map {item}' for item in options.map)}; give the same, or none"
        )
    format = reading.get("format")
    if options.format is None:
        options.format = format
    elif format is not None and options.format != format:
        raise ConfigError(
            f"cannot resume: the run read its cases as {format}, not --format {options.format}"
        )
    root = reading.get("root")
    if getattr(options, "root", None) is None:
        options.root = root
    elif root is not None and options.root != root:
        raise ConfigError(
            f"cannot resume: the run read its cases at --root {root}, not {options.root}"
        )


def _parsed(items: Sequence[str]) -> dict[str, str] | None:
    """A ``--map`` as a field map; None when it is malformed (the panel says so, naming the
    item at fault)."""
    try:
        return parse_map(items)
    except ValueError:
        return None


def record_options(
    options: RunOptions,
    manifest: dict[str, Any],
    shard: Shard | None,
    count: int,
    format: str,
) -> None:
    """Write into a new run's manifest what a run resumed by its directory alone needs: the
    options above, the shard, and how the cases file was read (`format`: the source's)."""
    for option in RECORDED_OPTIONS:
        if getattr(options, option):
            manifest[option] = True
    manifest["reading"] = {
        "map": parse_map(options.map),
        "format": format if format in FORMATS else None,
    }
    if getattr(options, "root", None):  # only when given: older runs' manifests stay as they were
        manifest["reading"]["root"] = options.root
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
    options: RunOptions,
    panel: Panel,
    run_dir: Path,
    cache: CallCache | None,
    checks: CheckSuite | None,
    notify: Callable[[str], None],
) -> BatchRun:
    """The batch run of these options, saying to `notify` what it does."""
    batched = BatchRun(
        panel,
        BatchStore(run_dir),
        all_jurors=options.batch,
        cache=cache,
        checks=checks,
        judge_all=options.judge_all,
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


def pending_lines(result: BatchRunResult, run_dir: Path, in_flight: int) -> list[str]:
    """What a batch run waits for, what it has not sent yet and why, and when to come back."""
    batches = len(result.pending)
    lines = [
        f"Pending: {result.waiting} case{'s' * (result.waiting != 1)} wait on {batches} "
        f"batch{'es' * (batches != 1)}:"
    ]
    for row in result.pending:
        counts = ", ".join(f"{name} {n}" for name, n in row.counts.items())
        where = row.provider_id or "(not sent yet)"
        lines.append(
            f"  {row.model}  {where}  {row.status or row.state}  {row.requests} requests  {counts}"
        )
    sent = [row for row in result.pending if row.state != "sealed"]
    unsent = [row for row in result.pending if row.state == "sealed"]
    lines.append(f"Sent: {_batches(sent)}.")
    if unsent:
        refused = [row for row in unsent if row.error]
        why = f"held by the in-flight limit ([batch] in_flight = {in_flight} a model)"
        if refused:
            why += f", or refused for now by the provider ({_batches(refused)})"
        lines.append(
            f"Not sent yet: {_batches(unsent)}, {why}; `jury run --resume` sends them as "
            "the batches sent end."
        )
    lines.append(f"Come back with: jury run --resume {run_dir}  ({eta(result.pending, in_flight)})")
    return lines


def _batches(rows: list[BatchRow]) -> str:
    requests = sum(row.requests for row in rows)
    return f"{len(rows)} batch{'es' * (len(rows) != 1)} ({requests} requests)"
