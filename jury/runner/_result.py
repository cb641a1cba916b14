"""`jury.Run`: what a run gives, and a recorded run read again.

`jury.run` returns one; `Run.open(path)` reads one from its directory (any run this version
can read: finished, interrupted, resumed, re-scored, merged). Its verdicts, cases, votes and
manifest are read from the records when first asked for; its summary is the one its reports
were written from, or, for a run read again, made from its verdicts the same way.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import RunRecordError
from .._verdict import CaseVerdict, Vote
from ..cases._case import Case
from ..panel._panel import Gate, Panel

if TYPE_CHECKING:
    from ..report._estimate import Estimated
    from ..report._publish import Published
    from ..report._summary import RunSummary
    from ._notices import Notices

__all__ = ["Run", "total_cost"]


def total_cost(runs: Sequence[Run]) -> float | None:
    """USD of these runs' calls together; None when any one's price is unknown."""
    costs = [run.cost for run in runs]
    return None if None in costs else sum(c for c in costs if c is not None)


class Run:
    """A run of the gate: its directory, records, summary and outcome.

    `passed` is true when the gate passed (exit code 0); `exit_code` is the command's (0
    passed, 1 failed, 3 inconclusive or pending batches); `cost` is what its calls cost (None
    when a price is unknown). `warnings` and `notes` are what it said as it went. A run
    interrupted before its end has no outcome yet (`finished` is false); resume it with
    ``jury.run(resume=path)``.
    """

    def __init__(
        self,
        path: Path | None,
        *,
        published: Published | None = None,
        warnings: Sequence[str] = (),
        notes: Sequence[str] = (),
        pending: Sequence[str] = (),
        estimate: Estimated | None = None,
        repeats: Sequence[Run] = (),
        stability: dict[str, Any] | None = None,
        stability_lines: Sequence[str] = (),
    ) -> None:
        self.path = path
        self.warnings = tuple(warnings)
        self.notes = tuple(notes)
        #: A batch run that stopped with its batches pending: what it waits for, when to
        #: come back (its outcome is not known yet: exit code 3).
        self.pending = tuple(pending)
        #: A dry run's estimate of the calls and cost (nothing was called or recorded).
        self.estimate = estimate
        #: A run with ``repeat = N``: each repeat's run, and each case's stability over them.
        self.repeats = tuple(repeats)
        self.stability = stability
        #: What the terminal says of that stability.
        self.stability_lines = tuple(stability_lines)
        self._published = published

    # --- made by `jury.run` -----------------------------------------------------------

    @classmethod
    def published_as(cls, path: Path, published: Published, said: Notices) -> Run:
        return cls(path, published=published, warnings=published.warnings, notes=said.notes)

    @classmethod
    def pending_batches(cls, path: Path, lines: Sequence[str], said: Notices) -> Run:
        return cls(path, pending=lines, warnings=said.warnings, notes=said.notes)

    @classmethod
    def estimated(cls, found: Estimated, said: Notices) -> Run:
        return cls(None, estimate=found, warnings=said.warnings, notes=said.notes)

    @classmethod
    def repeated(
        cls,
        path: Path,
        runs: Sequence[Run],
        stability: dict[str, Any],
        lines: Sequence[str],
        said: Notices,
    ) -> Run:
        return cls(
            path,
            repeats=runs,
            stability=stability,
            stability_lines=lines,
            warnings=said.warnings,
            notes=said.notes,
        )

    # --- read from the records -------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path) -> Run:
        """A recorded run, read from its directory (`jury.RunRecordError` when it is not one
        this version can read)."""
        from ..report._run_reports import recorded_warnings
        from ..runs._records import require_manifest

        manifest = require_manifest(path)
        found = cls(Path(path), warnings=recorded_warnings(manifest))
        found.__dict__["manifest"] = manifest
        return found

    @staticmethod
    def read_manifest(path: str | Path) -> dict[str, Any]:
        """The manifest of a run directory, or an empty mapping when it has none (a run still
        going, a bare ``verdicts.jsonl``); `manifest` is the strict reading."""
        from ..runs._records import read_manifest

        return read_manifest(path)

    @staticmethod
    def new_path(base: str | Path = "runs") -> Path:
        """Where a new run is recorded by default: ``runs/<UTC time>-<short id>``."""
        from ..runs._records import new_run_dir

        return new_run_dir(base)

    @cached_property
    def manifest(self) -> dict[str, Any]:
        """The run's manifest (versions, command, jury, rubric, cases, options)."""
        from ..runs._records import require_manifest

        return require_manifest(self._where())

    @cached_property
    def verdicts(self) -> list[CaseVerdict]:
        """Every recorded verdict, in the order they were written."""
        from ._options import run_verdicts

        return run_verdicts(self._where())

    def cases(self) -> Iterator[Case]:
        """The cases as they were judged (the agent's answers in them, redacted)."""
        from ..runs._records import read_cases

        return read_cases(self._where())

    def votes(self) -> Iterator[tuple[str, Vote]]:
        """Every vote of the run, with its case's ID."""
        for verdict in self.verdicts:
            for vote in verdict.votes:
                yield verdict.case_id, vote

    @property
    def panel(self) -> Panel:
        """The jury as the run recorded it."""
        try:
            return Panel.model_validate(self.manifest["jury"])
        except (KeyError, ValueError) as exc:
            raise RunRecordError(
                str(self.path), f"the recorded jury cannot be read: {exc}"
            ) from None

    @property
    def gate(self) -> Gate:
        return self._published.gate if self._published is not None else self.panel.gate

    @cached_property
    def summary(self) -> RunSummary:
        """What the run came to: counts, categories, cases to look at, each juror's record."""
        if self._published is not None:
            return self._published.summary
        if self.repeats:
            raise AttributeError("a run of repeats has a summary per repeat (`repeats`)")
        from ..panel._warnings import juror_family
        from ..report._summary import summarize, with_unjudged

        panel = self.panel
        jurors = [juror.id for juror in panel.jurors]
        families = {juror.id: juror_family(juror) for juror in panel.jurors}
        return with_unjudged(summarize(self.verdicts, jurors, families), self.manifest)

    @property
    def finished(self) -> bool:
        """Whether every case has its verdict and the gate has decided (not a dry run, not
        interrupted, not waiting on batches)."""
        if self.estimate is not None or self.pending:
            return False
        if self.repeats:
            return all(run.finished for run in self.repeats)
        return self._published is not None or "exit_code" in self.manifest

    @property
    def exit_code(self) -> int:
        """0 the gate passed, 1 it failed, 3 inconclusive (or batches pending); a run of
        repeats gives the gate's on its k-of-N verdicts (``require``), else its worst
        repeat's (1 before 3)."""
        if self.estimate is not None:
            return 0
        if self.pending:
            return 3
        if self.repeats:
            rule = (self.stability or {}).get("rule")
            if rule is not None:  # each case decided by K of its N answers, then the gate
                return int(rule["exit_code"])
            codes = [run.exit_code for run in self.repeats]
            return next((code for code in (1, 3) if code in codes), 0)
        return self.summary.exit_code(self.gate)

    @property
    def passed(self) -> bool:
        return self.finished and self.exit_code == 0

    @property
    def cost(self) -> float | None:
        """USD of the run's calls (None when a price is unknown)."""
        if self.repeats:
            return total_cost(self.repeats)
        return self.summary.cost

    @property
    def published(self) -> Published | None:
        """The reports as the run wrote them (None for a run read again)."""
        return self._published

    def _where(self) -> Path:
        if self.path is None:
            raise AttributeError("a dry run records nothing: it has no run directory")
        return self.path

    def __repr__(self) -> str:
        if self.estimate is not None:
            return "<jury.Run dry run>"
        state = f"exit {self.exit_code}" if self.finished else "not finished"
        return f"<jury.Run {self.path} {state}>"
