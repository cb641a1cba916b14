"""What a run says as it goes (`Notices`): warnings and notes, kept for the `jury.Run` and
handed at once to whoever asked to hear them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["Kind", "Notices"]

#: A notice's kind: a warning (something the user should know, also in the reports), a note
#: (how the cases were read), or the run's status (resumed, a repeat begun, batches sent).
Kind = Literal["warning", "note", "status"]


@dataclass(slots=True)
class Notices:
    """What a run said as it went: kept for the `Run`, and handed to `notify` at once (the
    command prints them as they come: a long run does not hide them until its end)."""

    notify: Callable[[Kind, str], None] | None = None
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def warning(self, text: str) -> None:
        self.warnings.append(text)
        if self.notify is not None:
            self.notify("warning", text)

    def note(self, text: str, kind: Kind = "note") -> None:
        self.notes.append(text)
        if self.notify is not None:
            self.notify(kind, text)

    def status(self, text: str) -> None:
        self.note(text, "status")

    def absorb(self, other: Notices) -> None:
        """Keep what `other` (a part of this run: a repeat) said, already heard, each
        warning once."""
        self.warnings += [
            text for text in dict.fromkeys(other.warnings) if text not in self.warnings
        ]
        self.notes += other.notes
