"""`jury compare RUN_A RUN_B`: is B better or worse than A, case by case, beyond the noise?

Each side may be several runs of the same configuration (``--a RUN RUN ... --b RUN RUN ...``):
the movement between repeats of one side is the noise, and a change is called better or worse
only beyond it. The rules come from flags or the ``[compare]`` table of a jury file, decided
before the result is seen.

Exit codes: 0 nothing is worse beyond noise, 1 something is (pass rate, a metric or the
score), 2 usage error, 3 the sides have no case in common.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from .._errors import ConfigError, JuryFileError
from .._problems import problems, read_toml

if TYPE_CHECKING:
    from rich.console import Console

    from .._panel import CompareRules
    from ..agreement._compare import Comparison

__all__ = ["register"]

EXIT_WORSE = 1
EXIT_NOTHING_IN_COMMON = 3
CHANGES_SHOWN = 50


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "compare",
        help="compare two runs (or two sets of repeated runs) case by case",
        description="Compare run B with run A case by case: verdicts that changed, McNemar's "
        "exact test on pass/fail, sign or Wilcoxon tests on scores. With repeated runs per side "
        "(--a RUN ... --b RUN ...) the movement between repeats is the noise, and a change is "
        "called better or worse only beyond it. Exit 0 (nothing worse), 1 (worse beyond "
        "noise), 2 (usage error) or 3 (no case in common).",
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
    parser.add_argument("--rubric", help="rubric name or file, for the metrics' levels")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.set_defaults(handler=run)


def rules_from(args: argparse.Namespace) -> CompareRules:
    """The jury file's ``[compare]`` table, with flags taking precedence."""
    from .._panel import CompareRules

    table: dict[str, Any] = {}
    if args.jury:
        path = Path(args.jury)
        data = read_toml(path, lambda reason: JuryFileError(str(path), "", reason))
        found = data.get("compare", {})
        if not isinstance(found, dict):
            raise JuryFileError(str(path), "compare", "must be a table")
        table.update(found)
    flags = ("significance", "min_effect", "min_score_effect", "noise", "score_noise")
    table.update({f: getattr(args, f) for f in flags if getattr(args, f) is not None})
    try:
        return CompareRules.model_validate(table)
    except ValidationError as exc:
        found = [(f"compare.{key}", reason) for key, reason in problems(exc, CompareRules)]
        raise JuryFileError(args.jury or "the flags", found) from None


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


def run(args: argparse.Namespace) -> int:
    from .._records import read_manifest, read_verdicts
    from ..agreement._compare import compare_runs
    from ._options import manifest_rubric, rubric_metrics

    a_dirs, b_dirs = _sides(args)
    rules = rules_from(args)
    side_a = [{v.case_id: v for v in read_verdicts(d)} for d in a_dirs]
    side_b = [{v.case_id: v for v in read_verdicts(d)} for d in b_dirs]
    name = args.rubric or manifest_rubric(read_manifest(a_dirs[0]))
    sample = next((v for run in side_a for v in run.values()), None)
    metrics = rubric_metrics(name, [sample] if sample else [], required=bool(args.rubric))
    levels = {m.name: m.level for m in metrics} if metrics else None
    result = compare_runs(side_a, side_b, rules, levels=levels)
    code = exit_code(result)
    if args.json:
        data = result.model_dump(mode="json")
        data["exit"] = code
        json.dump(data, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return code
    from rich.console import Console

    console = Console(file=sys.stdout, width=None if sys.stdout.isatty() else 120)
    render(result, console, a_dirs, b_dirs, code)
    return code


def exit_code(result: Comparison) -> int:
    if result.common == 0:
        return EXIT_NOTHING_IN_COMMON
    return EXIT_WORSE if result.worse else 0


_STYLE = {"better": "green", "worse": "red", "within noise": "yellow"}


def render(
    result: Comparison, console: Console, a_dirs: list[str], b_dirs: list[str], code: int
) -> None:
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    console.print(Text("aiojury compare", style="bold"))
    console.print(f"A: {escape(', '.join(a_dirs))}")
    console.print(f"B: {escape(', '.join(b_dirs))}")
    rules = result.rules
    console.print(
        f"rules: significance {rules.significance:g}, minimum effect {rules.min_effect:g} "
        f"(pass rate) / {rules.min_score_effect:g} (scores), noise floor {rules.noise:g} / "
        f"{rules.score_noise:g}"
    )
    console.print(
        f"{result.common} cases in common"
        + (f", {len(result.only_a)} only in A" if result.only_a else "")
        + (f", {len(result.only_b)} only in B" if result.only_b else "")
    )
    console.print()

    table = Table(title="B against A", title_justify="left")
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

    if result.changes:
        console.print()
        console.print(Text(f"Verdicts that changed ({len(result.changes)})", style="bold"))
        for change in result.changes[:CHANGES_SHOWN]:
            a = "/".join(v.value if v else "-" for v in change.a)
            b = "/".join(v.value if v else "-" for v in change.b)
            note = "" if change.consistent else "  (repeats disagree)"
            category = f" [{change.category}]" if change.category else ""
            console.print(f"  {escape(change.case_id)}{escape(category)}: {a} -> {b}{note}")
        if len(result.changes) > CHANGES_SHOWN:
            console.print(f"  ... and {len(result.changes) - CHANGES_SHOWN} more (--json)")
    for side, unstable in (("A", result.unstable_a), ("B", result.unstable_b)):
        if unstable:
            console.print(
                f"Unstable in {side} (repeats disagree): {escape(', '.join(unstable[:20]))}"
            )
    console.print()
    words = {0: ("nothing worse beyond noise", "green"), 1: ("WORSE beyond noise", "red")}
    word, style = words.get(code, ("no case in common", "yellow"))
    console.print(Text.assemble(("Result ", "bold"), (word, f"bold {style}"), f"  ·  exit {code}"))
