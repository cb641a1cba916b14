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
from ._seats import effective_text, errors_html, print_seat_errors

if TYPE_CHECKING:
    from ..agreement._fitting import FitResult, StageResult
    from ..agreement._panel_stats import EffectiveJudges
    from ..agreement._seat_errors import SeatErrors
    from ..agreement._seats import Seats
    from ..agreement._select import Budgeted, Subset

__all__ = [
    "Tradeoff",
    "print_budget",
    "print_fit",
    "print_selection",
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


def print_fit(
    result: FitResult,
    consistency: Mapping[str, tuple[int, int]],
    effective: EffectiveJudges | None,
    out: Any,
    errors: SeatErrors | None = None,
) -> None:
    fitted = f"{result.fitted_on}"
    if result.below_quorum:
        fitted = f"{result.fitted_on - result.below_quorum} of {result.fitted_on}"
    print(
        f"Learned jury: {result.labelled} labelled cases; fitted on {fitted}"
        + (
            f", thresholds calibrated on the other {result.calibrated_on}"
            if result.calibrated_on
            else ""
        ),
        file=out,
    )
    if result.below_quorum:
        # Said, not hidden: these cases count against every method below as undecided.
        print(
            f"  the other {result.below_quorum} have fewer readable votes than the quorum: "
            "undecided by the learned jury too (as in a run), counted so below",
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


def print_budget(found: Budgeted, out: Any) -> None:
    """`--select --budget`: the sets within the budget by held-out accuracy, what was left
    out and why, and whether the best beats its best seat and the strongest single model."""

    def usd(subset: Subset) -> str:
        return "price unknown" if subset.cost is None else f"${1000 * subset.cost:.4f} / 1000"

    print(
        f"Seat sets within ${found.budget:g} per 1000 cases, by held-out accuracy "
        f"({len(found.ranked)} within, {len(found.over)} over the budget, "
        f"{len(found.unknown)} with a seat of unknown price):",
        file=out,
    )
    for s in found.ranked[:10]:
        print(f"  {pct(s.accuracy):>8}  {usd(s):<22} {' + '.join(s.jurors)}", file=out)
    if found.unpriced:
        print(
            f"  price unknown for {', '.join(found.unpriced)}: a set with it cannot be shown "
            "within the budget and is left out (never counted as free)",
            file=out,
        )
    best = found.best
    if best is None:
        print("No seat set is known to cost at most the budget.", file=out)
        return
    said = f"The best set within the budget ({' + '.join(best.jurors)}, {pct(best.accuracy)})"
    for label, other in (
        ("its best seat", found.best_seat),
        (
            f"the strongest single model ({found.strongest_model[0]})"
            if found.strongest_model
            else "",
            found.strongest_model[1] if found.strongest_model else None,
        ),
    ):
        if other is None or other.jurors == best.jurors:
            continue
        gap = 100 * (best.accuracy - other.accuracy)
        verb = "beats" if gap > 0 else "does not beat"
        print(
            f"{said} {verb} {label} ({' + '.join(other.jurors)}, {pct(other.accuracy)}, "
            f"{usd(other)}): {gap:+.1f} points held out.",
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


def tradeoff_page(
    result: FitResult,
    consistency: Mapping[str, tuple[int, int]],
    effective: EffectiveJudges | None,
    title: str,
    errors: SeatErrors | None = None,
    seats: Seats | None = None,
    skipped: Mapping[str, str] | None = None,
) -> str:
    """A self-contained page for `jury calibrate --html` (`seats`: each seat's model, named
    in the table of errors shared between seats; `skipped`: the targets not learned, and
    why)."""
    rows = "".join(
        f"<tr><td>{html.escape(j)}</td><td>{pct(s / n)}</td><td>{s} of {n}</td></tr>"
        for j, (s, n) in sorted(consistency.items())
    )
    worth = (
        f"<p>E{html.escape(effective_text(effective)[1:])}.</p>" if effective is not None else ""
    )
    if not rows:
        rows = '<tr><td colspan="3">no juror was asked in two presentation orders</td></tr>'
    not_learned = "".join(
        f"<li>{html.escape(target)}: {html.escape(why)}</li>"
        for target, why in (skipped or {}).items()
    )
    if not_learned:
        not_learned = f"<h2>Not learned</h2><ul>{not_learned}</ul>"
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:\">"
        f'<title>{html.escape(title)}</title></head><body style="font: 14px system-ui">'
        f"<h1>{html.escape(title)}</h1>{not_learned}"
        "<h2>Accuracy and coverage (held-out cases)</h2>"
        f"{tradeoff_svg(result.curves)}{worth}{errors_html(errors, seats)}"
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
        #: Per labelled case: each juror with a value, and whether that value was right.
        self.right: list[dict[str, bool]] = []
        #: One verdict for each (juror, model that served it): what `Seats.of_manifest`
        #: reads a replayed seat's model from, kept without keeping every verdict.
        self.served: dict[tuple[str, str], CaseVerdict] = {}

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
            if vote.served_by and (vote.juror, vote.served_by) not in self.served:
                self.served[vote.juror, vote.served_by] = verdict
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
        self.right.append({juror: said == label for juror, said in votes.items()})
        values = list(votes.values())
        counts = {v: values.count(v) for v in values}
        top = max(counts.values(), default=0)
        leaders = [v for v, c in counts.items() if c == top]
        decided = top > 0 and len(leaders) == 1
        self.majority.append(
            (top / len(values) if decided else None, decided and leaders[0] == label)
        )

    def result(self, seats: Seats | None = None) -> dict[str, Any] | None:
        """The page's trade-off; `seats` (the run's, `Seats.of_manifest`) says which model
        each seat judges with, as `jury calibrate` knows it from its panel."""
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
            "errors": errors_html(self._errors(seats), seats),
        }

    def _errors(self, seats: Seats | None = None) -> SeatErrors | None:
        """The jurors' error correlations on the labelled cases (each rating is "right" or
        "wrong", each label "right": an error is a rating off the label)."""
        from ..agreement._seat_errors import coded_seat_errors
        from ..agreement._values import MISSING

        jurors = sorted({juror for case in self.right for juror in case})
        if len(jurors) < 2:
            return None
        # Each juror's rating is 0 (right) or 1 (wrong), the label 0 (right) on every case.
        rows = [
            [MISSING if j not in case else int(not case[j]) for j in jurors] + [0]
            for case in self.right
        ]
        return coded_seat_errors(rows, [*jurors, "label"], seats)
