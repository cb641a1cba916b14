"""The record and the judging loop of a run: where the run is recorded, its manifest and
cases (written as they are validated, for a new run), and the loop that judges the cases not
yet judged, recording each verdict as it arrives and handing the judged case to the reports.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .._errors import ConfigError, JuryError
from .._verdict import CaseVerdict
from ..adapters import Rubric
from ..adapters._agent import Agent
from ..adapters._registry import load_rubric
from ..cases import CaseSource
from ..cases._case import Case
from ..cases._subset import Selection, Subset
from ..engine._agent_step import AgentStep
from ..engine._cache import SqliteCache
from ..engine._jury import Jury
from ..panel._agent_spec import AgentSettings
from ..panel._panel import Panel
from ..report._judged import JudgedCases
from ..report._progress import RunProgress
from ..runs._cases_file import CasesFile
from ..runs._lock import RunLock
from ..runs._records import (
    Redactor,
    RunRecord,
    build_manifest,
    file_digest,
    jury_identity,
    panel_record,
    prompt_hashes,
    require_manifest,
)
from ..runs._shards import Shard
from ._agent import (
    AnswerNotice,
    agent_record,
    same_agent,
)
from ._batches import (
    record_options,
    same_shard,
)
from ._options import RunOptions, run_folder

__all__ = ["cases_file", "judge_cases", "open_record", "run_dir"]


def run_dir(options: RunOptions) -> tuple[Path, bool]:
    """Where the run is recorded, and whether it must resume a run already there."""
    if options.resume:
        if options.out and Path(options.out) != Path(options.resume):
            raise ConfigError("give either --out or --resume, or the same directory to both")
        return Path(options.resume), True
    return run_folder(options.out), False


def cases_file(
    options: RunOptions,
    where: tuple[Path, bool],
    subset: Subset,
    shard: Shard | None,
    redactor: Redactor,
) -> CasesFile | None:
    """Where a new run's cases are written as they are validated, or None when the record
    must read them again: a resumed run has its cases already, a dry run records nothing,
    and a subset or a shard is known only after a pass over every case's ID."""
    path, resume = where
    if resume or options.dry_run or not subset.everything or shard is not None:
        return None
    if (path / "manifest.json").exists():
        return None
    try:
        return CasesFile(path, redactor)
    except OSError as exc:  # a file where a folder goes, no permission: said, not a traceback
        raise ConfigError(f"{path}: cannot record the run there: {exc.strerror or exc}") from None


def _prompts(
    rubric: Rubric, written: CasesFile | None, selection: Selection, agent: bool
) -> dict[str, str]:
    """The manifest's prompt hashes (system texts, the same for every case) from the first
    case written; only when that case has no prompt for this rubric are the cases read again
    to find one (the cases file keeps no other case: bounded memory)."""
    if written is not None and written.first is not None:
        hashes = prompt_hashes(rubric, (written.first,))
        if hashes:
            return hashes
    return prompt_hashes(rubric, _answered(selection, agent))


def open_record(
    options: RunOptions,
    jury: Jury,
    panel: Panel,
    source: CaseSource,
    selection: Selection,
    redactor: Redactor,
    cache: SqliteCache | None,
    shard: Shard | None = None,
    agent: tuple[Agent, AgentSettings] | None = None,
    where: tuple[Path, bool] | None = None,
    written: CasesFile | None = None,
) -> RunRecord:
    """The run's record: a new run directory, or the one being resumed. `written` holds the
    cases as validation wrote them (else they are read again here)."""
    path, resume = where or run_dir(options)
    # The lock first: what the directory holds is only known once no one else writes it.
    lock = RunLock(path)
    try:
        if resume or (path / "manifest.json").exists():
            manifest = require_manifest(path)
            _same_run(path, manifest, source, panel, jury, selection.subset, agent)
            same_shard(manifest, shard)
            return RunRecord.resume(path, redactor, lock)
        manifest = build_manifest(
            run_id=path.name,
            panel=panel,
            rubric=jury.rubric,
            cases_path=options.cases or "",
            cases_count=selection.count,
            prompts=_prompts(jury.rubric, written, selection, agent is not None),
            jury_file=options.jury,
            cache=str(cache.path) if cache is not None else None,
            redact_patterns=redactor.patterns,
            cases_digest=source.digest(),
        )
        manifest["subset"] = selection.record()
        located = _located(panel_record(panel), os.getcwd())
        manifest["jury_files"] = _digests(_named_files(located))
        record_options(options, manifest, shard, selection.count, source.format)
        if agent is not None:
            # The cases are recorded as the agent answers them, each before it is judged.
            manifest["agent"] = agent_record(*agent)
            return RunRecord.create(path, manifest, (), redactor, lock)
        return RunRecord.create(path, manifest, written or selection.cases(), redactor, lock)
    except BaseException:
        lock.release()
        raise


