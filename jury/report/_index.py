"""Where each case's verdict is in a run's ``verdicts.jsonl``, so that the reports read the
verdicts one at a time, in the order each report wants, instead of holding them all.

One pass over the file keeps, per case, the offset of its last record (a resumed run may have
recorded a case twice) and the few fields that order and count it; a verdict is parsed again
from its offset when a report needs it whole.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from .._verdict import CaseVerdict, Verdict
from ..runs._records import read_verdict_at, scan_verdicts, verdicts_path
from ._views import VERDICT_ORDER

__all__ = ["Entry", "VerdictIndex"]


@dataclass(frozen=True, slots=True)
class Entry:
    case_id: str
    offset: int
    verdict: Verdict
    #: The JUnit suite: the category, after the split when the case names one.
    suite: str
    duration_s: float


class VerdictIndex:
    """A run's verdicts by case ID (the last record of each), read back one at a time."""

    def __init__(self, run: str | Path) -> None:
        self.path = verdicts_path(run)
        entries: dict[str, Entry] = {}
        for offset, verdict in scan_verdicts(self.path):
            suite = verdict.category or "uncategorised"
            if verdict.split is not None:
                suite = f"{verdict.split}/{suite}"
            entries[verdict.case_id] = Entry(
                verdict.case_id, offset, verdict.verdict, suite, verdict.duration_s
            )
        #: In case-ID order.
        self.entries = [entries[case_id] for case_id in sorted(entries)]
        self._handle: BinaryIO | None = None

    def __len__(self) -> int:
        return len(self.entries)

    def listed(self) -> list[Entry]:
        """Failed cases first, then inconclusive, then passed; by case ID within each."""
        return sorted(self.entries, key=lambda e: VERDICT_ORDER[e.verdict])

    def by_suite(self) -> list[Entry]:
        """By JUnit suite, then case ID."""
        return sorted(self.entries, key=lambda e: e.suite)

    def load(self, entry: Entry) -> CaseVerdict:
        if self._handle is None:
            self._handle = self.path.open("rb")
        return read_verdict_at(self._handle, entry.offset)

    def verdicts(self, entries: list[Entry] | None = None) -> Iterator[CaseVerdict]:
        for entry in self.entries if entries is None else entries:
            yield self.load(entry)

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None
