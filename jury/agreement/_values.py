"""What the agreement statistics share and a run's page needs without NumPy: the `Estimate`
they return, and the value domain of a metric's ratings (`encode`). Nothing here imports
NumPy, so a run's report can compute its figures (`_plain`) without loading it (issue 36)."""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from .._verdict import Score
from ..adapters._rubric import Level, Metric

__all__ = [
    "MISSING",
    "TINY",
    "VERDICT",
    "Estimate",
    "check_level",
    "encode",
    "observed_level",
    "quantiles",
    "undefined",
]

#: The pseudo-metric of each juror's own verdict (PASS or FAIL), for Fleiss' kappa on
#: pass/fail. An INCONCLUSIVE juror verdict is a missing rating.
VERDICT = Metric(name="verdict", level="nominal", values=("FAIL", "PASS"))

#: The code of a missing rating.
MISSING = -1
#: Relative size below which a chance disagreement counts as zero (all values alike).
TINY = 1e-12


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


def _numpy() -> Any:
    # A NumPy scalar exists only once NumPy is imported: its types are looked up, never
    # imported here.
    return sys.modules.get("numpy")


def _is_bool(value: object) -> bool:
    np = _numpy()
    return isinstance(value, bool) or (np is not None and isinstance(value, np.bool_))


def _is_number(value: object) -> bool:
    if isinstance(value, (int, float)):
        return not isinstance(value, bool)
    np = _numpy()
    return np is not None and isinstance(value, (np.integer, np.floating))


def _is_missing(value: object) -> bool:
    # Any float NaN (numpy's float32 too) is missing, as None is.
    return value is None or (_is_number(value) and math.isnan(float(value)))  # type: ignore[arg-type]


def _key(value: Score) -> tuple[str, Any]:
    # True == 1 in Python: tag the kind so a bool never merges with a number.
    if _is_bool(value):
        return ("bool", bool(value))
    if _is_number(value):
        return ("number", float(value))
    return ("text", value)


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


def encode(
    rows: Sequence[Sequence[Score | None]], values: Sequence[Score], level: Level, name: str
) -> tuple[list[list[int]], tuple[Score, ...]]:
    """Each rating's code into the value domain (`MISSING` where None or NaN), and the domain:
    the declared `values`, or those observed (`_domain`'s rules)."""
    cells = [[None if _is_missing(v) else v for v in row] for row in rows]
    domain = _domain(values, (v for row in cells for v in row if v is not None), level, name)
    index = {_key(v): i for i, v in enumerate(domain)}
    codes = [[MISSING if v is None else index[_key(v)] for v in row] for row in cells]
    check_level(domain, level, name)
    return codes, domain


def check_level(values: Sequence[Score], level: Level, name: str) -> None:
    """Raise `ValueError` when `values` cannot be measured at `level`."""
    if level in ("interval", "ratio") and not all(_is_number(v) for v in values):
        raise ValueError(f"{name or 'ratings'}: the {level} level needs numeric values")
    if level == "ratio" and any(float(v) < 0 for v in values):
        raise ValueError(f"{name or 'ratings'}: the ratio level needs values >= 0")


def observed_level(values: Iterable[Score]) -> Level:
    """A metric's level from the values observed: booleans and text are nominal, integers
    ordinal, other numbers interval."""
    values = list(values)
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "ordinal"
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return "interval"
    return "nominal"


def quantiles(ordered: Sequence[float], levels: Sequence[float]) -> list[float]:
    """`np.quantile(values, levels)` of sorted, NaN-free `ordered` (its default, linear
    method; the same arithmetic, so the same floats). Written out because NumPy's imports
    `numpy.ma` for it (1.3 MB of a run's memory), and so that a run's page needs no NumPy
    (issue 36)."""
    last = len(ordered) - 1
    out = []
    for level in levels:
        at = last * level
        below = min(math.floor(at), last)
        low, high = float(ordered[below]), float(ordered[min(below + 1, last)])
        weight, step = at - below, high - low
        out.append(high - step * (1 - weight) if weight >= 0.5 else low + step * weight)
    return out
