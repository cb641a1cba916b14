"""The terminal report: the gate's outcome, results by category, the cases to look at and why,
disagreement with each dissenting juror's reason, and each juror's record."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ._panel import Gate
from ._pii import scrub
from ._summary import RunSummary
from ._verdict import CaseVerdict, CheckOutcome, CheckResult, Verdict

__all__ = ["CaseLine", "ReportHeader", "render_report"]

_STYLE = {Verdict.PASS: "green", Verdict.FAIL: "red", Verdict.INCONCLUSIVE: "yellow"}
_EXIT_TEXT = {
    0: ("PASSED", "green"),
    1: ("FAILED", "red"),
    3: ("INCONCLUSIVE", "yellow"),
}


@dataclass(frozen=True, slots=True)
class ReportHeader:
    rubric: str
    jurors: Sequence[str]
    offline_jurors: Sequence[str]
    #: The checks run before the judges: empty when they were turned off, None when the
    #: report does not know (nothing is said about them).
    checks: Sequence[str] | None = None
    judge_all: bool = False


def _safe(text: str) -> str:
    """Text a judge or an agent wrote, masked (a judge may quote a leaked card or key) and
    escaped for rich markup."""
    return escape(scrub(text, ("api_key", "card", "ssn")))


def _checks_cell(checks: Sequence[CheckResult]) -> str:
    """Checks in a few characters: how many passed, then each failure by name (✗ required,
    ! advisory). Not-applicable checks are left out."""
    passed = sum(1 for c in checks if c.outcome is CheckOutcome.PASS)
    parts = [f"✓{passed}"] if passed else []
    parts += [
        ("✗ " if c.required else "! ") + c.name for c in checks if c.outcome is CheckOutcome.FAIL
    ]
    return " ".join(parts)


@dataclass(frozen=True, slots=True)
class CaseLine:
    """One row of the per-case table (kept for small runs only)."""

    case_id: str
    category: str | None
    verdict: Verdict
    scores: str
    note: str
    checks: str = ""
    #: Where a failed case first went wrong.
    stage: str = ""

    @classmethod
    def of(cls, verdict: CaseVerdict) -> CaseLine:
        scores = "  ".join(
            f"{name} {_number(result.value)}" for name, result in verdict.metrics.items()
        )
        if verdict.score is not None:
            scores = f"score {verdict.score:.2f}  " + scores
        if verdict.judges_spared:
            scores = "judges spared"
        note = "; ".join(verdict.reasons[:2])
        if verdict.disagreement:
            note = (note + "; " if note else "") + "disagreement"
        return cls(
            verdict.case_id,
            verdict.category,
            verdict.verdict,
            scores,
            note,
            _checks_cell(verdict.checks),
            verdict.failed_stage or "",
        )


def _number(value: object) -> str:
    if isinstance(value, float):
        return f"{value:g}" if value.is_integer() else f"{value:.2f}".rstrip("0")
    return "?" if value is None else str(value)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def render_report(
    summary: RunSummary,
    header: ReportHeader,
    console: Console,
    *,
    gate: Gate | None = None,
    cases: Sequence[CaseLine] = (),
) -> None:
    gate = gate or Gate()
    title = Text.assemble(("aiojury", "bold"), f"  rubric {header.rubric}  ·  ")
    title.append(f"{len(header.jurors)} juror{'s' * (len(header.jurors) != 1)}: ")
    title.append(", ".join(header.jurors))
    console.print(title)
    if header.offline_jurors:
        console.print(
            Text(
                f"OFFLINE reference jurors ({', '.join(header.offline_jurors)}): deterministic "
                "heuristics, not LLM judges. Set a provider key or pass --jury for real judges.",
                style="bold yellow",
            )
        )
    if header.checks is not None and not header.checks:
        console.print("Checks off: the judges alone decide.")
    elif header.checks:
        then = (
            "the judges are asked on every case (--judge-all)"
            if header.judge_all
            else "a failed required check fails the case and spares its judges"
        )
        console.print(f"{len(header.checks)} checks run first; {then}.")
    console.print()

    if cases:
        table = Table(title="Cases", title_justify="left", show_lines=False, expand=False)
        for column in ("case", "category", "verdict", "failed at", "checks", "scores", "why"):
            # An ID or a stage split over two lines reads as two; long text may fold.
            short = column in ("case", "verdict", "failed at")
            table.add_column(column, overflow="fold", no_wrap=short)
        for line in cases:
            table.add_row(
                escape(line.case_id),
                escape(line.category or ""),
                Text(line.verdict.value, style=_STYLE[line.verdict]),
                escape(line.stage),
                escape(line.checks),
                line.scores,
                _safe(line.note),
            )
        console.print(table)
        console.print()

    categories = Table(title="Results by category", title_justify="left")
    for column in ("category", "cases", "pass", "fail", "inconclusive", "pass rate"):
        categories.add_column(column, justify="left" if column == "category" else "right")
    for name, stats in summary.by_category.items():
        categories.add_row(
            escape(name),
            str(stats.total),
            str(stats.passed),
            Text(str(stats.failed), style="red" if stats.failed else ""),
            Text(str(stats.inconclusive), style="yellow" if stats.inconclusive else ""),
            _pct(stats.pass_rate),
        )
    console.print(categories)

    for label, notes, style in (
        ("Failed", summary.failures, "red"),
        ("Inconclusive", summary.inconclusives, "yellow"),
    ):
        if not notes:
            continue
        console.print()
        console.print(Text(f"{label} ({len(notes)})", style=f"bold {style}"))
        for note in notes:
            category = f" [{note.category}]" if note.category else ""
            stage = f"  (failed at {note.stage})" if note.stage else ""
            console.print(Text(f"  {note.case_id}{category}{stage}", style=style))
            for reason in note.reasons:
                console.print(f"      {_safe(reason)}")

    if summary.disagreements:
        console.print()
        console.print(Text(f"Disagreement ({len(summary.disagreements)})", style="bold magenta"))
        for note in summary.disagreements:
            console.print(Text(f"  {note.case_id}: " + "; ".join(note.reasons), style="magenta"))
            for dissent in note.dissent:
                verdict = dissent.verdict.value if dissent.verdict else "-"
                console.print(f"      {escape(dissent.juror)} ({verdict}): {_safe(dissent.reason)}")

    console.print()
    jurors = Table(title="Jurors", title_justify="left")
    for column in (
        "juror",
        "votes",
        "valid",
        "invalid",
        "unavailable",
        "abstained",
        "re-asks",
        "attempts",
        "tokens in/out",
        "served by",
    ):
        jurors.add_column(column, justify="left" if column in ("juror", "served by") else "right")
    for juror, record in summary.jurors.items():
        jurors.add_row(
            escape(juror) + (" (offline)" if record.offline else ""),
            str(record.votes),
            str(record.valid),
            Text(str(record.invalid), style="yellow" if record.invalid else ""),
            Text(str(record.unavailable), style="yellow" if record.unavailable else ""),
            str(record.abstained),
            str(record.reasks),
            str(record.attempts),
            f"{record.input_tokens}/{record.output_tokens}",
            escape(", ".join(record.served_by)),
        )
    console.print(jurors)
    _print_checks_summary(summary, console)

    console.print()
    code = summary.exit_code(gate)
    word, style = _EXIT_TEXT[code]
    outcome = Text.assemble(
        ("Gate ", "bold"),
        (word, f"bold {style}"),
        f"  {summary.passed} passed, {summary.failed} failed, {summary.inconclusive} "
        f"inconclusive of {summary.total}  ·  pass rate {_pct(summary.pass_rate)} "
        f"(required {gate.min_pass_rate:.0%})  ·  exit {code}",
    )
    console.print(outcome)


def _print_checks_summary(summary: RunSummary, console: Console) -> None:
    if summary.checks_failed:
        console.print(f"Checks failed on {summary.checks_failed} case(s).")
    if summary.judges_spared:
        console.print(
            f"Judges spared on {summary.judges_spared} case(s) whose required checks failed: "
            f"{summary.calls_saved} judge call(s) saved."
        )
    if summary.failed_stages:
        stages = ", ".join(f"{stage} {count}" for stage, count in summary.failed_stages.items())
        console.print(f"Failed cases by the stage that failed first: {stages}.")
