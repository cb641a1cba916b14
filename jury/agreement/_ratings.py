"""Ratings (units x raters, with missing cells) and the result every agreement statistic returns.

A rating is missing when a juror had no valid vote on a case: unavailable, invalid and abstained
votes are missing, never a zero or a "fail" (docs/architecture.md, principle 2). Values are kept
as codes into an ordered value domain, so the statistics never round a score into a category.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from .._verdict import CaseVerdict, Score, Verdict, VoteStatus
from ..adapters._rubric import Level, Metric

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["VERDICT", "Estimate", "Ratings"]

#: The pseudo-metric of each juror's own verdict (PASS or FAIL), for Fleiss' kappa on
#: pass/fail. An INCONCLUSIVE juror verdict is a missing rating.
VERDICT = Metric(name="verdict", level="nominal", values=("FAIL", "PASS"))

_MISSING = -1


class Estimate(BaseModel):
    """A statistic's value, or why it is undefined; with its interval and sample size.

    `value` is None exactly when the statistic cannot be computed (no variation, no unit with
    two ratings...), and `reason` says why: an undefined agreement is never reported as 1 or 0.
    The interval is a percentile bootstrap over units (`resamples` of them); resamples on
    which the statistic was itself undefined are left out and counted in
    `undefined_resamples`.
    """

    model_config = ConfigDict(frozen=True)

    statistic: str
    value: float | None
    reason: str | None = None
    #: Units (cases) that entered the statistic.
    units: int = 0
    low: float | None = None
    high: float | None = None
    confidence: float | None = None
    resamples: int = 0
    undefined_resamples: int = 0

    @property
    def defined(self) -> bool:
        return self.value is not None

    def __str__(self) -> str:
        if self.value is None:
            return f"undefined ({self.reason})"
        text = f"{self.value:.3f}"
        if self.low is not None and self.high is not None:
            text += f" [{self.low:.3f}, {self.high:.3f}]"
        return f"{text} (n={self.units})"


def undefined(statistic: str, reason: str, units: int = 0) -> Estimate:
    return Estimate(statistic=statistic, value=None, reason=reason, units=units)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_)
    )


def _is_missing(value: object) -> bool:
    # Any float NaN (numpy's float32 too) is missing, as None is.
    return value is None or (_is_number(value) and math.isnan(float(value)))  # type: ignore[arg-type]


def _key(value: Score) -> tuple[str, Any]:
    # True == 1 in Python: tag the kind so a bool never merges with a number.
    if isinstance(value, (bool, np.bool_)):
        return ("bool", bool(value))
    if _is_number(value):
        return ("number", float(value))
    return ("text", value)


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
        if level in ("interval", "ratio") and not all(_is_number(v) for v in values):
            raise ValueError(f"{name or 'ratings'}: the {level} level needs numeric values")
        if level == "ratio" and any(float(v) < 0 for v in values):
            raise ValueError(f"{name or 'ratings'}: the ratio level needs values >= 0")
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
        cells = [[None if _is_missing(v) else v for v in row] for row in rows]
        domain = _domain(values, (v for row in cells for v in row if v is not None), level, name)
        index = {_key(v): i for i, v in enumerate(domain)}
        codes = np.array(
            [[_MISSING if v is None else index[_key(v)] for v in row] for row in cells],
            dtype=np.int64,
        ).reshape(len(units), len(raters))
        return cls(units, raters, codes, domain, level, name=name, declared=bool(values))

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


def _domain(
    declared: Sequence[Score], observed: Iterable[Score], level: Level, name: str
) -> tuple[Score, ...]:
    """The declared values in their order; without a declaration, the values observed.

    Rules: a rating off a declared scale (a 7 on 1-5, "MAYBE" on FAIL/PASS) is an error, never
    a new category; an infinite rating is an error (no distance to it is finite); numbers
    order themselves, other values sort by their text; at the ordinal level, text among
    numbers is an error (it has no rank).
    """
    label = name or "ratings"
    observed = list(observed)
    infinite = [v for v in observed if _is_number(v) and math.isinf(float(v))]
    if infinite:
        raise ValueError(f"{label}: {infinite[0]!r} is not a finite rating")
    domain: dict[tuple[str, Any], Score] = {_key(v): v for v in declared}
    extras = {_key(v): v for v in observed if _key(v) not in domain}
    if not extras:
        return tuple(domain.values())
    if declared:
        shown = ", ".join(repr(v) for v in list(extras.values())[:3])
        scale = ", ".join(repr(v) for v in declared[:6]) + (", ..." if len(declared) > 6 else "")
        raise ValueError(f"{label}: {shown} is not on the declared {level} scale ({scale})")
    if all(_is_number(v) for v in extras.values()):
        return tuple(sorted(extras.values(), key=float))
    text = [v for v in extras.values() if not _is_number(v)]
    if level == "ordinal" and len(text) < len(extras):
        # Numbers order themselves; a text value among them has no rank, and sorting it by
        # its text put a judge's unparsed "garbage" at the top of the scale.
        raise ValueError(
            f"{label}: {text[0]!r} is text among numbers: it has no place on the ordinal "
            "scale (declare the scale, or make it a missing rating)"
        )
    return tuple(sorted(extras.values(), key=str))
