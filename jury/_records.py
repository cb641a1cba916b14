"""Reading a run directory back: ``verdicts.jsonl`` (one `CaseVerdict` per line) and
``manifest.json``. The writer lives with the run records; this reader only needs the format.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ._errors import ConfigError, LineError
from ._verdict import CaseVerdict

__all__ = ["RunRecordError", "read_manifest", "read_verdicts"]

VERDICTS = "verdicts.jsonl"
MANIFEST = "manifest.json"


class RunRecordError(ConfigError):
    """A run directory that cannot be read; `errors` lists every bad line."""

    def __init__(self, path: str, reason: str, errors: tuple[LineError, ...] = ()) -> None:
        self.path = path
        self.errors = errors
        lines = "".join(f"\n  {e}" for e in errors)
        super().__init__(f"{path}: {reason}{lines}")


def read_verdicts(run: str | Path) -> list[CaseVerdict]:
    """The verdicts of a run, in the order they were written.

    `run` is a run directory or its ``verdicts.jsonl``. Every bad line is reported (line and
    field), not only the first. A case recorded twice (a resumed run re-judged it) keeps its
    last verdict.
    """
    path = Path(run)
    if path.is_dir():
        path = path / VERDICTS
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        raise RunRecordError(str(path), exc.strerror or str(exc)) from None
    verdicts: dict[str, CaseVerdict] = {}
    errors: list[LineError] = []
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                verdict = CaseVerdict.model_validate_json(line)
            except ValidationError as exc:
                err = exc.errors(include_url=False)[0]
                where = ".".join(str(p) for p in err["loc"]) or "(line)"
                reason = "not valid JSON" if err["type"] == "json_invalid" else err["msg"]
                errors.append(LineError(number, where, reason))
                continue
            verdicts.pop(verdict.case_id, None)
            verdicts[verdict.case_id] = verdict
    if errors:
        plural = "s" if len(errors) != 1 else ""
        raise RunRecordError(str(path), f"{len(errors)} bad line{plural}", tuple(errors))
    return list(verdicts.values())


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
