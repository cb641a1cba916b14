"""Which seats add little: the correlation of two seats' errors against human labels.

Diversity is information, not headcount: a seat whose errors are another seat's errors adds a
vote but little evidence (two ways of judging of one model often err together; so can two
models). This is measured pair by pair, where labels exist.

Definition
----------
For seats a and b, the *items* are the cases that both rated and that carry a label. On each
item a seat's error is the 0/1 indicator "its rating differs from the label" (any difference:
on a 1-5 scale a 4 for a 5 is an error). The error correlation is the phi coefficient of the two
indicators, which is Pearson's r of the two 0/1 vectors::

    phi = (n11 n00 - n10 n01) / sqrt(n1. n0. n.1 n.0)

(n11: both wrong, n00: both right, n1.: a wrong, n.1: b wrong...). It is *undefined* where a
seat made no error on the items, or erred on every one of them (its indicator does not vary),
and where there are fewer than two items: reported as undefined with the reason, never as a
number.

The finding
-----------
"b adds little: its errors correlate 0.86 with a's" is said of a pair whose phi reaches
`THRESHOLD` (0.8) on at least `MIN_ITEMS` (30) items, of the seat that is right less often on
those items (on a tie, the one later by name). A seat is named once, beside the seat it
correlates with most.

- 0.8: r squared is 0.64, so most of the variation in one seat's errors is the other's. On
  LLMBar's 419 Natural and Adversarial items (`benchmarks/seat_errors.py`), seats of one model
  with different prompt strategies correlate 0.62 to 0.99 (median 0.89, 9 of 12 pairs at 0.8 or
  more), seats of different models 0.15 to 0.86 (median 0.42, 5 of 54): the threshold separates
  the first from most of the second without making a rule of "one model".
- 30 items: by Fisher's z, a phi of 0.8 measured on 30 items has a 95 % interval of about
  [0.62, 0.90], still a strong correlation at its low end; on 15 items it is [0.49, 0.93].
  Below 30 the value is reported with its item count but no finding is drawn from it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from ._values import Estimate, undefined

if TYPE_CHECKING:
    from ._ratings import Ratings
    from ._seats import Seats

__all__ = [
    "MIN_ITEMS",
    "THRESHOLD",
    "AddsLittle",
    "ErrorPair",
    "SeatErrors",
    "coded_seat_errors",
    "seat_errors",
]

#: The error correlation at and above which a seat is said to add little.
THRESHOLD = 0.8
#: Items (both rated, labelled) a pair needs before a finding is drawn from its correlation.
MIN_ITEMS = 30
STATISTIC = "error_correlation[phi]"

_MODEL = ConfigDict(frozen=True)


class ErrorPair(BaseModel):
    """Two seats' errors on the labelled items both rated."""

    model_config = _MODEL

    a: str
    b: str
    items: int
    #: Errors of a, of b, and of both, on those items.
    errors_a: int
    errors_b: int
    both_wrong: int
    correlation: Estimate
    #: Whether the two seats judge with one model (None: which model is not known).
    same_model: bool | None = None


class AddsLittle(BaseModel):
    """A seat whose errors are, for the most part, another seat's."""

    model_config = _MODEL

    seat: str
    other: str
    correlation: float
    items: int
    #: Share of the items each was right on.
    accuracy: float
    other_accuracy: float
    same_model: bool | None = None

    def sentence(self) -> str:
        model = " (seats of one model)" if self.same_model else ""
        return (
            f"{self.seat} adds little: its errors correlate {self.correlation:.2f} with "
            f"{self.other}'s{model}, on {self.items} labelled items both rated (right on "
            f"{self.accuracy:.0%} of them, {self.other} on {self.other_accuracy:.0%})"
        )


class SeatErrors(BaseModel):
    """Every pair of seats' error correlation, and the seats that add little."""

    model_config = _MODEL

    threshold: float = THRESHOLD
    min_items: int = MIN_ITEMS
    pairs: tuple[ErrorPair, ...] = ()
    adds_little: tuple[AddsLittle, ...] = ()

    def highest(self, count: int) -> list[ErrorPair]:
        """The `count` most correlated defined pairs, highest first."""
        defined = [p for p in self.pairs if p.correlation.value is not None]
        return sorted(defined, key=lambda p: (-(p.correlation.value or 0.0), p.a, p.b))[:count]


