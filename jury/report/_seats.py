"""The seats against the labels, as `jury calibrate` and `jury agreement` print them and the
calibration page draws them: the effective number of independent judges of how many seats,
models and families, and each pair of seats' error correlation with the seats that add little
(`jury.agreement._seat_errors`)."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..agreement._panel_stats import EffectiveJudges
    from ..agreement._seat_errors import ErrorPair, SeatErrors
    from ..agreement._seats import Seats

__all__ = ["effective_text", "error_rows", "errors_html", "print_seat_errors", "seat_error_lines"]


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def effective_text(effective: EffectiveJudges) -> str:
    """The effective number of independent judges, of how many seats, models and families."""
    seats = _plural(effective.jurors, "seat", "seats")
    if effective.models is not None and effective.families is not None:
        models = _plural(effective.models, "model", "models")
        seats += f" ({models}, {_plural(effective.families, 'family', 'families')})"
    text = (
        f"effective independent judges {effective.effective} of {seats}; mean error "
        f"correlation {effective.mean_error_correlation}"
    )
    shared = effective.models is not None and effective.models < effective.jurors
    if shared and effective.same_model is not None and effective.other_models is not None:
        text += (
            f"; between seats of one model {effective.same_model}, of different models "
            f"{effective.other_models}"
        )
    return text


#: Pairs of seats the terminal lists (every pair is in ``--json`` and the HTML page).
SHOWN_PAIRS = 10


def error_rows(errors: SeatErrors) -> list[ErrorPair]:
    """The pairs in the order they are shown: defined ones, most correlated first, then the
    undefined ones."""
    defined = errors.highest(len(errors.pairs))
    return defined + [p for p in errors.pairs if p.correlation.value is None]


def _pair_text(pair: ErrorPair) -> str:
    r = pair.correlation
    value = f"{r.value:.2f}" if r.value is not None else f"undefined ({r.reason})"
    detail = (
        f"{pair.items} items; {pair.errors_a} and {pair.errors_b} errors, {pair.both_wrong} shared"
        if r.value is not None
        else f"{pair.items} items"
    )
    one = "; seats of one model" if pair.same_model else ""
    return f"{pair.a} ~ {pair.b}: {value} ({detail}{one})"


def seat_error_lines(errors: SeatErrors) -> list[str]:
    """The seats' error correlations (the most correlated first) and the seats that add
    little, a line each (none when there is no pair of seats)."""
    if not errors.pairs:
        return []
    lines = [
        "errors shared between seats (phi of the 0/1 errors on the labelled items both rated; "
        f"a seat adds little at {errors.threshold:.2f} or more on {errors.min_items} or more "
        "items):"
    ]
    rows = error_rows(errors)
    lines += [f"  {_pair_text(pair)}" for pair in rows[:SHOWN_PAIRS]]
    if len(rows) > SHOWN_PAIRS:
        lines.append(f"  ... {len(rows) - SHOWN_PAIRS} more pairs (--json)")
    lines += [f"  {finding.sentence()}" for finding in errors.adds_little]
    return lines


def print_seat_errors(errors: SeatErrors, out: Any, indent: str = "") -> None:
    for line in seat_error_lines(errors):
        print(f"{indent}{line}", file=out)


def _seat_cell(name: str, seats: Seats | None) -> str:
    """A seat by name, and the model it judges with where that is not its name (a strategy
    seat's, a replayed seat's): which seats are one model is what the table is read for."""
    cell = html.escape(name)
    if seats is not None and name in seats and seats[name].model != name:
        cell += f" <small>({html.escape(seats[name].model)})</small>"
    return cell


def errors_html(errors: SeatErrors | None, seats: Seats | None = None) -> str:
    """The seats' error correlations as an HTML section (every pair), and the findings;
    with `seats`, each seat's model beside its name."""
    if errors is None or not errors.pairs:
        return ""
    rows = "".join(
        f"<tr><td>{_seat_cell(p.a, seats)}</td><td>{_seat_cell(p.b, seats)}</td><td>"
        + (
            f"{p.correlation.value:.2f}"
            if p.correlation.value is not None
            else f"undefined ({html.escape(p.correlation.reason or '')})"
        )
        + f"</td><td>{p.items}</td><td>{p.errors_a}</td><td>{p.errors_b}</td>"
        f"<td>{p.both_wrong}</td><td>{'yes' if p.same_model else ''}</td></tr>"
        for p in error_rows(errors)
    )
    found = "".join(f"<li>{html.escape(f.sentence())}</li>" for f in errors.adds_little)
    return (
        '<section id="seat-errors"><h2>Errors shared between seats</h2>'
        "<p>The phi coefficient (Pearson's r) of two seats' 0/1 errors against the labels, on "
        "the labelled items both rated; undefined where a seat made no error there or erred on "
        f"every one. A seat adds little at {errors.threshold:.2f} or more on "
        f"{errors.min_items} or more items.</p>"
        + (f"<ul>{found}</ul>" if found else "")
        + "<table><tr><th>seat</th><th>seat</th><th>error correlation</th><th>items</th>"
        "<th>errors</th><th>errors</th><th>both wrong</th><th>one model</th></tr>"
        f"{rows}</table></section>"
    )
