"""The evidence a learned jury is fitted on: each case's sources and label, and the simple
ways of deciding it is measured against (the naive majority, each juror alone)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .._errors import ConfigError
from .._verdict import CaseVerdict, Score, VoteStatus
from ..decide._learned import (
    PASS_CLASSES,
    PASS_TARGET,
    SourceKey,
    is_soft,
    signals,
    value_key,
    vote_value,
)

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from ..adapters._rubric import Rubric
    from ..cases._case import Case
    from ._panel_stats import EffectiveJudges
    from ._ratings import Ratings
    from ._seat_errors import SeatErrors
    from ._seats import Seats

__all__ = [
    "Labelled",
    "Method",
    "Rows",
    "alone",
    "consistency",
    "effective",
    "errors",
    "labelled_table",
    "method",
    "naive",
    "target_labels",
]

Rows = list[dict[SourceKey, str]]


@dataclass(slots=True)
class Labelled:
    """The evidence and labels of the cases, for one target."""

    target: str
    classes: tuple[Score, ...]
    ids: list[str] = field(default_factory=list)
    rows: Rows = field(default_factory=list)
    #: Each juror's own value on the case (its valid vote), for the naive majority.
    jurors: list[dict[str, str]] = field(default_factory=list)
    #: Class index, or -1 where the case has no label for the target.
    labels: list[int] = field(default_factory=list)

    @property
    def keys(self) -> list[str]:
        return [value_key(c) for c in self.classes]

    def only(self, jurors: Sequence[str], members: Sequence[int]) -> Rows:
        return [{k: v for k, v in self.rows[i].items() if k[0] in jurors} for i in members]


def target_classes(rubric: Rubric, cases: Sequence[Case], target: str) -> tuple[Score, ...]:
    if target == PASS_TARGET:
        return PASS_CLASSES
    for case in cases:
        for metric in rubric.metrics(case):
            if metric.name == target:
                if len(metric.values) < 2:
                    raise ConfigError(
                        f"--target {target}: a learned jury needs a metric with declared values"
                    )
                return metric.values
    raise ConfigError(f"--target {target}: neither 'pass' nor a metric of {rubric.name}")


def _label(raw: Any, target: str) -> str:
    if target == PASS_TARGET:
        passed = raw.strip().upper() == "PASS" if isinstance(raw, str) else raw
        return {True: "PASS", False: "FAIL"}.get(passed, repr(raw))
    return value_key(raw)


def target_labels(cases: Sequence[Case], rubric: Rubric, target: str) -> list[str | None]:
    """Each case's label of `target` as the fit spells its classes (None: not labelled),
    read before any juror is asked. A label off the target's values is an error naming its
    cases (never dropped, never clamped)."""
    keys = [value_key(c) for c in target_classes(rubric, cases, target)]
    found: list[str | None] = []
    wrong: list[str] = []
    for case in cases:
        key = "verdict" if target == PASS_TARGET and "verdict" in case.labels else target
        label = _label(case.labels[key], target) if key in case.labels else None
        if label is not None and label not in keys:
            wrong.append(f"{case.id} ({case.labels[key]!r})")
        found.append(label)
    if wrong:
        more = f" and {len(wrong) - 5} more" if len(wrong) > 5 else ""
        raise ConfigError(
            f"labels off the values of {target} ({', '.join(keys)}): {', '.join(wrong[:5])}{more}"
        )
    return found


def labelled_table(
    cases: Sequence[Case], verdicts: Sequence[CaseVerdict], rubric: Rubric, target: str
) -> Labelled:
    """The evidence of every case and the label of those labelled on `target`
    (`target_labels`)."""
    table = Labelled(target, target_classes(rubric, cases, target))
    keys = table.keys
    labels = target_labels(cases, rubric, target)
    for case, verdict, label in zip(cases, verdicts, labels, strict=True):
        table.ids.append(case.id)
        table.rows.append(signals(case, verdict.votes, rubric, target))
        own = {}
        for vote in verdict.votes:
            if vote.status is VoteStatus.VALID:
                value = vote_value(case, rubric, target, vote.scores, vote.verdict)
                if value is not None:
                    own[vote.juror] = value
        table.jurors.append(own)
        table.labels.append(-1 if label is None else keys.index(label))
    return table


@dataclass(slots=True)
class Method:
    """One way of deciding, measured on held-out cases."""

    name: str
    right: int
    decided: int
    cases: int

    @property
    def accuracy_all(self) -> float:
        return self.right / self.cases if self.cases else 0.0

    @property
    def accuracy_decided(self) -> float | None:
        return self.right / self.decided if self.decided else None

    @property
    def coverage(self) -> float:
        return self.decided / self.cases if self.cases else 0.0


def method(name: str, index: Sequence[int] | NDArray[np.int64], labels: Sequence[int]) -> Method:
    found, y = np.asarray(index), np.asarray(labels)
    return Method(name, int(np.sum(found == y)), int(np.sum(found >= 0)), len(y))


def naive(table: Labelled, members: Sequence[int], jurors: Sequence[str]) -> list[int]:
    """The naive majority of the jurors' own valid votes (-1: none, or an even split)."""
    out = []
    for i in members:
        said = [v for j, v in table.jurors[i].items() if j in jurors]
        counts = [said.count(key) for key in table.keys]
        top = max(counts)
        out.append(counts.index(top) if top and counts.count(top) == 1 else -1)
    return out