def _phi(wrong_a: Sequence[bool], wrong_b: Sequence[bool], a: str, b: str) -> Estimate:
    n = len(wrong_a)
    if n < 2:
        return undefined(STATISTIC, f"{n} labelled item(s) rated by both {a} and {b}", n)
    for seat, wrong in ((a, wrong_a), (b, wrong_b)):
        errors = sum(wrong)
        if errors in (0, n):
            said = "no error" if errors == 0 else "an error on every one"
            return undefined(STATISTIC, f"{seat} made {said} of the {n} items both rated", n)
    n11 = sum(x and y for x, y in zip(wrong_a, wrong_b, strict=True))
    ra, rb = sum(wrong_a), sum(wrong_b)
    n10, n01 = ra - n11, rb - n11
    n00 = n - n11 - n10 - n01
    value = (n11 * n00 - n10 * n01) / math.sqrt(float(ra) * (n - ra) * rb * (n - rb))
    return Estimate(statistic=STATISTIC, value=value, units=n)


def seat_errors(
    labelled: Ratings,
    seats: Seats | None = None,
    *,
    besides: Sequence[str] = (),
    threshold: float = THRESHOLD,
    min_items: int = MIN_ITEMS,
) -> SeatErrors:
    """The error correlation of every pair of seats against the labels, and the seats that
    add little (see the module's docstring). `labelled` holds the seats' ratings and, as its
    last rater, each case's label (`jury.agreement._panel_stats.with_labels`); raters in
    `besides` (the panel's own verdict beside its seats) are left out."""
    return coded_seat_errors(
        labelled.codes.tolist(),
        labelled.raters,
        seats,
        besides=besides,
        threshold=threshold,
        min_items=min_items,
    )


def coded_seat_errors(
    codes: Sequence[Sequence[int]],
    raters: Sequence[str],
    seats: Seats | None = None,
    *,
    besides: Sequence[str] = (),
    threshold: float = THRESHOLD,
    min_items: int = MIN_ITEMS,
) -> SeatErrors:
    """`seat_errors` of ratings given as codes (negative where missing), a row per case and
    a column per rater, the label last; without NumPy, for a run's page."""
    # The label is the last column whatever its name: a juror may be called "label".
    names = [r for r in raters[:-1] if r not in besides]
    column = {r: i for i, r in enumerate(raters[:-1])}
    pairs: list[ErrorPair] = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            ca, cb = column[a], column[b]
            both = [row for row in codes if row[ca] >= 0 and row[cb] >= 0 and row[-1] >= 0]
            wrong_a = [row[ca] != row[-1] for row in both]
            wrong_b = [row[cb] != row[-1] for row in both]
            pairs.append(
                ErrorPair(
                    a=a,
                    b=b,
                    items=len(both),
                    errors_a=sum(wrong_a),
                    errors_b=sum(wrong_b),
                    both_wrong=sum(x and y for x, y in zip(wrong_a, wrong_b, strict=True)),
                    correlation=_phi(wrong_a, wrong_b, a, b),
                    same_model=seats.same_model(a, b) if seats is not None else None,
                )
            )
    found: dict[str, AddsLittle] = {}
    for pair in pairs:
        r = pair.correlation.value
        if r is None or r < threshold or pair.items < min_items:
            continue
        right_a, right_b = 1 - pair.errors_a / pair.items, 1 - pair.errors_b / pair.items
        # The seat right less often adds little beside the other; on a tie, the later name.
        a_weaker = right_a < right_b or (right_a == right_b and pair.a > pair.b)
        weaker, other = (pair.a, pair.b) if a_weaker else (pair.b, pair.a)
        said = AddsLittle(
            seat=weaker,
            other=other,
            correlation=r,
            items=pair.items,
            accuracy=right_a if a_weaker else right_b,
            other_accuracy=right_b if a_weaker else right_a,
            same_model=pair.same_model,
        )
        if weaker not in found or r > found[weaker].correlation:
            found[weaker] = said
    return SeatErrors(
        threshold=threshold,
        min_items=min_items,
        pairs=tuple(pairs),
        adds_little=tuple(found[s] for s in sorted(found)),
    )