def _answered(selection: Selection, agent: bool) -> Iterator[Case]:
    """The cases the prompts' hashes are taken from: golden cases, before the agent answers
    them, with a stand-in answer (the system prompts never depend on it)."""
    for case in selection.cases():
        yield case.model_copy(update={"answer": "-"}) if agent and case.answer is None else case


def _same_run(
    path: Path,
    manifest: dict[str, Any],
    source: CaseSource,
    panel: Panel,
    jury: Jury,
    subset: Subset,
    agent: tuple[Agent, AgentSettings] | None,
) -> None:
    """A resumed run must judge the same cases with the same panel and rubric."""
    changed = []
    if manifest["cases"]["sha256"] != source.digest():
        changed.append("the cases file")
    if not subset.same_filters(manifest.get("subset", {})):
        changed.append("the subset (--ids, --category, --sample, --limit, --seed)")
    # Files the jury file names are recorded as its loader made them: relative to the folder
    # of the jury file as it was given, so "j.toml" then and "/abs/j.toml" on `--resume` name
    # one check file two ways. Compared where they lie, each against its own working folder.
    then = _located(jury_identity(manifest["jury"]), manifest.get("cwd"))
    now = _located(jury_identity(json.loads(json.dumps(panel_record(panel)))), os.getcwd())
    keys = sorted(k for k in then.keys() | now.keys() if then.get(k) != now.get(k))
    if keys:
        changed.append(f"the jury ({', '.join(keys)})")
    if _rubric_changed(manifest["rubric"]["fingerprint"], jury.rubric, panel, then, now):
        changed.append("the rubric")
    changed.extend(_files_changed(manifest, now))
    agent_changed = same_agent(manifest, agent[0] if agent is not None else None)
    if agent_changed is not None:
        changed.append(agent_changed)
    if changed:
        rescore = _rescore_hint(path, manifest, keys, then, now) if len(changed) == 1 else ""
        raise ConfigError(
            f"cannot resume: {' and '.join(changed)} changed since the run started; "
            f"{rescore}start a new run (another --out)"
        )


def _located(record: dict[str, Any], cwd: str | None) -> dict[str, Any]:
    """`record` (a recorded jury) with the files it names relative made absolute against
    `cwd`: the rubric and fit files, custom checks' Python files, a JSON schema file (what
    `load_panel` resolves against the jury file's folder)."""
    if not cwd:
        return record

    def where(name: str) -> str:
        return name if os.path.isabs(name) else os.path.normpath(os.path.join(cwd, name))

    out = dict(record)
    for key in ("rubric", "calibration"):
        value = out.get(key)
        if isinstance(value, str) and (key == "calibration" or value.endswith(".toml")):
            out[key] = where(value)
    checks = out.get("checks")
    if isinstance(checks, dict):
        checks = out["checks"] = dict(checks)
        custom = checks.get("custom")
        if isinstance(custom, list):
            checks["custom"] = [_located_check(entry, where) for entry in custom]
        schema = checks.get("json_schema")
        if isinstance(schema, dict) and isinstance(schema.get("json_schema"), str):
            checks["json_schema"] = {**schema, "json_schema": where(schema["json_schema"])}
    return out


def _named_files(located: dict[str, Any]) -> list[str]:
    """The files a jury's checks read (custom checks' Python files, a JSON schema file), from
    its record as `_located` makes it: the jury names them, but their content is no part of
    its record."""
    checks = located.get("checks") or {}
    modules = [
        entry["function"].rpartition(":")[0]
        for entry in checks.get("custom") or ()
        if isinstance(entry, dict) and isinstance(entry.get("function"), str)
    ]
    found = [module for module in modules if module.endswith(".py")]
    schema = (checks.get("json_schema") or {}).get("json_schema")
    return [*found, *([schema] if isinstance(schema, str) else [])]


def _digests(files: list[str]) -> dict[str, str]:
    return {name: file_digest(name) for name in files if os.path.isfile(name)}


