"""`jury compare RUN_A RUN_B`: a shell over `jury.compare` (did B regress from A, case by
case, beyond the noise?): its flags are the rules, its result printed, its exit code the
comparison's.

Each side may be several runs of the same configuration (``--a RUN RUN ... --b RUN RUN ...``).
A case that passes in every repeat of A and fails in every repeat of B is a stable
regression: the gate fails on it, whatever the aggregate tests say. Cases whose repeats
disagree are flaky, listed apart and never called. The aggregate tests (McNemar, sign,
Wilcoxon) are context, called worse only beyond the noise measured between repeats. The rules
come from flags or the ``[compare]`` table of a jury file, decided before the result is seen;
``--cheaper 0.4`` adds the cost rule (B matches A at no more than 60 % of its cost).

Exit codes: 0 the gate passed, 1 it failed (a stable regression, something worse beyond the
noise, or not cheap enough), 2 usage error, 3 undecided (no case in common, or the cost rule
cannot be checked).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from .._errors import ConfigError

if TYPE_CHECKING:
    from rich.console import Console

    from ..agreement import ChangeKind, Comparison

__all__ = ["register"]

CHANGES_SHOWN = 50
#: The flags that are the rules of `jury.compare`, by their names there.
RULES = (
    "significance",
    "min_effect",
    "min_score_effect",
    "noise",
    "score_noise",
    "max_regressions",
    "min_repeats",
    "cheaper",
    "cost",
    "interval",
    "level",
)


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "compare",
        help="compare two runs (or two sets of repeated runs) case by case",
        description="Compare run B with run A case by case. A case that passes in every "
        "repeat of A and fails in every repeat of B is a stable regression and fails the gate; "
        "cases whose repeats disagree are flaky and never called. McNemar's exact test on "
        "pass/fail and sign or Wilcoxon tests on scores are context: with repeated runs per "
        "side (--a RUN ... --b RUN ...) the movement between repeats is the noise, and an "
        "aggregate is called worse only beyond it. Exit 0 (passed), 1 (failed), 2 (usage error) "
        "or 3 (undecided: no case in common, or the cost rule cannot be checked).",
    )
    parser.add_argument("runs", nargs="*", metavar="RUN", help="RUN_A RUN_B (one run per side)")
    parser.add_argument("--a", nargs="+", default=[], metavar="RUN", help="side A's runs")
    parser.add_argument("--b", nargs="+", default=[], metavar="RUN", help="side B's runs")
    parser.add_argument("--jury", metavar="FILE", help="jury file whose [compare] table to use")
    parser.add_argument(
        "--significance", type=float, help="level of the paired tests (default 0.05)"
    )
    parser.add_argument(
        "--min-effect", type=float, help="smallest pass-rate change that counts (0.05 = 5 points)"
    )
    parser.add_argument(
        "--min-score-effect", type=float, help="smallest change of a metric's or score's mean"
    )
    parser.add_argument(
        "--noise", type=float, help="pass-rate noise floor measured before (one run per side)"
    )
    parser.add_argument("--score-noise", type=float, help="noise floor for metric and score means")
    parser.add_argument(
        "--max-regressions", type=int, help="stable regressions the gate tolerates (default 0)"
    )
    parser.add_argument("--min-repeats", type=int, help="runs each side needs (default 1)")
    parser.add_argument(
        "--cheaper",
        type=float,
        metavar="SHARE",
        help="cost rule: B passes when it beats A beyond the noise, or matches it at no more "
        "than 1 - SHARE of its cost (0.4: at most 60 %%)",
    )
    parser.add_argument(
        "--cost",
        choices=("judges", "agent"),
        help="whose cost --cheaper compares: the judge calls' (default) or the agent's "
        "(each case's metadata.cost_usd)",
    )
    parser.add_argument(
        "--interval",
        choices=("wilson", "exact"),
        help="the interval around each side's pass rate: Wilson's (default) or Clopper-Pearson's",
    )
    parser.add_argument("--level", type=float, help="that interval's level (default 0.95)")
    parser.add_argument("--rubric", help="rubric name or file, for the metrics' levels")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..runner._compare import compare, side_runs

    a_dirs, b_dirs = _sides(args)
    rules = {flag: getattr(args, flag) for flag in RULES}
    result = compare(a_dirs, b_dirs, jury=args.jury, rubric=args.rubric, **rules)
    code = result.exit_code
    if args.json:
        data = result.model_dump(mode="json")
        data["exit"] = code
        json.dump(data, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return code
    from ..report._console import console_for

    render(result, console_for(sys.stdout), side_runs(a_dirs), side_runs(b_dirs), code)
    return code


def _sides(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    if args.runs and (args.a or args.b):
        raise ConfigError("give the runs either as RUN_A RUN_B or with --a and --b")
    if args.runs:
        if len(args.runs) != 2:
            raise ConfigError(f"expected RUN_A RUN_B, got {len(args.runs)} run(s)")
        return [args.runs[0]], [args.runs[1]]
    if not args.a or not args.b:
        raise ConfigError("give RUN_A RUN_B, or --a RUN ... --b RUN ...")
    return list(args.a), list(args.b)


_STYLE = {
    "better": "green",
    "worse": "red",
    "not significant": "yellow",
    "within noise": "yellow",
    "below minimum effect": "yellow",
}
_OUTCOME = {"passed": ("PASSED", "green"), "failed": ("FAILED", "red")}
_KINDS: tuple[tuple[ChangeKind, str], ...] = (
    ("regression", "Stable regressions (PASS in every repeat of A, FAIL in every repeat of B)"),
    ("improvement", "Stable improvements (FAIL in every repeat of A, PASS in every repeat of B)"),
    ("flaky", "Flaky, not called (PASS and FAIL among one side's repeats)"),
    ("inconclusive", "Not called (an inconclusive or missing verdict in some repeat)"),
)


def render(
    result: Comparison, console: Console, a_dirs: list[str], b_dirs: list[str], code: int
) -> None:
    from rich.markup import escape
    from rich.text import Text

    console.print(Text("aiojury compare", style="bold"))
    console.print(f"A: {escape(', '.join(a_dirs))}")
    console.print(f"B: {escape(', '.join(b_dirs))}")
    rules = result.rules
    console.print(
        "rules: any stable regression fails"
        + (f" beyond {rules.max_regressions}" if rules.max_regressions else "")
        + f"; significance {rules.significance:g}, minimum effect {rules.min_effect:g} "
        f"(pass rate) / {rules.min_score_effect:g} (scores), noise floor {rules.noise:g} / "
        f"{rules.score_noise:g}"
        + (
            f"; cost rule: B at most {1 - rules.cheaper:.0%} of A's {rules.cost} cost"
            if rules.cheaper is not None
            else ""
        )
    )
    console.print(
        f"{result.common} cases in common, {result.runs_a} run(s) of A, {result.runs_b} of B"
        + (f", {len(result.only_a)} only in A" if result.only_a else "")
        + (f", {len(result.only_b)} only in B" if result.only_b else "")
    )
    for warning in result.warnings:
        console.print(Text(f"warning: {warning}", style="yellow"))
    for kind, title in _KINDS:
        changes = result.of_kind(kind)
        if not changes:
            continue
        console.print()
        console.print(Text(f"{title}: {len(changes)}", style="bold"))
        for change in changes[:CHANGES_SHOWN]:
            a = "/".join(v.value if v else "-" for v in change.a)
            b = "/".join(v.value if v else "-" for v in change.b)
            category = f" [{change.category}]" if change.category else ""
            console.print(f"  {escape(change.case_id)}{escape(category)}: {a} -> {b}")
        if len(changes) > CHANGES_SHOWN:
            console.print(f"  ... and {len(changes) - CHANGES_SHOWN} more (--json)")
    console.print()
    _aggregates(result, console)
    if result.cost is not None:
        cost = result.cost
        console.print(f"cost ({cost.source}, per run): A {_usd(cost.a)}, B {_usd(cost.b)}")
    console.print()
    word, style = _OUTCOME.get(result.outcome, ("UNDECIDED", "yellow"))
    # What the outcome stands on, on the result line itself: a PASSED on a quarter of the
    # cases, across juries, or from FAKE replies is not a plain PASSED.
    on = ""
    uncompared = len(result.only_a) + len(result.only_b)
    if uncompared and result.common:
        on += f"  ·  on {result.common} of {result.common + uncompared} cases"
    if result.jury_changes:
        on += "  ·  different juries"
    if result.degraded:
        on += f"  ·  degraded judging in {' and '.join(result.degraded)}"
    console.print(
        Text.assemble(("Result ", "bold"), (word, f"bold {style}"), f"  ·  exit {code}{on}")
    )
    for reason in result.reasons:
        console.print(f"  {escape(reason)}")


def _usd(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.4f}"


def _aggregates(result: Comparison, console: Console) -> None:
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    table = Table(title="Aggregate tests (context)", title_justify="left")
    for column in ("quantity", "test", "cases", "A", "B", "change", "up/down", "p", "noise"):
        table.add_column(column, justify="left" if column in ("quantity", "test") else "right")
    table.add_column("call")
    for q in result.quantities:
        fmt = "{:.1%}" if q.name == "pass rate" else "{:.3f}"
        table.add_row(
            escape(q.name),
            q.test,
            str(q.cases),
            "-" if q.a is None else fmt.format(q.a),
            "-" if q.b is None else fmt.format(q.b),
            "-" if q.effect is None else ("+" if q.effect > 0 else "") + fmt.format(q.effect),
            f"{q.improved}/{q.worsened}",
            "-" if q.p_value is None else f"{q.p_value:.3g}",
            f"{q.noise:.3g} ({q.noise_source})",
            Text(q.call, style=_STYLE[q.call]),
        )
    console.print(table)
    for q in result.quantities:
        console.print(f"  {escape(q.name)}: {q.call} — {escape(q.why)}")
        if q.interval_a is not None and q.interval_b is not None:
            console.print(
                f"    A {q.interval_a.estimate or 0:.1%} ({q.interval_a.text()}), "
                f"B {q.interval_b.estimate or 0:.1%} ({q.interval_b.text()}) over "
                f"{q.cases} case(s); inconclusive verdicts left out, as the test leaves them"
            )
