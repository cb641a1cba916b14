"""A run's ``verdicts.jsonl`` read one line at a time: every record with its offset (to read it
again later), both record formats, and every bad line named."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from pydantic import ValidationError

from .._errors import RunRecordError
from .._problems import LineError, problems
from .._verdict import CaseVerdict

__all__ = ["VERDICTS", "read_verdict_at", "scan_verdicts", "verdicts_path"]

VERDICTS = "verdicts.jsonl"


def verdicts_path(run: str | Path) -> Path:
    """``verdicts.jsonl`` of a run directory (or the file itself)."""
    path = Path(run)
    return path / VERDICTS if path.is_dir() else path


def scan_verdicts(run: str | Path) -> Iterator[tuple[int, CaseVerdict]]:
    """Each recorded verdict line of a run with its byte offset, one at a time, in the order
    written (a case recorded twice comes twice: the last is the one that counts); after the
    last line, `RunRecordError` naming every bad line, as `read_verdicts` reports them."""
    path = verdicts_path(run)
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise RunRecordError(str(path), exc.strerror or str(exc)) from None
    errors: list[LineError] = []
    offset = 0
    with handle:
        for number, raw in enumerate(handle, start=1):
            start, offset = offset, offset + len(raw)
            if not raw.endswith(b"\n"):
                break
            if not raw.strip():
                continue
            try:
                verdict = _verdict(raw.decode("utf-8"))
            except ValueError as exc:  # a ValidationError, or json's error for a format-1 line
                found = [("", "not valid JSON")]
                if isinstance(exc, ValidationError) and exc.errors()[0]["type"] != "json_invalid":
                    found = problems(exc, CaseVerdict)
                errors.extend(LineError(number, where, reason) for where, reason in found)
                continue
            yield start, verdict
    if errors:
        lines = len({error.line for error in errors})  # a line with two problems is one line
        plural = "s" if lines != 1 else ""
        raise RunRecordError(str(path), f"{lines} bad line{plural}", tuple(errors))


def read_verdict_at(handle: BinaryIO, offset: int) -> CaseVerdict:
    """The verdict recorded at `offset` of a ``verdicts.jsonl`` open for reading in binary
    (an offset from `scan_verdicts`: that line was read once already)."""
    handle.seek(offset)
    return _verdict(handle.readline().decode("utf-8"))


#: A vote's accounting fields as format 1 wrote them, flat on the vote.
_FLAT_CALLS = (
    "attempts",
    "reasks",
    "cache_hits",
    "latency_s",
    "input_tokens",
    "output_tokens",
    "cached_tokens",
    "cost",
    "served_by",
)


def _verdict(line: str) -> CaseVerdict:
    if '"votes":' not in line or '"calls":{' in line:
        return CaseVerdict.model_validate_json(line)
    # Votes without `calls`: format 1's flat fields (or calls that cost nothing).
    data = json.loads(line)
    for vote in data.get("votes", ()):
        if isinstance(vote, dict) and "calls" not in vote:
            calls = {key: vote.pop(key) for key in _FLAT_CALLS if key in vote}
            served = calls.pop("served_by", None)
            calls["served_by"] = [served] if served else []
            if calls.get("cost") is None:
                # Format 1 left a vote's cost unknown also where nothing was paid for (an
                # offline juror, a vote that made no call): only a paid call's is unknown.
                paid = calls.get("attempts") and not vote.get("offline")
                calls["cost"] = None if paid else 0.0
            vote["calls"] = calls
    return CaseVerdict.model_validate(data)