def alone(table: Labelled, members: Sequence[int], juror: str) -> list[int]:
    keys = table.keys
    return [keys.index(v) if (v := table.jurors[i].get(juror)) in keys else -1 for i in members]


def consistency(table: Labelled, jurors: Sequence[str]) -> dict[str, tuple[int, int]]:
    """Per juror, (cases whose presentation orders all said the same, cases with two or
    more orders read): its position consistency. Jurors without orders are left out."""
    out: dict[str, tuple[int, int]] = {}
    for juror in jurors:
        same = judged = 0
        for row in table.rows:
            said = [
                v
                for (j, order), v in row.items()
                if j == juror and order is not None and not is_soft(order)
            ]
            if len(said) >= 2:
                judged += 1
                same += len(set(said)) == 1
        if judged:
            out[juror] = (same, judged)
    return out


def _against_labels(table: Labelled, jurors: Sequence[str]) -> tuple[Ratings, dict[str, str]]:
    """Each juror's own value on the labelled cases, and those cases' labels."""
    from ._ratings import Ratings

    members = [i for i, label in enumerate(table.labels) if label >= 0]
    keys = set(table.keys)
    rows = [[v if (v := table.jurors[i].get(j)) in keys else None for j in jurors] for i in members]
    ratings = Ratings.from_rows(
        rows,
        values=table.keys,
        raters=list(jurors),
        units=[table.ids[i] for i in members],
        name=table.target,
    )
    labels = {table.ids[i]: table.keys[table.labels[i]] for i in members}
    return ratings, labels


def effective(
    table: Labelled, jurors: Sequence[str], seats: Seats | None = None
) -> EffectiveJudges:
    """How many independent judges the jurors are worth, by their errors against the labels
    (`jury.agreement.effective_judges`), knowing which seats share a model (`seats`)."""
    from ._panel_stats import effective_judges

    ratings, labels = _against_labels(table, jurors)
    return effective_judges(ratings, labels, seats=seats)


def errors(table: Labelled, jurors: Sequence[str], seats: Seats | None = None) -> SeatErrors:
    """Each pair of seats' error correlation against the labels, and the seats that add
    little (`jury.agreement._seat_errors`)."""
    from ._panel_stats import with_labels
    from ._seat_errors import seat_errors

    ratings, labels = _against_labels(table, jurors)
    return seat_errors(with_labels(ratings, labels), seats)
