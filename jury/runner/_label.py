"""The labelling of a run's cases by hand (`jury label` serves it as a page): which cases, in
which order, under which rubric, and the labels file they are written to, its lines already
there read and checked once the file is this labeller's to write."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .._errors import ConfigError
from ..cases._case import Case
from ..runs import LABELS, LabelQueue, LabelWriter, read_labels, validate_labels
from ._options import files_not_dash, subset_from
from ._result import Run

__all__ = ["Labelling", "labelling"]


@dataclass(frozen=True, slots=True)
class Labelling:
    """A labeller's queue of a run's cases (`queue`), the labels file (`path`) it appends to,
    and what reading that file said (`warnings`)."""

    run: Path
    labeller: str
    path: Path
    cases: tuple[Case, ...]
    queue: LabelQueue
    warnings: tuple[str, ...]


@dataclass(slots=True)
class _Subset:
    ids: Sequence[str] | None
    category: Sequence[str] | None
    sample: int | None
    limit: int | None
    seed: int


@contextmanager
def labelling(
    run: str | Path,
    labeller: str,
    *,
    labels: str | Path | None = None,
    order: Literal["teach", "random"] = "teach",
    rubric: str | None = None,
    ids: Sequence[str] | None = None,
    category: Sequence[str] | None = None,
    sample: int | None = None,
    limit: int | None = None,
    seed: int = 0,
    only: Sequence[str] | None = None,
) -> Iterator[Labelling]:
    """The labelling of `run`'s cases (a subset with `ids`, `category`, `sample`, `limit`) by
    `labeller` into `labels` (default ``RUN/labels.jsonl``), under the run's rubric (or
    `rubric`), asking every field or only those named in `only` ("pass" and metric names);
    the file is this labeller's to write until the block ends."""
    from ..adapters._registry import load_rubric
    from ..report._agreement import manifest_rubric

    where = Path(run)
    recorded = Run(where)
    everything = list(recorded.cases())
    if not everything:
        raise ConfigError(f"{where}: the run has no cases to label")
    name = rubric or manifest_rubric(Run.read_manifest(where))
    if not name:
        raise ConfigError(f"{where}: the manifest names no rubric; give --rubric")
    judged = load_rubric(name)
    verdicts = {verdict.case_id: verdict for verdict in recorded.verdicts}
    cases = everything
    subset = subset_from(_Subset(ids, category, sample, limit, seed))
    if not subset.everything:
        kept = set(subset.select((case.id, case.category) for case in cases))
        cases = [case for case in cases if case.id in kept]
    files_not_dash(("--labels", labels), why="the labels are appended to a file that lasts")
    path = Path(labels) if labels else where / LABELS
    with LabelWriter(path) as writer:
        # Read once the file is ours: no other page can append between the read and ours.
        existing = read_labels(path)
        by_id = {case.id: case for case in everything}
        _, warnings = validate_labels(existing, by_id, judged, path)
        queue = LabelQueue(
            cases, verdicts, judged, labeller, existing, writer, order=order, seed=seed, only=only
        )
        yield Labelling(where, labeller, path, tuple(cases), queue, tuple(warnings))
