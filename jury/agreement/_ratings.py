"""Ratings (units x raters, with missing cells) and the result every agreement statistic returns.

A rating is missing when a juror had no valid vote on a case: unavailable, invalid and abstained
votes are missing, never a zero or a "fail" (docs/architecture.md, principle 2). Values are kept
as codes into an ordered value domain, so the statistics never round a score into a category.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from .._verdict import CaseVerdict, Score, Verdict, VoteStatus
from ..adapters._rubric import Level, Metric
from ._values import VERDICT, Estimate, check_level, encode

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["VERDICT", "Estimate", "Ratings"]


class Ratings:
    """Ratings of units (cases) by raters (jurors, or one juror's samples).

    `values` is the ordered value domain: the rubric's declared values (worst to best) and any
    other value observed. Numbers are ordered by size; other values keep their declared order.
    The level of measurement (nominal, ordinal, interval, ratio) follows the rubric's metric.
    """

    def __init__(
        self,
        units: Sequence[str],
        raters: Sequence[str],
        codes: NDArray[np.int64],
        values: Sequence[Score],
        level: Level,
        *,
        name: str = "",
        declared: bool = False,
    ) -> None:
        if codes.shape != (len(units), len(raters)):
            raise ValueError(f"codes are {codes.shape}, expected {(len(units), len(raters))}")
        check_level(values, level, name)
        self.units = tuple(units)
        self.raters = tuple(raters)
        self.codes = codes
        self.values = tuple(values)
        self.level: Level = level
        self.name = name
        #: The values are a declared scale (a rating off it is an error), not those observed.
        self.declared = declared

    # --- construction ----------------------------------------------------------------------

    @classmethod
    def from_rows(
        cls,
        rows: Sequence[Sequence[Score | None]],
        *,
        level: Level = "nominal",
        values: Sequence[Score] = (),
        raters: Sequence[str] | None = None,
        units: Sequence[str] | None = None,
        name: str = "",
    ) -> Ratings:
        """Ratings from one row per unit, one column per rater; None (or NaN) is missing.

        `values` declares the scale (worst to best), including values nobody used; a rating
        off it, or an infinite one, raises `ValueError`.
        """
        width = len(rows[0]) if rows else len(raters or ())
        if any(len(row) != width for row in rows):
            raise ValueError("every row needs one cell per rater")
        raters = tuple(raters) if raters is not None else tuple(f"r{i + 1}" for i in range(width))
        units = tuple(units) if units is not None else tuple(str(i + 1) for i in range(len(rows)))
        if len(raters) != width or len(units) != len(rows):
            raise ValueError("raters and units must match the rows")
        codes, domain = encode(rows, values, level, name)
        return cls(
            units,
            raters,
            np.array(codes, dtype=np.int64).reshape(len(units), len(raters)),
            domain,
            level,
            name=name,
            declared=bool(values),
        )

    @classmethod
    def from_verdicts(
        cls,
        verdicts: Iterable[CaseVerdict],
        metric: Metric = VERDICT,
        *,
        jurors: Sequence[str] | None = None,
        level: Level | None = None,
    ) -> Ratings:
        """Each juror's value of `metric` on each case, from its valid vote.

        Any other vote status (invalid, unavailable, abstained) and a juror absent from a
        case are missing ratings. With `VERDICT`, the juror's own PASS/FAIL verdict is the
        rating. Cases are units in the order given; jurors are sorted unless given.
        """
        units: list[str] = []
        table: list[dict[str, Score]] = []
        seen: set[str] = set()
        for verdict in verdicts:
            units.append(verdict.case_id)
            row: dict[str, Score] = {}
            for vote in verdict.votes:
                seen.add(vote.juror)
                if vote.status is not VoteStatus.VALID:
                    continue
                value = _vote_value(vote.verdict, vote.scores, metric)
                if value is not None:
                    row[vote.juror] = value
            table.append(row)
        names = tuple(jurors) if jurors is not None else tuple(sorted(seen))
        rows = [[row.get(juror) for juror in names] for row in table]
        return cls.from_rows(
            rows,
            level=level or metric.level,
            values=metric.values,
            raters=names,
            units=units,
            name=metric.name,
        )

    @classmethod
    def from_samples(
        cls,
        verdicts: Iterable[CaseVerdict],
        metric: Metric,
        juror: str,
        *,
        level: Level | None = None,
    ) -> Ratings:
        """One juror's repeated samples as raters (sample 1, sample 2, ...) on each case.

        Cases where the juror kept no samples (one sample per case, or an invalid or
        unavailable vote) are left out. Abstained votes whose samples split are kept: their
        disagreement is exactly what stability measures.
        """
        units: list[str] = []
        rows: list[list[Score | None]] = []
        width = 0
        for verdict in verdicts:
            for vote in verdict.votes:
                if vote.juror != juror or len(vote.samples) < 2:
                    continue
                units.append(verdict.case_id)
                rows.append(
                    [_vote_value(ballot.verdict, ballot.scores, metric) for ballot in vote.samples]
                )
                width = max(width, len(vote.samples))
        rows = [row + [None] * (width - len(row)) for row in rows]
        return cls.from_rows(
            rows,
            level=level or metric.level,
            values=metric.values,
            raters=[f"sample {i + 1}" for i in range(width)],
            units=units,
            name=f"{metric.name} ({juror} samples)",
        )

    # --- views -----------------------------------------------------------------------------

    def select(self, raters: Sequence[str]) -> Ratings:
        """The same units, rated by `raters` only."""
        columns = [self.raters.index(r) for r in raters]
        return Ratings(
            self.units,
            raters,
            self.codes[:, columns],
            self.values,
            self.level,
            name=self.name,
            declared=self.declared,
        )

    def without(self, rater: str) -> Ratings:
        return self.select([r for r in self.raters if r != rater])

    def with_level(self, level: Level) -> Ratings:
        return Ratings(
            self.units,
            self.raters,
            self.codes,
            self.values,
            level,
            name=self.name,
            declared=self.declared,
        )

    def rows(self) -> list[list[Score | None]]:
        """Back to values: one row per unit, None where missing."""
        return [[None if c < 0 else self.values[c] for c in row] for row in self.codes.tolist()]

    def numeric(self) -> NDArray[np.float64]:
        """The numeric value of each domain value (interval and ratio levels)."""
        return np.array([float(v) for v in self.values], dtype=np.float64)

    def __repr__(self) -> str:
        return (
            f"Ratings({self.name!r}, {len(self.units)} units x {len(self.raters)} raters, "
            f"{self.level}, values={self.values!r})"
        )


def _vote_value(
    verdict: Verdict | None, scores: Mapping[str, Score], metric: Metric
) -> Score | None:
    if metric == VERDICT:
        return verdict.value if verdict in (Verdict.PASS, Verdict.FAIL) else None
    return scores.get(metric.name)
