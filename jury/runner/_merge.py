"""`jury.merge`: the run directories of one run's shards (``jury run --shard i/n``) joined
into one run directory, with the whole run's reports."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from ..panel._panel import Panel
from ..report._publish import publish
from ..report._run_reports import recorded_warnings
from ..runs._merge import merge_runs
from ._notices import Notices
from ._options import run_folder
from ._result import Run

__all__ = ["merge"]


def merge(runs: Sequence[str | Path], *, out: str | Path | None = None) -> Run:
    """Join the shards' run directories into `out` (default ``runs/<time>-<id>``): they must
    share the cases file, jury and rubric, each shard given once and none missing, each
    finished (`jury.MergeError` names every problem). The merged `Run`, its reports written."""
    where = run_folder(out)
    merged = merge_runs([str(run) for run in runs], where, sys.argv)
    panel = Panel.model_validate(merged.manifest["jury"])
    rubric = merged.manifest["rubric"]["name"]
    said = recorded_warnings(merged.manifest)  # the shards', as the merged manifest has them
    jurors = [juror.id for juror in panel.jurors]
    published = publish(where, panel, rubric, jurors=jurors, warnings=said)
    merged.record.finish(exit_code=published.summary.exit_code(panel.gate))
    return Run.published_as(where, published, Notices())
