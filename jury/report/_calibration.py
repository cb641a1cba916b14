"""The accuracy-coverage trade-off, as `jury calibrate` prints it and as the HTML report draws it
(an inline SVG: no script, no external asset), with the effective number of independent
judges, the error correlation of each pair of seats (and the seats that add little) and each
juror's position consistency."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._verdict import CaseVerdict, Verdict, VoteStatus
from ..cases._case import Case

if TYPE_CHECKING:
    from ..agreement._fitting import FitResult, StageResult
    from ..agreement._panel_stats import EffectiveJudges
    from ..agreement._seat_errors import ErrorPair, SeatErrors
    from ..agreement._select import Subset

__all__ = [
    "Tradeoff",
    "effective_text",
    "error_rows",
    "print_fit",
    "print_seat_errors",
    "print_selection",
    "seat_error_lines",
    "tradeoff_page",
    "tradeoff_svg",
]

Curve = list[tuple[float, float]]
#: Coverages the printed table reads each curve at.
COVERAGES = (1.0, 0.9, 0.75, 0.5, 0.25)
_COLOURS = ("#1f5fbf", "#b3261e", "#176f2c", "#8a6100", "#7a1f73", "#0f7c80", "#555555")


def pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f} %"


def at(points: Curve, coverage: float) -> float | None:
    """The accuracy of the most covering point at or below `coverage` (None: none)."""
    below = [acc for cov, acc in points if cov <= coverage + 1e-9]
    return below[-1] if below else None


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


def print_fit(
    result: FitResult,
    consistency: Mapping[str, tuple[int, int]],
    effective: EffectiveJudges | None,
    out: Any,
    errors: SeatErrors | None = None,
) -> None:
    print(
        f"Learned jury: {result.labelled} labelled cases; fitted on {result.fitted_on}"
        + (
            f", thresholds calibrated on the other {result.calibrated_on}"
            if result.calibrated_on
            else ""
        ),
        file=out,
    )
    for stage in result.stages:
        print(f"stage {stage.number} ({', '.join(stage.jurors)}), held out (k-fold):", file=out)
        for m in stage.methods:
            mark = " <- fitted" if m.name == stage.model else ""
            decided = pct(m.accuracy_decided)
            print(
                f"  {m.name:<28} {pct(m.accuracy_all):>8} of all cases, {decided:>8} of "
                f"{pct(m.coverage)} decided{mark}",
                file=out,
            )
        said = against_best_juror(stage)
        if said:
            print("  " + said, file=out)
        if stage.penalty is not None:
            print(f"  stacked penalty C = {stage.penalty:g} (cross-validated)", file=out)
        if stage.certified is not None:
            c = stage.certified
            print(
                f"  threshold {c.value:.3f}: {c.decided} of {c.cases} calibration cases decided "
                f"({pct(c.coverage)}), {pct(c.agreement)} agree with the labels "
                f"(binomial p = {c.p_value:.3g})",
                file=out,
            )
        elif stage.threshold == float("inf"):
            print("  no threshold met the target here: this stage never decides alone", file=out)
        elif stage.threshold > 0:
            print(f"  escalates below a confidence of {stage.threshold:.3f}", file=out)
    for warning in result.warnings:
        print(f"warning: {warning}", file=out)
    if result.curves:
        print("Accuracy at a coverage (held-out cases, most confident first):", file=out)
        print("  " + f"{'':<28}" + "".join(f"{c:>9.0%}" for c in COVERAGES), file=out)
        for name, points in result.curves.items():
            cells = "".join(f"{pct(at(points, c)):>9}" for c in COVERAGES)
            print(f"  {name:<28}{cells}", file=out)
    if effective is not None:
        print(effective_text(effective), file=out)
    if errors is not None:
        print_seat_errors(errors, out)
    for juror, (same, judged) in sorted(consistency.items()):
        print(
            f"position consistency of {juror}: {pct(same / judged)} ({same} of {judged})", file=out
        )


def against_best_juror(stage: StageResult) -> str | None:
    """Whether the fitted jury beats its best juror alone, said plainly either way: a jury
    worse than one of its jurors is worse than that juror used as the only judge. None when
    the stage has one juror or was not measured juror by juror (Dawid-Skene has no labels)."""
    alone = [m for m in stage.methods if m.name in stage.jurors]
    fitted = next((m for m in stage.methods if m.name == stage.model), None)
    if len(stage.jurors) < 2 or not alone or fitted is None:
        return None
    best = max(alone, key=lambda m: (m.right, m.name))
    gap = 100 * (fitted.accuracy_all - best.accuracy_all)
    if gap > 0:
        said = (
            f"beats its best juror alone ({best.name}, {pct(best.accuracy_all)}) "
            f"by {gap:.1f} points"
        )
    else:
        said = (
            f"does NOT beat its best juror alone ({best.name}, {pct(best.accuracy_all)}): "
            f"{gap:+.1f} points; that juror alone would do as well here"
        )
    return f"the fitted jury ({fitted.name}, {pct(fitted.accuracy_all)} of all cases) {said}"


def print_selection(subsets: Sequence[Subset], out: Any) -> None:
    priced = all(s.cost for s in subsets)
    print(
        "Jurors to keep, by held-out accuracy"
        + (" per dollar:" if priced else " (no price known for every juror):"),
        file=out,
    )
    for s in subsets[:10]:
        cost = "cost unknown" if s.cost is None else f"${s.cost:.5f} a case"
        print(f"  {pct(s.accuracy):>8}  {cost:<20} {' + '.join(s.jurors)}", file=out)
    singles = [s for s in subsets if len(s.jurors) == 1]
    juries = [s for s in subsets if len(s.jurors) > 1]
    if singles and juries:
        best_one = max(singles, key=lambda s: s.accuracy)
        best_jury = max(juries, key=lambda s: s.accuracy)
        gap = 100 * (best_jury.accuracy - best_one.accuracy)
        verb = "beats" if gap > 0 else "does not beat"
        print(
            f"On this data the best jury ({' + '.join(best_jury.jurors)}, "
            f"{pct(best_jury.accuracy)}) {verb} its best juror ({best_one.jurors[0]}, "
            f"{pct(best_one.accuracy)}): {gap:+.1f} points held out.",
            file=out,
        )


# --- the picture ----------------------------------------------------------------------------


def tradeoff_svg(curves: Mapping[str, Curve], width: int = 560, height: int = 320) -> str:
    """Accuracy (y) against coverage (x), one line per rater; a rater with one point is a dot."""
    left, right, top, bottom = 52, 170, 14, 40
    accuracies = [acc for points in curves.values() for _, acc in points] or [0.5]
    low = max(0.0, min(math.floor((min(accuracies) - 0.05) * 10) / 10, 0.5))

    def x(coverage: float) -> float:
        return left + coverage * (width - left - right)

    def y(accuracy: float) -> float:
        return top + (1 - (accuracy - low) / (1 - low)) * (height - top - bottom)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="tradeoff" width="{width}" '
        f'height="{height}" role="img" aria-label="accuracy against coverage">',
        f'<rect x="{left}" y="{top}" width="{width - left - right}" '
        f'height="{height - top - bottom}" fill="#fafafa" stroke="#ccc"/>',
    ]
    parts += [
        f'<text x="{x(tick):.1f}" y="{height - bottom + 16}" font-size="11" '
        f'text-anchor="middle">{tick:.0%}</text>'
        for tick in (0.0, 0.25, 0.5, 0.75, 1.0)
    ]
    steps = round((1 - low) * 10)
    for i in range(0, steps + 1, 1 if steps <= 5 else 2):
        acc = low + i / 10
        parts.append(
            f'<text x="{left - 6}" y="{y(acc) + 4:.1f}" font-size="11" '
            f'text-anchor="end">{acc:.0%}</text>'
        )
    parts.append(
        f'<text x="{(left + width - right) / 2:.0f}" y="{height - 4}" font-size="12" '
        'text-anchor="middle">coverage (cases decided)</text>'
    )
    parts.append(
        f'<text x="12" y="{(top + height - bottom) / 2:.0f}" font-size="12" '
        f'transform="rotate(-90 12 {(top + height - bottom) / 2:.0f})" '
        'text-anchor="middle">accuracy on decided</text>'
    )
    for n, (name, points) in enumerate(curves.items()):
        colour = _COLOURS[n % len(_COLOURS)]
        label = html.escape(name)
        if len(points) > 1:
            line = " ".join(f"{x(c):.1f},{y(a):.1f}" for c, a in points)
            parts.append(
                f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"/>'
            )
        for c, a in points:
            parts.append(
                f'<circle cx="{x(c):.1f}" cy="{y(a):.1f}" r="3" fill="{colour}">'
                f"<title>{label}: {a:.1%} of {c:.0%} decided</title></circle>"
            )
        ly = top + 14 + 18 * n
        parts.append(
            f'<rect x="{width - right + 10}" y="{ly - 9}" width="12" height="12" '
            f'fill="{colour}"/><text x="{width - right + 28}" y="{ly + 1}" '
            f'font-size="12">{label}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def errors_html(errors: SeatErrors | None) -> str:
    """The seats' error correlations as an HTML section (every pair), and the findings."""
    if errors is None or not errors.pairs:
        return ""
    rows = "".join(
        f"<tr><td>{html.escape(p.a)}</td><td>{html.escape(p.b)}</td><td>"
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


def tradeoff_page(
    result: FitResult,
    consistency: Mapping[str, tuple[int, int]],
    effective: EffectiveJudges | None,
    title: str,
    errors: SeatErrors | None = None,
) -> str:
    """A self-contained page for `jury calibrate --html`."""
    rows = "".join(
        f"<tr><td>{html.escape(j)}</td><td>{pct(s / n)}</td><td>{s} of {n}</td></tr>"
        for j, (s, n) in sorted(consistency.items())
    )
    worth = (
        f"<p>E{html.escape(effective_text(effective)[1:])}.</p>" if effective is not None else ""
    )
    if not rows:
        rows = '<tr><td colspan="3">no juror was asked in two presentation orders</td></tr>'
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:\">"
        f'<title>{html.escape(title)}</title></head><body style="font: 14px system-ui">'
        f"<h1>{html.escape(title)}</h1><h2>Accuracy and coverage (held-out cases)</h2>"
        f"{tradeoff_svg(result.curves)}{worth}{errors_html(errors)}"
        "<h2>Position consistency</h2><table><tr><th>juror</th><th>both orders agree</th>"
        f"<th>cases</th></tr>{rows}</table></body></html>"
    )


