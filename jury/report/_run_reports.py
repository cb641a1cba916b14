"""A run's reports from the `jury.Run` that `jury.run` returned or `jury.Run.open` read:
the terminal report printed, the HTML and JUnit reports and the summary written where asked.

A run `jury.run` just made prints the report its reports were written from; a run read
again is published again from its records (the same pass as `jury report RUN`), its
directory left as it is.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .._errors import ConfigError
from ..panel._panel import Panel
from ._publish import Published, ReportPaths, print_published, publish

if TYPE_CHECKING:
    from ._estimate import Estimated

__all__ = [
    "print_report",
    "recorded_warnings",
    "republish",
    "write_html",
    "write_json",
    "write_junit",
]


class RunLike(Protocol):
    """What these functions read of a `jury.Run` (kept a protocol: the runner, which makes
    runs, sits above the reports)."""

    @property
    def path(self) -> Path | None: ...

    @property
    def published(self) -> Published | None: ...

    @property
    def estimate(self) -> Estimated | None: ...

    @property
    def pending(self) -> tuple[str, ...]: ...

    @property
    def repeats(self) -> tuple[Any, ...]: ...

    @property
    def stability_lines(self) -> tuple[str, ...]: ...


def recorded_warnings(manifest: Mapping[str, Any]) -> tuple[str, ...]:
    """What a finished run warned of, as its manifest records them (none for a run recorded
    before they were)."""
    said = manifest.get("warnings")
    return tuple(str(warning) for warning in said) if isinstance(said, list) else ()


def republish(run: str | Path, paths: ReportPaths | None = None) -> Published:
    """The reports of a recorded run, made again from its records and written to `paths`
    (none by default); its directory is left as it is."""
    from ..runs._records import require_manifest

    manifest = require_manifest(run)
    try:
        panel = Panel.model_validate(manifest["jury"])
    except (KeyError, ValueError) as exc:
        raise ConfigError(f"{run}: the recorded jury cannot be read: {exc}") from None
    rubric = manifest.get("rubric", {}).get("name", panel.rubric)
    return publish(
        Path(run),
        panel,
        rubric,
        jurors=[juror.id for juror in panel.jurors],
        warnings=recorded_warnings(manifest),
        paths=paths,
        into_run=False,
    )


def _published(run: RunLike, paths: ReportPaths | None = None) -> Published:
    if run.path is None:
        raise ConfigError("a dry run records nothing: it has no reports")
    if run.repeats or run.pending:
        raise ConfigError(
            f"{run.path}: a run of repeats or a batch run still pending has no reports of its "
            "own (each repeat has its own; a pending run has them once it is collected)"
        )
    if paths is None and run.published is not None:
        return run.published
    return republish(run.path, paths)


def print_report(run: RunLike, file: Any = None) -> None:
    """Print the run's terminal report to `file` (standard output by default): the verdicts,
    the failures, the judges' errors, the gate; for a dry run its estimate, for a run of
    repeats each repeat's report and their stability, for a batch run still pending what it
    waits for."""
    out = file or sys.stdout
    if run.estimate is not None:
        run.estimate.print(out)
        return
    if run.repeats:
        for repeat in run.repeats:
            print_report(repeat, out)
        for line in run.stability_lines:
            print(line, file=out)
        return
    if run.pending:
        for line in run.pending:
            print(line, file=out)
        return
    print_published(_published(run), out)


def write_html(run: RunLike, path: str | Path) -> Path:
    """Write the run's self-contained HTML report to `path`."""
    _published(run, ReportPaths(html=Path(path)))
    return Path(path)


def write_junit(run: RunLike, path: str | Path) -> Path:
    """Write the run's JUnit XML report to `path`."""
    _published(run, ReportPaths(junit=Path(path)))
    return Path(path)


def write_json(run: RunLike, path: str | Path) -> Path:
    """Write the run's summary (the JSON of ``summary.json``) to `path`."""
    _published(run, ReportPaths(json=Path(path)))
    return Path(path)
