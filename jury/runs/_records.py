"""Run records: one directory per run, written as the run goes, readable by any later command.

A run directory holds::

    manifest.json    versions, command line, jury (as parsed), rubric and prompt hashes, cases
                     file hash, git commit, start (and finish) time
    cases.jsonl      the cases as judged, after redaction: what reports and `jury rescore` read
                     (a run that calls the agent appends each case once it is answered, with
                     its answer and trace, before judging it)
    verdicts.jsonl   one `CaseVerdict` per line, appended as each case finishes
    summary.json     the `RunSummary`, at the end
    report.html      the HTML report, at the end
    junit.xml        the JUnit file, at the end

Durability: each verdict line is written with one ``write`` on an ``O_APPEND`` descriptor as
soon as its case finishes, so a killed process loses no finished case (the kernel holds the
bytes). ``fsync`` runs at most every `FSYNC_INTERVAL` seconds and on close, which bounds what
a machine crash can lose without paying a disk flush per case. A torn last line (a machine
crash mid-write) is ignored by readers and cut off before a resumed run appends.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import secrets
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .._errors import RunRecordError
from .._redact import Redactor
from .._verdict import CaseVerdict
from ..adapters._model import JudgeModel
from ..adapters._rubric import Rubric
from ..cases._case import Case
from ..panel._panel import Panel
from ..panel._warnings import seat_table
from ._cases_file import CASES, CasesFile
from ._lock import RunLock
from ._verdict_file import (
    VERDICTS,
    read_verdict_at,
    scan_verdicts,
    verdicts_path,
)

__all__ = [
    "FORMAT",
    "Redactor",
    "RunRecord",
    "file_digest",
    "jury_identity",
    "new_run_dir",
    "panel_record",
    "prompt_hashes",
    "read_cases",
    "read_manifest",
    "read_verdict_at",
    "read_verdicts",
    "require_manifest",
    "scan_verdicts",
    "verdicts_path",
    "write_atomic",
]

#: The run directory format's version, in every manifest. Format 1 kept a vote's calls as
#: flat fields (`attempts`, `cost`...); format 2 keeps them in `calls`. Both are read.
FORMAT = 2
READABLE_FORMATS = (1, 2)
MANIFEST = "manifest.json"

SUMMARY = "summary.json"
REPORT = "report.html"
JUNIT = "junit.xml"
FSYNC_INTERVAL = 0.5


def new_run_dir(base: str | Path = "runs") -> Path:
    """``runs/<UTC time>-<short id>``: sorts by time, unique across concurrent runs."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return Path(base) / f"{stamp}-{secrets.token_hex(3)}"


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` whole or not at all (a reader never sees half a summary)."""
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def file_digest(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _model_name(model: str | JudgeModel) -> str:
    return model if isinstance(model, str) else model.name


#: What a juror's record leaves out (its models are recorded by name), by whether it is plain:
#: a plain seat is recorded as before strategies, so older runs resume and merge.
_NOT_RECORDED = ({"model", "fallbacks"}, {"model", "fallbacks", "strategy"})


def panel_record(panel: Panel) -> dict[str, Any]:
    """The panel as JSON; in-code judge models are recorded by name."""
    data = panel.model_dump(mode="json", exclude={"jurors"})
    data["jurors"] = [
        {
            **juror.model_dump(
                mode="json", exclude=_NOT_RECORDED[juror.strategy == "plain"], exclude_none=True
            ),
            "model": _model_name(juror.model),
            "fallbacks": [_model_name(f) for f in juror.fallbacks],
        }
        for juror in panel.jurors
    ]
    return data


def jury_identity(record: Mapping[str, Any]) -> dict[str, Any]:
    """A recorded jury as it decides verdicts: how its calls travel (batch, concurrency,
    timeouts, retries) is not part of it, so that a run resumed or merged with other such
    settings (a lower concurrency after rate limits) is the same run."""
    # Nor is the agent: the system under test is recorded (and compared) on its own.
    travel = "batch batch_fallback case_timeout concurrency providers retry timeout".split()
    kept = {k: v for k, v in record.items() if k not in travel and not k.startswith("agent")}
    kept["jurors"] = [
        {k: v for k, v in juror.items() if k != "batch"} for juror in record.get("jurors", ())
    ]
    return kept


def prompt_hashes(rubric: Rubric, cases: Iterable[Case]) -> dict[str, str]:
    """SHA-256 of each prompt's system text (which never depends on the case)."""
    for case in cases:
        try:
            prompts = rubric.prompts(case)
        except ValueError:
            continue
        return {p.key: hashlib.sha256(p.system.encode()).hexdigest() for p in prompts}
    return {}


def _git_commit(where: Path) -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=where,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = out.stdout.strip()
    return commit if out.returncode == 0 and re.fullmatch(r"[0-9a-f]{40,64}", commit) else None


def _versions() -> dict[str, str]:
    from importlib import metadata

    from .._version import __version__

    versions = {"aiojury": __version__, "python": platform.python_version()}
    for package in ("pydantic", "anthropic", "openai", "google-genai"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            continue
    return versions


def build_manifest(
    *,
    run_id: str,
    panel: Panel,
    rubric: Rubric,
    cases_path: str | Path,
    cases_count: int,
    prompts: Mapping[str, str],
    jury_file: str | None,
    cache: str | None,
    redact_patterns: Sequence[str],
    argv: Sequence[str] | None = None,
    cases_digest: str | None = None,
) -> dict[str, Any]:
    """The run's manifest. `cases_digest` is the cases' hash when they are not a file (standard
    input, a dataset); a file's is computed."""
    shown, cases_path = str(cases_path), Path(cases_path)
    where = cases_path.resolve().parent if cases_path.is_file() else Path.cwd()
    return {
        "format": FORMAT,
        "run_id": run_id,
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": list(sys.argv if argv is None else argv),
        "cwd": os.getcwd(),
        "versions": _versions(),
        "git_commit": _git_commit(where),
        "jury_file": jury_file,
        "jury": panel_record(panel),
        # Which seats share a model (and a family), for the analyses (`jury.agreement._seats`).
        "seats": seat_table(panel),
        "rubric": {"name": rubric.name, "kind": rubric.kind, "fingerprint": rubric.fingerprint()},
        "prompts": dict(prompts),
        "cases": {
            "path": shown,
            "sha256": cases_digest or file_digest(cases_path),
            "count": cases_count,
        },
        "cache": cache,
        "redact": list(redact_patterns),
    }


class RunRecord:
    """A run directory being written: `create` a new run, `resume` a killed one."""

    def __init__(
        self, path: Path, redactor: Redactor, manifest: dict[str, Any], lock: RunLock
    ) -> None:
        self.path = path
        self.redactor = redactor
        self.manifest = manifest
        self._lock = lock
        self._fd: int | None = None
        self._cases_fd: int | None = None
        self._synced = time.monotonic()
        self._dirty = False

    @classmethod
    def create(
        cls,
        path: Path,
        manifest: dict[str, Any],
        cases: Iterable[Case] | CasesFile,
        redactor: Redactor,
        lock: RunLock | None = None,
    ) -> RunRecord:
        """Start a run: the manifest and the (redacted) cases are written before any judging
        (`cases` is the cases, or the `CasesFile` they were written to as they were validated).
        The run directory is locked (`lock`, or one taken here) until the record closes."""
        lock = lock or RunLock(path)
        if (path / VERDICTS).exists() or (path / MANIFEST).exists():
            lock.release()
            raise RunRecordError(
                str(path), "already holds a run; resume it or choose another --out"
            )
        try:
            if isinstance(cases, CasesFile):
                cases.move_to(path / CASES)
            else:
                tmp = path / f".{CASES}.tmp"
                with open(tmp, "wb") as handle:
                    for case in cases:
                        handle.write(redactor.json_line(case))
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(tmp, path / CASES)
            text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
            write_atomic(path / MANIFEST, text)
        except BaseException:
            lock.release()
            raise
        record = cls(path, redactor, manifest, lock)
        record._open()
        return record

    @classmethod
    def resume(cls, path: Path, redactor: Redactor, lock: RunLock | None = None) -> RunRecord:
        """Reopen a run to finish it: a torn last line is cut off before anything is appended."""
        lock = lock or RunLock(path)
        try:
            manifest = require_manifest(path)
            for name in (VERDICTS, CASES):
                if (path / name).exists():
                    _cut_torn_tail(path / name)
        except BaseException:
            lock.release()
            raise
        record = cls(path, redactor, manifest, lock)
        record._open()
        return record

    def _open(self) -> None:
        self._fd = os.open(self.path / VERDICTS, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def finished(self) -> set[str]:
        """IDs of the cases that already have a verdict."""
        if not (self.path / VERDICTS).exists():
            return set()
        return {verdict.case_id for verdict in read_verdicts(self.path)}

    def answered(self, finished: set[str]) -> dict[str, Case]:
        """The cases the agent answered whose verdict is not recorded (the run was killed
        between the two): they are judged from the record, never asked again. The cases file
        is rewritten with one line per case, keeping only the cases with a verdict or an
        answer: a case whose agent failed and whose verdict was lost is asked again, once."""
        path = self.path / CASES
        if not path.exists():
            return {}
        lines: dict[str, bytes] = {}
        pending: dict[str, Case] = {}
        with open(path, "rb") as handle:
            for line in handle:
                data = json.loads(line)
                case_id = data["id"]
                if case_id in finished or data.get("answer") is not None:
                    lines.pop(case_id, None)
                    lines[case_id] = line
                if case_id not in finished and data.get("answer") is not None:
                    pending[case_id] = Case.model_validate(data)
        tmp = path.with_name(f".{CASES}.tmp")
        with open(tmp, "wb") as handle:
            handle.writelines(lines.values())
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
        return pending

    def add_case(self, case: Case) -> None:
        """Record a case as the agent answered it, before it is judged: a kill after this
        line never asks the agent about that case again."""
        if self._cases_fd is None:
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
            self._cases_fd = os.open(self.path / CASES, flags, 0o644)
        _write_line(self._cases_fd, self.redactor.json_line(case))
        self._dirty = True

    def append(self, verdict: CaseVerdict) -> None:
        """Record one finished case. One ``write`` per line: a killed run never holds half."""
        if self._fd is None:
            raise RuntimeError("the run record is closed")
        _write_line(self._fd, self.redactor.json_line(verdict))
        self._dirty = True
        now = time.monotonic()
        if now - self._synced >= FSYNC_INTERVAL:
            self.sync()

    def sync(self) -> None:
        if self._fd is not None and self._dirty:
            os.fsync(self._fd)
            if self._cases_fd is not None:
                os.fsync(self._cases_fd)
            self._dirty = False
        self._synced = time.monotonic()

    def close(self) -> None:
        if self._fd is not None:
            self.sync()
            os.close(self._fd)
            self._fd = None
        if self._cases_fd is not None:
            os.close(self._cases_fd)
            self._cases_fd = None
        self._lock.release()

    def __enter__(self) -> RunRecord:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def finish(self, **fields: Any) -> None:
        """Note in the manifest that the run finished (and with what)."""
        self.manifest.update(finished=datetime.now(UTC).isoformat(timespec="seconds"), **fields)
        write_atomic(
            self.path / MANIFEST, json.dumps(self.manifest, indent=2, ensure_ascii=False) + "\n"
        )


def _write_line(fd: int, line: bytes) -> None:
    """One ``write`` per line; a short write (a full disk, a signal) is finished."""
    written = os.write(fd, line)
    while written < len(line):
        written += os.write(fd, line[written:])


def _cut_torn_tail(path: Path) -> None:
    with open(path, "rb+") as handle:
        data = handle.read()
        if data and not data.endswith(b"\n"):
            handle.truncate(data.rfind(b"\n") + 1)
            handle.flush()
            os.fsync(handle.fileno())


def read_manifest(run: str | Path) -> dict[str, Any]:
    """The run's manifest, or an empty mapping when there is none (a run still going)."""
    path = Path(run) / MANIFEST
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise RunRecordError(str(path), f"not readable: {exc}") from None
    return data if isinstance(data, dict) else {}


def require_manifest(run: str | Path) -> dict[str, Any]:
    """The manifest of a run this version can resume or re-score, or a clear error."""
    manifest = read_manifest(run)
    if not manifest:
        repeats = sorted(Path(run).glob(f"repeat-*/{MANIFEST}"))
        hint = f"; a run of repeats: each is one ({repeats[0].parent} ...)" if repeats else ""
        raise RunRecordError(str(run), f"not a run directory (no {MANIFEST}){hint}")
    if manifest.get("format") not in READABLE_FORMATS:
        expected = " or ".join(map(str, READABLE_FORMATS))
        raise RunRecordError(str(Path(run) / MANIFEST), f"format: expected {expected}")
    return manifest


def read_verdicts(run: str | Path) -> list[CaseVerdict]:
    """The verdicts of a run, in the order they were written.

    `run` is a run directory or its ``verdicts.jsonl``. Every bad line is reported (line and
    field), not only the first. A case recorded twice (a resumed run re-judged it) keeps its
    last verdict. A last line without its newline is a write that a crash cut short: it is
    skipped (and cut off before a resumed run appends).
    """
    verdicts: dict[str, CaseVerdict] = {}
    for _, verdict in scan_verdicts(run):
        verdicts.pop(verdict.case_id, None)
        verdicts[verdict.case_id] = verdict
    return list(verdicts.values())


def read_cases(run_dir: str | Path) -> Iterator[Case]:
    """The cases of a run, as they were judged (after redaction)."""
    path = Path(run_dir) / CASES
    if not path.exists():
        raise RunRecordError(str(run_dir), f"not a run directory (no {CASES})")
    from ..cases._load import iter_cases

    return iter_cases(path, validate=False, format="jsonl")
