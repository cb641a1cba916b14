"""The terminal report: the gate's outcome, results by category, the cases to look at and why,
disagreement with each dissenting juror's reason, and each juror's record."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from .._verdict import Verdict
from ..checks._pii import scrub
from ..panel._panel import Gate
from ._grid import grid as _grid
from ._grid import table_width as _table_width
from ._judge_errors import family_lines, judge_error_lines
from ._juror_rows import cost_text as _cost
from ._juror_rows import juror_rows
from ._lines import CaseLine, ReportHeader, fake_line, offline_line
from ._progress import sources_text
from ._summary import RunSummary, batch_line
from ._uncertainty import bounds_text, interval_heading
from ._views import probability_text

__all__ = ["CaseLine", "ReportHeader", "render_report"]

_STYLE = {Verdict.PASS: "green", Verdict.FAIL: "red", Verdict.INCONCLUSIVE: "yellow"}
_EXIT_TEXT = {
    0: ("PASSED", "green"),
    1: ("FAILED", "red"),
    3: ("INCONCLUSIVE", "yellow"),
}


def _safe(text: str) -> str:
    """Text a judge or an agent wrote, masked (a judge may quote a leaked card or key) and
    escaped for rich markup."""
    return escape(scrub(text, ("api_key", "card", "ssn")))


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _middle(text: str, width: int) -> str:
    """`text` in `width` characters, cut in the middle: an ID's head (its kind) and tail (its
    number) are the parts that tell it apart."""
    if len(text) <= width:
        return text
    tail = (width - 1) // 2
    return text[: width - 1 - tail] + "…" + text[len(text) - tail :]


def distinct_cuts(ids: Sequence[str], width: int) -> dict[str, str]:
    """Each ID in at most `width` characters, as long as no two then read the same; where
    they would, wider (up to the IDs in full). Two cases never share a label."""
    longest = max(map(len, ids), default=0)
    for size in range(max(width, 5), longest):
        cuts = {case_id: _middle(case_id, size) for case_id in ids}
        if len(set(cuts.values())) == len(cuts):
            return cuts
    return {case_id: case_id for case_id in ids}


#: A "why" narrower than this is left out of the table (the failure list has every reason).
_MIN_WHY = 16


def _scores_text(line: CaseLine, legend: tuple[str, ...] | None) -> str:
    if line.spared:
        scores = "judges spared"
    elif legend is not None:
        scores = " ".join(line.scores)
    else:
        scores = "  ".join(f"{m} {v}" for m, v in zip(line.metrics, line.scores, strict=True))
    return f"{line.score}  {scores}" if line.score else scores


def _case_table(cases: Sequence[CaseLine], console: Console) -> None:
    # Most runs use one rubric whose metrics are the same on every case: then the scores are
    # a row of numbers under one legend, not the metric names repeated on every line.
    shapes = {line.metrics for line in cases if line.metrics}
    legend = next(iter(shapes)) if len(shapes) == 1 else None
    scores = [_scores_text(line, legend) for line in cases]
    whys = [f"[{line.stage}] {line.note}" if line.stage else line.note for line in cases]
    # Verdicts and scores are never cut; checks may be (the failure list names them all); IDs
    # are shown whole, and the reason gets what is left when that is enough to read. On a
    # terminal too narrow even without the reason, IDs are cut only as far as every one stays
    # distinct; narrower still, each case takes a line of its own.
    fixed = [
        max(7, *(len(line.verdict.value) for line in cases)),
        min(20, max(6, *(len(line.checks) for line in cases))),
        max(6, *map(len, scores)),
    ]
    ids = [line.case_id for line in cases]
    case_width = max(4, *map(len, ids))
    labels = {case_id: case_id for case_id in ids}
    longest_why = max(map(len, whys))
    why = min(console.width - _table_width([*fixed, case_width, 0]), longest_why)
    if why < min(_MIN_WHY, longest_why) or why <= 0:
        why = 0
        room = console.width - _table_width([*fixed, 0])
        labels = distinct_cuts(ids, room)
        case_width = max(4, *map(len, labels.values()))
        if case_width > room:
            _case_lines(cases, scores, console)
            return
    table = Table(title="Cases", title_justify="left", box=box.SIMPLE_HEAD, show_edge=False)
    for name, width in zip(
        ("case", "verdict", "checks", "scores"), (case_width, *fixed), strict=True
    ):
        overflow: Literal["ellipsis", "fold"] = "ellipsis" if name == "checks" else "fold"
        table.add_column(name, no_wrap=True, overflow=overflow, width=width, min_width=width)
    if why:
        table.add_column("why", no_wrap=True, overflow="ellipsis", width=why)
    for line, score, reason in zip(cases, scores, whys, strict=True):
        row: list[str | Text] = [
            escape(labels[line.case_id]),
            Text(line.verdict.value, style=_STYLE[line.verdict]),
            escape(line.checks),
            score,
        ]
        if why:
            row.append(_safe(_shorten(reason, why)))
        table.add_row(*row)
    console.print(table)
    if legend is not None:
        console.print(f"scores: {' · '.join(legend)} (panel aggregate)", style="dim")


def _case_lines(cases: Sequence[CaseLine], scores: Sequence[str], console: Console) -> None:
    """The case table on a terminal too narrow for it: one case per line, wrapped, uncut."""
    console.print(Text("Cases", style="bold"))
    for line, score in zip(cases, scores, strict=True):
        checks = f"  {line.checks}" if line.checks else ""
        text = Text.assemble(
            line.case_id, "  ", (line.verdict.value, _STYLE[line.verdict]), f"{checks}  {score}"
        )
        console.print(text, overflow="fold")


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def render_report(
    summary: RunSummary,
    header: ReportHeader,
    console: Console,
    *,
    gate: Gate | None = None,
    cases: Sequence[CaseLine] = (),
    conversations: Mapping[str, str] | None = None,
    limit: int | None = None,
    before_gate: Sequence[Text | str] = (),
) -> None:
    """Print the report. `conversations` gives a line about each conversation case (by ID),
    printed with it in the failure list. Each list of cases prints at most `limit` of them
    and says how many more there are (every figure counts them all). `before_gate` lines
    (warnings, where the reports are) print just before the gate's outcome, so that the
    terminal's last line is always the gate's: its outcome, the pass rate and its interval."""
    gate = gate or Gate()
    conversations = conversations or {}
    title = Text.assemble(("aiojury", "bold"), f"  rubric {header.rubric}  ·  ")
    title.append(f"{len(header.jurors)} juror{'s' * (len(header.jurors) != 1)}: ")
    title.append(", ".join(header.jurors))
    console.print(title)
    if header.offline_jurors:
        console.print(
            Text(
                offline_line(header.offline_jurors)
                + (" Set a provider key or pass --jury for real judges." * header.offline_hint),
                style="bold yellow",
            )
        )
    if header.fake_jurors:
        console.print(Text(fake_line(header.fake_jurors), style="bold yellow"))
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

    for key, heading, results in (
        ("category", "Results by category", summary.by_category),
        ("split", "Results by split", summary.by_split),
    ):
        if key == "split" and not results:
            continue
        _grid(
            console,
            heading,
            (key, "cases", "pass", "fail", "inconclusive", "pass rate", interval_heading(gate)),
            [
                [
                    name,
                    *map(str, (s.total, s.passed, s.failed, s.inconclusive)),
                    _pct(s.pass_rate),
                    bounds_text(s.interval(gate)),
                ]
                for name, s in results.items()
            ],
            alert={"fail": "red", "inconclusive": "yellow"},
        )

    for label, notes, style in (
        ("Failed", summary.failures, "red"),
        ("Inconclusive", summary.inconclusives, "yellow"),
    ):
        if not notes:
            continue
        console.print()
        console.print(Text(f"{label} ({len(notes)})", style=f"bold {style}"))
        for note in notes[:limit]:
            category = f" [{note.category}]" if note.category else ""
            stage = f"  (failed at {note.stage})" if note.stage else ""
            console.print(Text(f"  {note.case_id}{category}{stage}", style=style))
            if note.case_id in conversations:
                console.print(Text(f"      {conversations[note.case_id]}", style="dim"))
            for reason in note.reasons:
                console.print(f"      {_safe(reason)}")
        _more(console, len(notes), limit)

    if summary.disagreements:
        console.print()
        console.print(Text(f"Disagreement ({len(summary.disagreements)})", style="bold magenta"))
        for note in summary.disagreements[:limit]:
            console.print(Text(f"  {note.case_id}: " + "; ".join(note.reasons), style="magenta"))
            for dissent in note.dissent:
                verdict = dissent.verdict.value if dissent.verdict else "-"
                if dissent.juror in note.sure:
                    verdict += f", p {probability_text(note.sure[dissent.juror])}"
                # The full reasons are in the run's HTML report and records.
                reason = _safe(_shorten(dissent.reason, 240))
                console.print(f"      {escape(dissent.juror)} ({verdict}): {reason}")
        _more(console, len(summary.disagreements), limit)

    console.print()
    _jurors(summary, console)
    _judge_errors(summary, console)
    calls = summary.calls
    if calls.cache_hits:
        where = f" from {sources_text(calls.cached_from)}" if calls.cached_from else ""
        console.print(f"Cached replies: {calls.cache_hits}{where}.")
    if summary.calls.batched:
        console.print(batch_line(summary))
    _print_checks_summary(summary, console)
    if summary.escalated or summary.tier_calls_saved:
        saved = summary.tier_cost_saved
        console.print(
            f"Cascade: {summary.escalated} case(s) escalated to a later tier; "
            f"{summary.tier_calls_saved} call(s) not made against the full panel"
            + (f", about {_cost(saved)} saved." if saved is not None else ".")
        )
    if summary.inconclusive and summary.coverage is not None:
        console.print(f"Coverage: {_pct(summary.coverage)} of the cases decided.")

    console.print()
    for line in before_gate:
        console.print(line)
    for line in family_lines(summary):
        console.print(Text(line, style="bold yellow"))
    decided = summary.gate_outcome(gate)
    if decided.why() is not None:
        console.print(Text(str(decided.why()), style=_EXIT_TEXT[decided.code][1]))
    word, style = _EXIT_TEXT[decided.code]
    outcome = Text.assemble(
        ("Gate ", "bold"),
        (word, f"bold {style}"),
        f"  {summary.passed} passed, {summary.failed} failed, {summary.inconclusive} "
        f"inconclusive{_unjudged(summary)} of {summary.cases}  ·  "
        f"pass rate {decided.rate_text()} ({decided.bar_text()})  ·  cost {_cost(summary.cost)}"
        f"  ·  exit {decided.code}",
    )
    # Off a terminal (a CI log, a pipe) the gate's line is one line at any width, so that the
    # log's last line holds the outcome and the pass rate with its interval whole; a terminal
    # has rich wrap it between words, never through a figure.
    console.print(outcome, soft_wrap=not console.is_terminal)


def _unjudged(summary: RunSummary) -> str:
    return f", {summary.not_judged} not judged" if summary.not_judged else ""


def _more(console: Console, listed: int, limit: int | None) -> None:
    if limit is not None and listed > limit:
        console.print(f"  ... and {listed - limit:,} more (in summary.json and `jury export`)")


def _jurors(summary: RunSummary, console: Console) -> None:
    """Each juror's record: a table when the terminal is wide enough for every figure, else
    one line per juror (a count or a cost is never cut to fit)."""
    columns, rows = juror_rows(summary)
    _grid(console, "Jurors", columns, rows, alert={"invalid": "yellow", "unavailable": "yellow"})


def _judge_errors(summary: RunSummary, console: Console) -> None:
    """Each juror that missed cases, and the first error of each kind it met."""
    lines = judge_error_lines(summary)
    if not lines:
        return
    console.print(Text("Judge errors", style="bold yellow"))
    for line in lines:
        console.print(Text(f"  {_safe(line)}", style="" if line.startswith(" ") else "yellow"))


def _print_checks_summary(summary: RunSummary, console: Console) -> None:
    if summary.checks_failed:
        console.print(f"Checks failed on {summary.checks_failed} case(s).")
    if summary.judges_spared:
        console.print(
            f"Judges spared on {summary.judges_spared} case(s) whose "
            f"{'agent or ' if summary.failed_stages.get('agent') else ''}required checks failed: "
            f"{summary.calls_saved} judge call(s) saved."
        )
    if summary.failed_stages:
        stages = ", ".join(f"{stage} {count}" for stage, count in summary.failed_stages.items())
        console.print(f"Failed cases by the stage that failed first: {stages}.")
