"""The terminal report: the gate's outcome, results by category, the cases to look at and why,
disagreement with each dissenting juror's reason, and each juror's record."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from .._panel import Gate
from .._verdict import CaseVerdict, CheckOutcome, CheckResult, Verdict
from ..checks._pii import scrub
from ._summary import RunSummary, batch_line

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
    """Checks in a few characters: ``✓7`` when all that applied passed; otherwise the first
    failure by name (✗ required, ! advisory) and how many more failed. Not-applicable checks
    are left out; the failure list below names every failed check."""
    failed = [c for c in checks if c.outcome is CheckOutcome.FAIL]
    if not failed:
        passed = sum(1 for c in checks if c.outcome is CheckOutcome.PASS)
        return f"✓{passed}" if passed else ""
    failed.sort(key=lambda c: not c.required)
    first = ("✗ " if failed[0].required else "! ") + failed[0].name
    return first + (f" +{len(failed) - 1}" if len(failed) > 1 else "")


@dataclass(frozen=True, slots=True)
class CaseLine:
    """One row of the per-case table (kept for small runs only)."""

    case_id: str
    category: str | None
    verdict: Verdict
    #: The aggregated metric values, in the rubric's order (names in `metrics`).
    scores: tuple[str, ...]
    metrics: tuple[str, ...]
    note: str
    checks: str = ""
    #: Where a failed case first went wrong.
    stage: str = ""
    score: str = ""
    spared: bool = False

    @classmethod
    def of(cls, verdict: CaseVerdict) -> CaseLine:
        reasons = list(verdict.reasons)
        note = reasons[0] if reasons else ""
        if len(reasons) > 1:
            note += f" (+{len(reasons) - 1} more)"
        if verdict.disagreement:
            note = (note + "; " if note else "") + "jurors disagree"
        return cls(
            case_id=verdict.case_id,
            category=verdict.category,
            verdict=verdict.verdict,
            scores=tuple(_number(r.value) for r in verdict.metrics.values()),
            metrics=tuple(verdict.metrics),
            note=note,
            checks=_checks_cell(verdict.checks),
            stage=verdict.failed_stage or "",
            score="" if verdict.score is None else f"{verdict.score:.2f}",
            spared=verdict.judges_spared,
        )


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _case_table(cases: Sequence[CaseLine], console: Console) -> None:
    # Most runs use one rubric whose metrics are the same on every case: then the scores are
    # a row of numbers under one legend, not the metric names repeated on every line.
    shapes = {line.metrics for line in cases if line.metrics}
    legend = next(iter(shapes)) if len(shapes) == 1 else None
    table = Table(title="Cases", title_justify="left", box=box.SIMPLE_HEAD, show_edge=False)
    # Fixed widths for the short columns; the reason gets what is left of the line and is cut
    # to fit (the full text is in the failure list below and in the HTML report).
    # (Categories have their own table below.)
    columns = {
        "case": max(len(line.case_id) for line in cases),
        "verdict": max(7, *(len(line.verdict.value) for line in cases)),
        "checks": min(30, max(6, *(len(line.checks) for line in cases))),
        "scores": 13,
    }
    for name, width in columns.items():
        table.add_column(name, no_wrap=True, overflow="ellipsis", width=width)
    widths = list(columns.values())
    room = max(20, console.width - sum(widths) - 2 * (len(widths) + 1) - len(widths))
    table.add_column("why", no_wrap=True, overflow="ellipsis", width=room)
    for line in cases:
        if line.spared:
            scores = "judges spared"
        elif legend is not None:
            scores = " ".join(line.scores)
        else:
            scores = "  ".join(f"{m} {v}" for m, v in zip(line.metrics, line.scores, strict=True))
        if line.score:
            scores = f"{line.score}  {scores}"
        why = f"[{line.stage}] {line.note}" if line.stage else line.note
        table.add_row(
            escape(line.case_id),
            Text(line.verdict.value, style=_STYLE[line.verdict]),
            escape(line.checks),
            scores,
            _safe(_shorten(why, room)),
        )
    console.print(table)
    if legend is not None:
        console.print(f"scores: {' · '.join(legend)} (panel aggregate)", style="dim")


def _number(value: object) -> str:
    if isinstance(value, float):
        return f"{value:g}" if value.is_integer() else f"{value:.2f}".rstrip("0")
    return "?" if value is None else str(value)


def _cost(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.4f}"


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
        _case_table(cases, console)
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
                # The full reasons are in the run's HTML report and records.
                reason = _safe(_shorten(dissent.reason, 240))
                console.print(f"      {escape(dissent.juror)} ({verdict}): {reason}")

    console.print()
    jurors = Table(title="Jurors", title_justify="left", box=box.SIMPLE_HEAD, show_edge=False)
    # "served by" only when a fallback served some votes: otherwise it repeats the juror.
    failover = any(
        record.calls.served_by not in ((), (name,)) for name, record in summary.jurors.items()
    )
    cached = any(record.calls.cache_hits for record in summary.jurors.values())
    columns = ["juror", "votes", "valid", "invalid", "unavailable", "abstained", "re-asks"]
    columns += ["attempts", *(["cached"] if cached else []), "tokens in/out", "cost"]
    columns += ["served by"] if failover else []
    for column in columns:
        jurors.add_column(
            column,
            justify="left" if column in ("juror", "served by") else "right",
            no_wrap=True,
        )
    for juror, record in summary.jurors.items():
        # Offline jurors are named in the banner above and carry "offline/" in their name.
        row: list[str | Text] = [
            escape(juror),
            str(record.votes),
            str(record.valid),
            Text(str(record.invalid), style="yellow" if record.invalid else ""),
            Text(str(record.unavailable), style="yellow" if record.unavailable else ""),
            str(record.abstained),
            str(record.calls.reasks),
            str(record.calls.attempts),
            *([str(record.calls.cache_hits)] if cached else []),
            f"{record.calls.input_tokens:,}/{record.calls.output_tokens:,}"
            + (f" ({record.calls.cached_tokens:,} cached)" if record.calls.cached_tokens else ""),
            _cost(record.calls.cost),
        ]
        if failover:
            row.append(escape(", ".join(record.calls.served_by)))
        jurors.add_row(*row)
    console.print(jurors)
    if summary.calls.batched:
        console.print(batch_line(summary))
    _print_checks_summary(summary, console)

    console.print()
    code = summary.exit_code(gate)
    word, style = _EXIT_TEXT[code]
    outcome = Text.assemble(
        ("Gate ", "bold"),
        (word, f"bold {style}"),
        f"  {summary.passed} passed, {summary.failed} failed, {summary.inconclusive} "
        f"inconclusive of {summary.total}  ·  pass rate {_pct(summary.pass_rate)} "
        f"(required {gate.min_pass_rate:.0%})  ·  cost {_cost(summary.cost)}  ·  exit {code}",
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
