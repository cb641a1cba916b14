"""What a case source says once it has read its records: how (shapes, IDs made from content,
keys kept in metadata) as notes, and what its cases ask that nothing applies as warnings."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ._unseen import unseen_notice

__all__ = ["Told"]


@dataclass(frozen=True, slots=True)
class Told:
    """A reading's tallies: the source's name, its unit (``line``, ``test``...), the records
    read, the shapes recognised, the keys kept in metadata (by record), and the assertion
    types no check and no juror applies (by assertion)."""

    name: str
    unit: str
    total: int
    shapes: Counter[str]
    kept: Counter[str]
    unapplied: Counter[str]

    def said(
        self, questions: Path | None, unseen: dict[int, list[str]], made: list[str]
    ) -> tuple[list[str], list[str]]:
        """The notes and the warnings. `questions`: the file the questions were joined from;
        `unseen`: by record number, the parts the judges cannot see; `made`: IDs made from
        content."""
        name, total = self.name, self.total
        notices = [f"{name}: read {n} of {total} as {s}" for s, n in self.shapes.items()]
        if questions is not None:
            notices.append(f"{name}: the questions from {questions}")
        # A record's keys that no case field takes are kept in metadata, and said once.
        for keys, n in self.kept.items():
            many = "all" if n == total else f"{n} of"
            notices.append(
                f"{name}: kept in metadata (the judges do not see it) on {many} {total} "
                f"{self.unit}s: {keys}"
            )
        if unseen:
            notices.append(unseen_notice(name, self.unit, unseen))
        if made:
            notices.append(
                f"{name}: {len(made)} of {total} cases have no id; each gets one from its "
                f"content (such as {made[0]}); give them an id to keep it when a case changes"
            )
        warnings = []
        if self.unapplied:
            counted = ", ".join(f"{kind} ×{n}" for kind, n in sorted(self.unapplied.items()))
            warnings.append(
                f"{name}: promptfoo assertions not applied (no check or juror does what they "
                f"ask; kept in metadata, and the verdicts are reached without them): {counted}"
            )
        return notices, warnings