# --- from a run's verdicts ------------------------------------------------------------------


def _label(case: Case) -> tuple[str, Any] | None:
    for key in ("pass", "verdict"):
        if key in case.labels:
            raw = case.labels[key]
            passed = raw.strip().upper() == "PASS" if isinstance(raw, str) else raw
            return "pass", "PASS" if passed is True else "FAIL"
    return next(iter(case.labels.items()), None)


def _said(target: str, verdict: Verdict | None, scores: Mapping[str, Any]) -> Any:
    if target == "pass":
        return verdict.value if verdict in (Verdict.PASS, Verdict.FAIL) else None
    return scores.get(target)


class Tradeoff:
    """The run's trade-off on its labelled cases, gathered one verdict at a time: the jury (by
    its confidence when it is a learned one), the naive majority of the jurors' own votes,
    and each juror alone. `label(case)` is what `add` wants of a case."""

    def __init__(self) -> None:
        self.jury: list[tuple[float | None, bool]] = []
        self.majority: list[tuple[float | None, bool]] = []
        self.alone: dict[str, list[tuple[float | None, bool]]] = {}
        self.consistency: dict[str, list[int]] = {}

    label = staticmethod(_label)

    def add(self, verdict: CaseVerdict, found: tuple[str, Any]) -> None:
        """`verdict` of a case labelled `found` (`label`)."""
        target, label = found
        metrics = {k: r.value for k, r in verdict.metrics.items()}
        said = _said(target, verdict.verdict, metrics)
        confidence = verdict.confidence if verdict.confidence is not None else 1.0
        self.jury.append((confidence if said is not None else None, said == label))
        votes = {}
        for vote in verdict.votes:
            ballots = vote.details.get("ballots")
            if isinstance(ballots, Mapping) and len(ballots) >= 2:
                tally = self.consistency.setdefault(vote.juror, [0, 0])
                tally[1] += 1
                tally[0] += len({repr(sorted(b.items())) for b in ballots.values()}) == 1
            own = (
                _said(target, vote.verdict, vote.scores)
                if vote.status is VoteStatus.VALID
                else None
            )
            self.alone.setdefault(vote.juror, []).append(
                (1.0 if own is not None else None, own == label)
            )
            if own is not None:
                votes[vote.juror] = own
        values = list(votes.values())
        counts = {v: values.count(v) for v in values}
        top = max(counts.values(), default=0)
        leaders = [v for v, c in counts.items() if c == top]
        decided = top > 0 and len(leaders) == 1
        self.majority.append(
            (top / len(values) if decided else None, decided and leaders[0] == label)
        )

    def result(self) -> dict[str, Any] | None:
        from ..agreement._selective import curve

        jury, majority, alone, consistency = self.jury, self.majority, self.alone, self.consistency
        if not jury:
            return None
        curves = {
            "jury": curve(*zip(*jury, strict=True)),
            "naive majority": curve(*zip(*majority, strict=True)),
        }
        for juror, points in sorted(alone.items()):
            curves[juror] = curve(*zip(*points, strict=True))
        return {
            "svg": tradeoff_svg(curves),
            "cases": len(jury),
            "consistency": {j: (s, n) for j, (s, n) in sorted(consistency.items())},
        }
