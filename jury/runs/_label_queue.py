"""Which case a labeller sees next, and what they have done: the state behind `jury label`.

Order ``teach`` (the default) puts first the unlabelled case whose label teaches the jury
most: a case where the jurors split, then the one the panel is least sure of (a learned
jury's confidence where the run has one, otherwise the share of valid votes that agree with
the panel's verdict), then a case of the category with the fewest labels so far (so every
category gets labels), then file order. The order is worked out again after each label, since
the counts per category change. Order ``random`` is a shuffle fixed by the seed: an unbiased
sample of the cases, for estimating how often the jury is right.

A label counts as done for a labeller when it is in force (`current_labels`), the case has
not changed since (`case_hash`), and it gives every field the page asks for; a stale label
puts the case back in the queue.

A page may ask for a subset of the fields (``only``: ``pass`` alone is the pass/fail-only
mode, or any of the rubric's metrics). Each label line records the fields it was asked
(``asked``), and keeps the labeller's earlier values of the fields not asked this time, so a
pass/fail pass over cases labelled in full (or the other way round) loses nothing. A case for
which the rubric has none of the fields asked is left out of the queue, and counted.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from .._errors import ConfigError
from .._verdict import CaseVerdict, Metric, VoteStatus
from ..adapters._rubric import Rubric
from ..cases._case import Case
from ._labels import (
    Label,
    LabelWriter,
    case_hash,
    check_label,
    check_only,
    current_labels,
    label_fields,
    now,
)

__all__ = ["LabelQueue", "Order", "confidence", "split"]

Order = Literal["teach", "random"]


def split(verdict: CaseVerdict | None) -> bool:
    """Whether the jurors disagreed on the case (a flag of the run, or two verdicts)."""
    if verdict is None:
        return False
    said = {v.verdict for v in verdict.votes if v.status is VoteStatus.VALID and v.verdict}
    return verdict.disagreement or len(said) > 1


def confidence(verdict: CaseVerdict | None) -> float:
    """How sure the panel is of its verdict, 0 to 1 (0 when no juror gave a valid vote)."""
    if verdict is None:
        return 0.0
    if verdict.confidence is not None:
        return verdict.confidence
    valid = [v for v in verdict.votes if v.status is VoteStatus.VALID and v.verdict]
    if not valid:
        return 0.0
    return sum(v.verdict is verdict.verdict for v in valid) / len(valid)


class LabelQueue:
    """The cases one labeller labels, their labels, and the writer that keeps them."""

    def __init__(
        self,
        cases: Sequence[Case],
        verdicts: Mapping[str, CaseVerdict],
        rubric: Rubric,
        labeller: str,
        existing: Sequence[Label],
        writer: LabelWriter,
        *,
        order: Order = "teach",
        seed: int = 0,
        only: Sequence[str] | None = None,
    ) -> None:
        #: The fields asked for (None: every field of the rubric), checked against it.
        self.only = None if only is None else check_only(rubric, cases, only)
        self.rubric = rubric
        asked = [case for case in cases if self._fields_of(case)]
        #: Cases left out because the rubric asks none of the fields `only` names of them.
        self.left_out = len(cases) - len(asked)
        if not asked:
            raise ConfigError(
                f"--only {','.join(self.only or ())}: no case has these fields to label"
            )
        cases = asked
        self.cases = {case.id: case for case in cases}
        self.verdicts = verdicts
        self.labeller = labeller
        self.writer = writer
        self._hashes = {case.id: case_hash(case) for case in cases}
        self._position = {case.id: n for n, case in enumerate(cases)}
        if order == "random":
            shuffled = list(self.cases)
            random.Random(seed).shuffle(shuffled)
            self._position = {case_id: n for n, case_id in enumerate(shuffled)}
        self.order = order
        self._lines = [label for label in existing if label.case_id in self.cases]
        #: Labels this labeller gave, latest last: what `undo` takes back (a restarted page
        #: can take back what the one before it wrote).
        self._given = [
            label.case_id
            for label in self._lines
            if label.labeller == labeller and label.labels is not None
        ]

    # --- state -------------------------------------------------------------------------------

    def _in_force(self) -> dict[tuple[str, str], Label]:
        return {
            key: label
            for key, label in current_labels(self._lines).items()
            if label.case_hash is None or label.case_hash == self._hashes[label.case_id]
        }

    def _fields_of(self, case: Case) -> tuple[Metric, ...]:
        return label_fields(self.rubric, case, self.only)

    def mine(self) -> dict[str, Label]:
        """Case ID -> this labeller's label in force."""
        return {c: label for (c, who), label in self._in_force().items() if who == self.labeller}

    def done(self) -> dict[str, Label]:
        """Case ID -> this labeller's label in force that gives every field asked here."""
        return {
            case_id: label
            for case_id, label in self.mine().items()
            if all(m.name in (label.labels or {}) for m in self._fields_of(self.cases[case_id]))
        }

    def stale(self, case_id: str) -> bool:
        """Whether this labeller labelled the case before its content changed."""
        label = current_labels(self._lines).get((case_id, self.labeller))
        return label is not None and label.case_hash not in (None, self._hashes[case_id])

    def asking(self) -> str:
        """What the page asks for, as the banner says it ("" for every field)."""
        if self.only is None:
            return ""
        what = "pass/fail only" if self.only == ("pass",) else f"{', '.join(self.only)} only"
        left = f"; {self.left_out} case(s) without these fields left out" if self.left_out else ""
        return f", asking {what}{left}"

    def next_case(self) -> str | None:
        done = self.done()
        left = [case_id for case_id in self.cases if case_id not in done]
        if not left:
            return None
        if self.order == "random":
            return min(left, key=self._position.__getitem__)
        per_category = Counter(self.cases[c].category for c in done)

        def teaches(case_id: str) -> tuple[Any, ...]:
            verdict = self.verdicts.get(case_id)
            category = self.cases[case_id].category
            return (
                not split(verdict),
                confidence(verdict),
                per_category[category],
                self._position[case_id],
            )

        return min(left, key=teaches)

    def progress(self) -> dict[str, Any]:
        done = self.done()
        categories: dict[str, dict[str, int]] = {}
        for case_id, case in self.cases.items():
            cell = categories.setdefault(case.category or "(none)", {"labelled": 0, "left": 0})
            cell["labelled" if case_id in done else "left"] += 1
        return {
            "labelled": len(done),
            "left": len(self.cases) - len(done),
            "categories": categories,
        }

    # --- writes ------------------------------------------------------------------------------

    def fields(self, case_id: str) -> list[dict[str, Any]]:
        return [
            {"name": m.name, "level": m.level, "values": list(m.values)}
            for m in self._fields_of(self.cases[case_id])
        ]

    def label(self, case_id: str, values: Mapping[str, Any], note: str | None) -> str | None:
        """Write a label; the reason it is refused (an unknown case, a missing field, a value
        the rubric does not allow), or None once it is on disk."""
        case = self.cases.get(case_id)
        if case is None:
            return f"case_id: no case with the ID {case_id!r} is being labelled"
        fields = self._fields_of(case)
        missing = [m.name for m in fields if m.name not in values]
        if missing:
            return f"labels: {', '.join(missing)} missing"
        problem = check_label(values, fields)
        if problem is not None:
            return problem
        # The fields not asked this time keep this labeller's values: the latest line wins
        # whole, so it carries them on.
        earlier = self.mine().get(case_id)
        kept = (
            {k: v for k, v in (earlier.labels or {}).items() if k not in values} if earlier else {}
        )
        label = Label(
            case_id=case_id,
            labeller=self.labeller,
            time=now(),
            labels={**kept, **values},
            case_hash=self._hashes[case_id],
            note=note or None,
            asked=tuple(m.name for m in fields),
        )
        self.writer.append(label)
        self._lines.append(label)
        self._given.append(case_id)
        return None

    def undo(self) -> str | None:
        """Take back this labeller's latest label given here (a withdrawal line): the case
        it was, or None when there is nothing to undo."""
        mine = self.mine()
        while self._given:
            case_id = self._given.pop()
            if case_id in mine:
                label = Label(case_id=case_id, labeller=self.labeller, time=now(), labels=None)
                self.writer.append(label)
                self._lines.append(label)
                return case_id
        return None
