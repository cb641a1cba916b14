"""`jury agreement RUN`: a shell over `jury.measure_agreement` (how far a run's jurors agree,
or the raters of a table of scores, and a release gate on the judges).

Exit codes: 0 agreement reaches the bar (or no bar was set), 1 some alpha is below the bar,
2 usage error, 3 some alpha is undefined (so the bar cannot be checked) and none is below it.
An undefined agreement never passes a gate silently.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from ..report._agreement import CONFIDENCE, RESAMPLES, SEED, estimate_text, people_undefined
from ..runner._agreement import EXIT_BELOW, EXIT_UNDEFINED
from ._options import add_subset_options

if TYPE_CHECKING:
    from rich.console import Console

    from ..agreement import AgreementSummary, MetricAgreement, PeopleAgreement

__all__ = ["register"]


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "agreement",
        help="how far a run's jurors agree (alpha, kappa) and a gate on it",
        description="Inter-juror agreement of a recorded run: Krippendorff's alpha per metric "
        "at the rubric's level with a bootstrap interval, Fleiss' kappa on the jurors' pass/fail "
        "verdicts, the juror x juror matrix, the jurors that disagree most with the panel and "
        "the cases with the widest disagreement. Exit 0 (agreement reaches the bar), 1 (below "
        "it), 2 (usage error) or 3 (agreement undefined, so the bar cannot be checked).",
    )
    parser.add_argument(
        "run",
        help="run directory (or its verdicts.jsonl), or a table of scores from elsewhere "
        "(CSV, TSV or JSONL: one column per rater, or item, rater and score columns)",
    )
    table = parser.add_argument_group("a table of scores")
    table.add_argument(
        "--level",
        choices=("nominal", "ordinal", "interval", "ratio"),
        default="nominal",
        help="the scores' level of measurement (default nominal)",
    )
    table.add_argument(
        "--layout",
        choices=("auto", "wide", "long"),
        default="auto",
        help="wide (a column per rater) or long (item, rater, score); default: from the header",
    )
    table.add_argument("--item", metavar="COLUMN", help="the item's column (default: the first)")
    table.add_argument("--rater", metavar="COLUMN", help="the rater's column (long; default rater)")
    table.add_argument("--score", metavar="COLUMN", help="the score's column (long; default score)")
    parser.add_argument(
        "--fail-under",
        type=float,
        metavar="ALPHA",
        help="exit 1 when any metric's alpha is below ALPHA (exit 3 when it is undefined)",
    )
    parser.add_argument(
        "--gate-on",
        choices=("point", "lower"),
        default="point",
        help="compare the bar with the estimate (point, default) or with the lower end of its "
        "interval (lower: the bar must be reached with the chosen confidence)",
    )
    parser.add_argument(
        "--metric",
        action="append",
        metavar="NAME",
        help="only this metric ('verdict' for pass/fail); repeatable",
    )
    parser.add_argument("--rubric", help="rubric name or file (default: the run's manifest)")
    parser.add_argument(
        "--cases", metavar="FILE", help="cases file whose human labels to compare jurors with"
    )
    parser.add_argument(
        "--labels",
        action="append",
        metavar="FILE",
        help="a labels file (`jury label`; repeatable): agreement between its labellers, and "
        "each juror against their majority",
    )
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=RESAMPLES,
        metavar="N",
        help=f"resamples (default {RESAMPLES}, as in the HTML report)",
    )
    parser.add_argument("--confidence", type=float, default=CONFIDENCE, help="interval level")
    parser.add_argument(
        "--seed",
        type=int,
        default=SEED,
        help=f"seed of the bootstrap and of --sample (default {SEED})",
    )
    parser.add_argument(
        "--interval",
        choices=("percentile", "bca"),
        default="percentile",
        help="bootstrap interval: percentile, or bias-corrected and accelerated (small samples)",
    )
    parser.add_argument("--top", type=int, default=5, help="cases with the widest disagreement")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    add_subset_options(parser, seed=False)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..runner._agreement import AgreementOptions, agreement_options

    found = agreement_options(args.run, AgreementOptions.of(args))
    for warning in found.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.json:
        json.dump(found.to_json(), sys.stdout, indent=2)
        sys.stdout.write("\n")
        return found.exit_code

    from ..report._console import console_for

    console = console_for(sys.stdout)
    render(found.summary, console, top=args.top, run=args.run, rubric=found.rubric)
    if found.people is not None:
        render_people(found.people, console)
    if found.fail_under is not None:
        _render_gate(
            console,
            found.fail_under,
            found.gate_on,
            list(found.below),
            list(found.undefined),
            found.exit_code,
        )
    return found.exit_code


# --- the terminal report ----------------------------------------------------------------------


def render_people(people: PeopleAgreement, console: Console) -> None:
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    console.print()
    names = ", ".join(people.labellers)
    console.print(Text(f"Agreement between people ({len(people.labellers)}: {names})", "bold"))
    table = Table(title_justify="left")
    for column in ("label", "level", "Cohen kappa", "Fleiss kappa", "alpha", "cases"):
        table.add_column(column, justify="left" if column in ("label", "level") else "right")
    for key, found in people.keys.items():
        table.add_row(
            escape(key),
            found.level,
            "-" if found.cohen_kappa is None else estimate_text(found.cohen_kappa),
            "-" if found.fleiss_kappa is None else estimate_text(found.fleiss_kappa),
            estimate_text(found.alpha),
            str(found.cases),
        )
    console.print(table)
    for line in people_undefined(people):
        console.print(f"  {escape(line)}")
    for key, found in people.keys.items():
        for who in found.outliers:
            own = found.disagreement[who] or 0.0
            jurors = [v for v in found.jurors[who].values() if v is not None]
            console.print(
                Text(
                    f"  {who} disagrees with the other labellers on {key} in {own:.0%} of "
                    f"{found.compared[who]} cases; the jurors, {min(jurors):.0%} to "
                    f"{max(jurors):.0%}: check {who}'s labels",
                    style="yellow",
                )
            )
    if people.ties:
        console.print(f"  no majority (labellers tied): {escape(', '.join(people.ties))}")


def render(
    summary: AgreementSummary,
    console: Console,
    *,
    top: int = 5,
    run: str = "",
    rubric: str | None = None,
) -> None:
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    from ..report._agreement import agreement_rows

    title = Text.assemble(("aiojury agreement", "bold"), f"  {run}  ·  {summary.cases} cases  ·  ")
    title.append(f"{len(summary.jurors)} jurors: {', '.join(summary.jurors)}")
    console.print(title)
    interval = (
        f"{summary.confidence:.0%} intervals: {summary.resamples} bootstrap resamples of cases "
        f"(seed {summary.seed})"
        if summary.resamples
        else "no intervals (--bootstrap 0)"
    )
    console.print(f"rubric {rubric or '(inferred from the votes)'}  ·  {interval}")
    console.print()

    table = Table(title="Agreement", title_justify="left")
    table.caption, table.caption_justify = "verdict: the jurors' own PASS or FAIL", "left"
    for column in ("metric", "level", "alpha", "Fleiss kappa", "AC1", "agreement", "cases"):
        table.add_column(column, justify="left" if column in ("metric", "level") else "right")
    rows = agreement_rows(summary)
    for row in rows:
        cells = (row.level, row.alpha, row.fleiss, row.ac1, row.agreement, str(row.cases))
        table.add_row(escape(row.metric), *cells)
    console.print(table)
    for row in rows:
        for why in row.why:
            console.print(Text(f"  {why}", style="yellow"))

    for result in (*summary.metrics.values(), summary.verdict):
        _render_metric(console, result, top)
    if summary.stability:
        _render_stability(console, summary)


def _render_metric(console: Console, result: MetricAgreement, top: int) -> None:
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    console.print()
    console.print(Text(f"{result.metric} ({result.level})", style="bold"))
    matrix = Table(title=f"{result.pairwise.statistic}, juror x juror", title_justify="left")
    matrix.add_column("")
    for name in result.pairwise.raters:
        matrix.add_column(escape(name), justify="right")
    for a in result.pairwise.raters:
        matrix.add_row(
            escape(a),
            *(
                "-" if a == b else estimate_text(result.pairwise.get(a, b), False)
                for b in result.pairwise.raters
            ),
        )
    console.print(matrix)
    overall = result.alpha.value
    for juror in result.jurors[:3]:
        without = juror.alpha_without
        change = ""
        if overall is not None and without.value is not None:
            change = f"; alpha {overall:.3f} -> {without.value:.3f} without it"
        mean = "undefined" if juror.mean_pairwise is None else f"{juror.mean_pairwise:.3f}"
        console.print(
            f"  {escape(juror.juror)}: mean pairwise {mean} over {juror.rated} cases{change}"
        )
    if result.widest[:top]:
        console.print("  widest disagreement (1 = as much as chance):")
        for spread in result.widest[:top]:
            values = ", ".join(f"{k} {v}" for k, v in spread.ratings.items() if v is not None)
            console.print(
                f"    {escape(spread.case_id)}  {spread.disagreement:.2f}  {escape(values)}"
            )
    if result.labels is not None:
        labels = result.labels
        console.print(f"  against human labels ({labels.labelled} labelled cases):")
        for name, kappa in labels.kappa.items():
            accuracy = labels.accuracy[name]
            accuracy_text = estimate_text(accuracy, False, why=True)
            console.print(
                f"    {escape(name)}: kappa {estimate_text(kappa, why=True)}, "
                f"accuracy {accuracy_text}"
            )
        from ..report._seats import effective_text, seat_error_lines

        console.print(f"    {escape(effective_text(labels.effective))}")
        for line in seat_error_lines(labels.errors) if labels.errors is not None else ():
            console.print(f"    {escape(line)}")


def _render_stability(console: Console, summary: AgreementSummary) -> None:
    from rich.markup import escape
    from rich.table import Table

    console.print()
    table = Table(title="Stability across samples", title_justify="left")
    table.add_column("juror")
    table.add_column("cases", justify="right")
    table.add_column("samples", justify="right")
    table.add_column("identical verdicts", justify="right")
    for name in summary.metrics:
        table.add_column(f"{name} alpha", justify="right")
    for juror in summary.stability:
        share = juror.identical_verdicts
        table.add_row(
            escape(juror.juror),
            str(juror.cases),
            str(juror.samples),
            "undefined" if share.value is None else f"{share.value:.1%}",
            *(estimate_text(juror.alpha[name], False) for name in summary.metrics),
        )
    console.print(table)


def _render_gate(
    console: Console, bar: float, on: str, below: list[str], unknown: list[str], code: int
) -> None:
    from rich.text import Text

    console.print()
    what = "alpha" if on == "point" else "the lower end of alpha's interval"
    if code == EXIT_BELOW:
        text = Text.assemble(("Gate FAILED", "bold red"), f"  {what} below {bar:g}: ")
        text.append(", ".join(below))
    elif code == EXIT_UNDEFINED:
        text = Text.assemble(("Gate INCONCLUSIVE", "bold yellow"), f"  {what} undefined: ")
        text.append(", ".join(unknown))
    else:
        text = Text.assemble(("Gate PASSED", "bold green"), f"  {what} reaches {bar:g}")
    text.append(f"  ·  exit {code}")
    console.print(text)
