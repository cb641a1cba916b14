"""`jury agreement RUN`: how far a run's jurors agree, and a release gate on the judges.

Exit codes: 0 agreement reaches the bar (or no bar was set), 1 some alpha is below the bar,
2 usage error, 3 some alpha is undefined (so the bar cannot be checked) and none is below it.
An undefined agreement never passes a gate silently.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._errors import ConfigError
from ._options import manifest_rubric, rubric_metrics

if TYPE_CHECKING:
    from rich.console import Console

    from ..agreement._panel import AgreementSummary, MetricAgreement
    from ..agreement._ratings import Estimate

__all__ = ["register"]

EXIT_BELOW = 1
EXIT_UNDEFINED = 3


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
    parser.add_argument("run", help="run directory (or its verdicts.jsonl)")
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
        "--bootstrap", type=int, default=1000, metavar="N", help="resamples (default 1000)"
    )
    parser.add_argument("--confidence", type=float, default=0.95, help="interval level")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    parser.add_argument("--top", type=int, default=5, help="cases with the widest disagreement")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.set_defaults(handler=run)


def gate(
    summary: AgreementSummary, bar: float, on: str, metrics: Sequence[str] | None
) -> tuple[int, list[str], list[str]]:
    """(exit code, metrics below the bar, metrics whose alpha is undefined)."""
    below: list[str] = []
    unknown: list[str] = []
    for name, result in summary.all().items():
        if metrics and name not in metrics:
            continue
        alpha = result.alpha
        value = alpha.low if on == "lower" else alpha.value
        if value is None:
            unknown.append(name)
        elif value < bar:
            below.append(name)
    code = EXIT_BELOW if below else EXIT_UNDEFINED if unknown else 0
    return code, below, unknown


def run(args: argparse.Namespace) -> int:
    from .._case import load_cases
    from .._records import read_manifest, read_verdicts
    from ..agreement._panel import summarize_agreement

    if args.gate_on == "lower" and args.bootstrap <= 0:
        raise ConfigError("--gate-on lower needs an interval: give --bootstrap N > 0")
    # In case order, not the order cases finished in: the bootstrap resamples cases, so the
    # same verdicts give the same intervals, however the run (or its shards) went.
    verdicts = sorted(read_verdicts(args.run), key=lambda verdict: verdict.case_id)
    if not verdicts:
        raise ConfigError(f"{args.run}: no verdicts recorded")
    name = args.rubric or manifest_rubric(read_manifest(args.run))
    metrics = rubric_metrics(name, verdicts, required=bool(args.rubric))
    if metrics is not None and args.metric:
        known = {m.name for m in metrics} | {"verdict"}
        unknown = sorted(set(args.metric) - known)
        if unknown:
            raise ConfigError(f"--metric: no metric named {', '.join(unknown)}")
        metrics = tuple(m for m in metrics if m.name in args.metric)
    labels = None
    if args.cases:
        labels = {case.id: case.labels for case in load_cases(args.cases) if case.labels}
    summary = summarize_agreement(
        verdicts,
        metrics,
        labels=labels,
        bootstrap=args.bootstrap,
        confidence=args.confidence,
        seed=args.seed,
        widest=args.top,
    )
    if metrics is None and args.metric:
        summary = summary.model_copy(
            update={"metrics": {k: v for k, v in summary.metrics.items() if k in args.metric}}
        )
    code, below, unknown = 0, list[str](), list[str]()
    if args.fail_under is not None:
        code, below, unknown = gate(summary, args.fail_under, args.gate_on, args.metric)
    if args.json:
        data = summary.model_dump(mode="json")
        data["gate"] = {
            "fail_under": args.fail_under,
            "on": args.gate_on,
            "below": below,
            "undefined": unknown,
            "exit": code,
        }
        json.dump(data, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return code
    from rich.console import Console

    console = Console(file=sys.stdout, width=None if sys.stdout.isatty() else 120)
    render(summary, console, top=args.top, run=args.run, rubric=name)
    if args.fail_under is not None:
        _render_gate(console, args.fail_under, args.gate_on, below, unknown, code)
    return code


# --- the terminal report ----------------------------------------------------------------------


def _cell(estimate: Estimate, interval: bool = True) -> str:
    if estimate.value is None:
        return "undefined"
    text = f"{estimate.value:.3f}"
    if interval and estimate.low is not None and estimate.high is not None:
        text += f" [{estimate.low:.2f}, {estimate.high:.2f}]"
    return text


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
    for column in ("metric", "level", "alpha", "Fleiss kappa", "AC1", "agreement", "cases"):
        table.add_column(column, justify="left" if column in ("metric", "level") else "right")
    rows = [*summary.metrics.values(), summary.verdict]
    for result in rows:
        table.add_row(
            escape("pass/fail" if result is summary.verdict else result.metric),
            result.level,
            _cell(result.alpha),
            _cell(result.fleiss_kappa, interval=False),
            _cell(result.gwet_ac1, interval=False),
            "-"
            if result.percent_agreement.value is None
            else f"{result.percent_agreement.value:.1%}",
            str(result.alpha.units),
        )
    console.print(table)
    for result in rows:
        for estimate in (result.alpha, result.fleiss_kappa):
            if estimate.value is None:
                console.print(
                    Text(f"  {result.metric}: {estimate.statistic} {estimate}", style="yellow")
                )

    for result in rows:
        _render_metric(console, result, top)
    if summary.stability:
        _render_stability(console, summary)


def _render_metric(console: Console, result: MetricAgreement, top: int) -> None:
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    console.print()
    label = "pass/fail verdicts" if result.metric == "verdict" else result.metric
    console.print(Text(f"{label} ({result.level})", style="bold"))
    matrix = Table(title=f"{result.pairwise.statistic}, juror x juror", title_justify="left")
    matrix.add_column("")
    for name in result.pairwise.raters:
        matrix.add_column(escape(name), justify="right")
    for a in result.pairwise.raters:
        matrix.add_row(
            escape(a),
            *(
                "-" if a == b else _cell(result.pairwise.get(a, b), False)
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
            console.print(
                f"    {escape(name)}: kappa {_cell(kappa)}, accuracy {_cell(accuracy, False)}"
            )
        effective = labels.effective
        console.print(
            f"    effective independent judges {_cell(effective.effective)} of {effective.jurors} "
            f"(mean error correlation {_cell(effective.mean_error_correlation, False)})"
        )


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
            *(_cell(juror.alpha[name], False) for name in summary.metrics),
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