def _files_changed(manifest: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """Each check file the run started with whose content is another now, by name: the same
    path with other code is another check, and its verdicts would mix with the first's.
    (A run recorded before the digests were kept has none to compare.)"""
    then = manifest.get("jury_files")
    if not isinstance(then, dict):
        return []
    found = _digests(_named_files(now))
    return [
        f"the check file {_shown(name)}"
        for name, digest in then.items()
        if name in found and found[name] != digest
    ]


def _shown(name: str) -> str:
    """`name` relative to the working folder when it lies inside it, else as it is."""
    relative = os.path.relpath(name)
    return name if relative.startswith(os.pardir) else relative


def _located_check(entry: Any, where: Callable[[str], str]) -> Any:
    if not isinstance(entry, dict) or not isinstance(entry.get("function"), str):
        return entry
    module, _, attr = entry["function"].rpartition(":")
    return {**entry, "function": f"{where(module)}:{attr}"} if module.endswith(".py") else entry


def _rescore_hint(
    path: Path,
    manifest: dict[str, Any],
    keys: list[str],
    then: dict[str, Any],
    now: dict[str, Any],
) -> str:
    """`jury rescore` with its flags, when a finished run differs only by the jury's `keys`
    and rescore can set them all: the votes are decided again for nothing, where a new run
    pays for every call again."""
    flags = [_rescored(key, then, now) for key in keys]
    if not manifest.get("finished") or not flags or None in flags:
        return ""
    return (
        f"`jury rescore {path} {' '.join(f for f in flags if f)}` decides its recorded votes "
        "again by the new rules, calling no judge; or "
    )


def _rescored(key: str, then: dict[str, Any], now: dict[str, Any]) -> str | None:
    """The `jury rescore` flags that set the jury's `key` as it is `now`, or None (they
    cannot)."""
    value = now.get(key)
    if key in ("quorum", "aggregation", "ties") and value is not None:
        return f"--{key} {value}"
    if key == "thresholds" and isinstance(value, dict) and set(value) == {"*"}:
        return f"--threshold {value['*']:g}"  # one threshold for every metric, as it sets
    if key == "gate" and isinstance(value, dict):
        before = then.get("gate") or {}
        flags = [_gate_flag(k, v) for k, v in value.items() if before.get(k) != v]
        return " ".join(f for f in flags if f) if flags and all(flags) else None
    return None


def _gate_flag(key: str, value: Any) -> str | None:
    """The `jury rescore` flag that sets the gate's `key` to `value`, or None."""
    if key in ("min_pass_rate", "level") and isinstance(value, float | int):
        return f"--{key.replace('_', '-')} {value:g}"
    if key in ("on", "interval") and isinstance(value, str):
        return f"--{'gate-on' if key == 'on' else key} {value}"
    return "--require-every-juror" if key == "require_every_juror" and value is True else None


def _rubric_changed(
    recorded: str, rubric: Rubric, panel: Panel, then: dict[str, Any], now: dict[str, Any]
) -> bool:
    """Whether the rubric's content changed, besides what the jury's record names: another
    rubric or other thresholds change its fingerprint too, and are named once, as the jury's."""
    if rubric.fingerprint() == recorded or then.get("rubric") != now.get("rubric"):
        return False
    if then.get("thresholds") == now.get("thresholds"):
        return True
    # Other thresholds: the rubric as the run's thresholds would make it tells whether its file
    # changed as well.
    try:
        return load_rubric(panel.rubric, then.get("thresholds")).fingerprint() != recorded
    except (JuryError, ValueError):  # the run's thresholds no longer fit the file: it changed
        return True


async def judge_cases(
    jury: Jury,
    record: RunRecord,
    selection: Selection,
    progress: RunProgress,
    on_verdict: Callable[[CaseVerdict], None] | None = None,
    agent: tuple[Agent, AgentSettings] | None = None,
    notice: AnswerNotice | None = None,
    judged: JudgedCases | None = None,
) -> None:
    """Judge the cases that have no verdict yet, recording each one as it finishes (and
    handing it to `judged`, for the reports, while it is in memory).

    With an agent, each case is answered first and recorded before it is judged; a case whose
    answer is recorded (a killed run) is judged from the record, never asked again."""
    finished = record.finished()
    pending = record.answered(finished) if agent is not None else {}
    # The cases being judged, by ID: as many as the jury has in flight (its concurrency).
    in_flight: dict[str, Case] = {}

    def unjudged() -> Iterator[Case]:
        # Bounded memory forces this re-read of the source (its second and last parse): the
        # cases validated before the run started were not kept.
        for case in selection.cases():
            if case.id not in finished:
                if judged is not None:
                    in_flight[case.id] = case
                yield pending.get(case.id, case)

    todo: Iterator[Case] = unjudged()
    step: AgentStep | None = None
    if agent is not None:
        model, settings = agent
        step = AgentStep(
            model,
            concurrency=settings.agent_concurrency,
            timeout=settings.agent_timeout,
            on_answer=record.add_case,
            needs_agent=lambda case: case.id not in pending,
        )
        progress.agent = step.counts
    elif notice is not None:
        todo = map(notice.see, todo)
    try:
        async with jury:
            async for verdict in jury.evaluate(todo, agent=step):
                record.append(verdict)
                progress.add(verdict)
                case = in_flight.pop(verdict.case_id, None)
                if judged is not None and case is not None:
                    judged.add(case, verdict)
                if on_verdict is not None:
                    on_verdict(verdict)
    finally:
        if agent is not None:
            await agent[0].aclose()
