"""A new run's ``cases.jsonl``, written while its cases are validated (`CasesFile`)."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import IO

from .._redact import Redactor
from ..cases._case import Case

__all__ = ["CASES", "CasesFile"]

CASES = "cases.jsonl"


class CasesFile:
    """A new run's ``cases.jsonl``, written while the cases are validated (`CaseSource.validate`
    hands it each case), so that the record does not read and parse them once more.

    Validation comes before the run directory is locked (bad cases must leave nothing
    behind), so the file is first a temporary one beside the run's directory: `RunRecord.create`
    moves it in once the directory is locked and known to be free, and `discard` removes it
    (and any folder made for it) when the run does not start. It keeps the first case, whose
    prompts give the manifest's prompt hashes.
    """

    def __init__(self, run: Path, redactor: Redactor) -> None:
        self.redactor = redactor
        folder = run.parent
        # The folders made for the file, deepest first: removed again if the run never starts.
        self._made = [p for p in (folder, *folder.parents) if not p.exists()]
        folder.mkdir(parents=True, exist_ok=True)
        # A name of its own ("x": never another's file), with the permissions cases.jsonl gets.
        self.path = folder / f".{run.name}.{CASES}.{secrets.token_hex(4)}.tmp"
        self._handle: IO[bytes] | None = open(self.path, "xb")  # noqa: SIM115
        self._moved = False
        #: The first case written, or None.
        self.first: Case | None = None
        #: Whether a case written has an answer (without an agent, one must).
        self.answered = False

    def add(self, case: Case) -> None:
        if self._handle is None:
            raise RuntimeError("the cases file is closed")
        if self.first is None:
            self.first = case
        self.answered = self.answered or case.answer is not None
        self._handle.write(self.redactor.json_line(case))

    def move_to(self, target: Path) -> None:
        """Make the file `target`, whole (flushed to disk first)."""
        if self._handle is None:
            raise RuntimeError("the cases file is closed")
        self._handle.flush()
        os.fsync(self._handle.fileno())
        self._handle.close()
        self._handle = None
        os.replace(self.path, target)
        self._moved = True

    def discard(self) -> None:
        """Remove the file unless it was moved into a run (a no-op then)."""
        if self._moved:
            return
        if self._handle is not None:
            self._handle.close()
            self._handle = None
        self.path.unlink(missing_ok=True)
        for folder in self._made:
            try:
                folder.rmdir()
            except OSError:  # not empty any more: someone else writes there too
                break
