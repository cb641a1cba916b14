"""Publishing a run: the summary, HTML and JUnit reports written into the run directory, and
the terminal report, all read back from the records (so a resumed or re-scored run reports
every case)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .._verdict import Verdict
from ..adapters._rubric import Rubric
from ..cases._case import Case
from ..panel._panel import Gate, Panel
from ..panel._warnings import juror_family
from ..runs._records import JUNIT, REPORT, SUMMARY, read_cases, read_manifest
from ._agreement import CONFIDENCE, RESAMPLES, SEED, manifest_rubric, rubric_metrics
from ._calibration import Tradeoff
from ._console import console_for
from ._index import Entry, VerdictIndex
from ._judge_errors import losses_json, lost
from ._judged import HTML_CASES, JudgedCases
from ._junit import write_junit
from ._summary import RunSummary, Tally, with_unjudged
from ._uncertainty import decision_json, interval_json
from ._views import ErrorGroups

if TYPE_CHECKING:
    from ..agreement._tally import AgreementTally
    from ._lines import CaseLine

__all__ = ["HTML_CASES", "Published", "ReportPaths", "print_published", "publish"]

#: Runs up to this many cases get a per-case table in the terminal report.
CASE_TABLE_LIMIT = 60


#: Cases each list of the terminal report (failed, inconclusive, disagreement) prints at most.
TERMINAL_CASES = 200


@dataclass(frozen=True, slots=True)
class ReportPaths:
    """Where to write copies of a run's reports besides its directory (``--junit``,
    ``--html``, ``--json``: where CI expects them; None: no copy), how many passing
    cases the HTML report shows at most (``--html-cases``), and whether the run's directory
    gets no HTML report (``--no-html``: the page, its agreement statistics and the
    libraries they import are what a run's memory peaks on; `jury report` writes it later)."""

    junit: Path | None = None
    html: Path | None = None
    json: Path | None = None
    html_cases: int = HTML_CASES
    no_html: bool = False

    def page(self, into_run: bool = True) -> bool:
        """Whether an HTML report is written: into the run's directory, or to ``--html``."""
        return (into_run and not self.no_html) or self.html is not None


@dataclass(frozen=True, slots=True)
class Published:
    """A run's reports as `publish` wrote them, and what its terminal report prints
    (`print_published`: the library writes files and prints nothing; a command prints)."""

    run_dir: Path
    summary: RunSummary
    gate: Gate
    header: Any
    lines: Sequence[CaseLine]
    conversations: dict[str, str]
    warnings: tuple[str, ...]
    copies: tuple[Path, ...]
    into_run: bool
    #: Whether an HTML report was written (not with ``--no-html``).
    page: bool = True


def publish(
    run_dir: Path,
    panel: Panel,
    rubric: str | Rubric,
    *,
    jurors: Sequence[str],
    warnings: Sequence[str] = (),
    checks: Sequence[str] | None = None,
    judge_all: bool = False,
    paths: ReportPaths | None = None,
    offline_hint: bool = False,
    into_run: bool = True,
    judged: JudgedCases | None = None,
) -> Published:
    """Write the summary, HTML and JUnit reports of a run; what its terminal report prints
    is returned (`print_published` prints it).

    Everything is read back from the run directory, so a resumed run reports every case, and
    `jury rescore` publishes the same way. The reports go into the run directory (unless
    `into_run` is false: `jury report` leaves a recorded run as it is) and to `paths`.
    The verdicts are read one at a time (`VerdictIndex`) and every report is written as it is
    made, so that publishing a run of any size takes memory for the cases it shows, not for
    all of them; every figure still counts every case. `rubric` is the run's rubric, or its
    name when the caller does not hold it (then the reports load it from the manifest).
    `judged` is the cases judged by the caller, while they are still in memory.
    """
    from ._lines import ReportHeader

    paths = paths or ReportPaths()
    said = tuple(warnings)
    loaded = None if isinstance(rubric, str) else rubric
    rubric = rubric if isinstance(rubric, str) else rubric.name
    index = VerdictIndex(run_dir)
    page = paths.page(into_run)
    if page:
        from ._html import TEMPLATE
        from ._page import prepare_template

        prepare_template(TEMPLATE)
    try:
        families = {juror.id: juror_family(juror) for juror in panel.jurors}
        gathered = _gather(run_dir, index, jurors, paths.html_cases, judged, families, page)
        summary, gate = gathered.summary, panel.gate
        header = ReportHeader(
            rubric=rubric,
            jurors=tuple(jurors),
            offline_jurors=summary.offline_jurors,
            checks=checks,
            judge_all=judge_all,
            offline_hint=offline_hint,
            fake_jurors=[
                *(name for name, stats in summary.jurors.items() if stats.fake),
                *(name for name, calls in summary.check_calls.items() if calls.fake),
            ],
        )
        reports: dict[str, tuple[Path | None, Callable[[TextIO], None]]] = {
            SUMMARY: (paths.json, lambda out: _write_summary(out, summary, gate, said)),
            REPORT: (
                paths.html,
                lambda out: _write_html(out, index, gathered, header, gate, loaded, said),
            ),
            JUNIT: (
                paths.junit,
                lambda out: write_junit(
                    out, index, summary, name=f"aiojury {rubric}", gate=gate, warnings=said
                ),
            ),
        }
        if not page:
            del reports[REPORT]
            if into_run:  # a resumed run's earlier page would show what it no longer decides
                (run_dir / REPORT).unlink(missing_ok=True)
        for name, (copy, write) in reports.items():
            if into_run:
                _write_atomic(run_dir / name, write)
                if copy is not None:
                    copy.parent.mkdir(parents=True, exist_ok=True)
                    _write_atomic(copy, partial(_copy, run_dir / name))
            elif copy is not None:
                copy.parent.mkdir(parents=True, exist_ok=True)
                _write_atomic(copy, write)
    finally:
        index.close()
    copies = tuple(copy for copy in (paths.junit, paths.html, paths.json) if copy is not None)
    return Published(
        run_dir,
        summary,
        gate,
        header,
        gathered.lines,
        gathered.conversations,
        said,
        copies,
        into_run,
        page,
    )


def print_published(published: Published, stream: Any = None) -> None:
    """The terminal report of a published run, its warnings, and where its reports are."""
    from rich.text import Text

    from ._terminal import render_report

    lines = [Text.assemble(("warning:", "yellow"), f" {w}") for w in published.warnings]
    if published.into_run:
        lines.append(Text(f"Run recorded in {published.run_dir}"))
        if not published.page:
            lines.append(
                Text(
                    f"No HTML report (--no-html): `jury report {published.run_dir} --html "
                    f"{published.run_dir / REPORT}` writes it"
                )
            )
    lines += [Text(f"Report written to {copy}") for copy in published.copies]
    render_report(
        published.summary,
        published.header,
        console_for(stream),
        gate=published.gate,
        cases=published.lines,
        conversations=published.conversations,
        limit=TERMINAL_CASES,
        before_gate=lines,
    )


@dataclass(slots=True)
class _Gathered:
    """What one pass over every verdict gathers for the reports."""

    summary: RunSummary
    shown: list[Entry]
    cases: dict[str, Case]
    #: None when no HTML report is written: only the page shows agreement.
    agreement: AgreementTally | None
    errors: ErrorGroups
    tradeoff: Tradeoff
    lines: list[CaseLine]
    conversations: dict[str, str]
    limit: int
    #: The run's manifest, read once for the reports (an empty mapping without one).
    manifest: dict[str, Any]


def _gather(
    run_dir: Path,
    index: VerdictIndex,
    jurors: Sequence[str],
    limit: int,
    judged: JudgedCases | None = None,
    families: Mapping[str, str] | None = None,
    page: bool = True,
) -> _Gathered:
    from ._conversation import conversation_line
    from ._lines import CaseLine

    listed = index.listed()
    passing = [e for e in listed if e.verdict is Verdict.PASS]
    shown = listed[: len(listed) - len(passing) + min(limit, len(passing))]
    shown_ids = {entry.case_id for entry in shown}
    # The cases the page shows, and the labels of all (the trade-off counts every case).
    cases: dict[str, Case] = {}
    labels: dict[str, tuple[str, Any]] = {}
    if judged is not None and judged.covers(len(index), limit):
        cases = judged.cases(shown_ids)
        labels = judged.labels
    else:
        # Bounded memory forces this re-read: the cases are not all held in memory (a
        # resumed run, a re-score, a batch run, more failed cases than `JudgedCases` keeps).
        for case in read_cases(run_dir):
            if case.id in shown_ids:
                cases[case.id] = case
            found = Tradeoff.label(case)
            if found is not None:
                labels[case.id] = found
    tally, errors = Tally(jurors, families), ErrorGroups()
    agreement = None
    if page:
        from ..agreement._tally import AgreementTally  # only for the HTML report

        agreement = AgreementTally()
    tradeoff = Tradeoff()
    lines: list[CaseLine] = []
    conversations: dict[str, str] = {}
    for verdict in index.verdicts():
        tally.add(verdict)
        if agreement is not None:
            agreement.add(verdict)
        errors.add(verdict, shown=verdict.case_id in shown_ids)
        if verdict.case_id in labels:
            tradeoff.add(verdict, labels[verdict.case_id])
        if len(index) <= CASE_TABLE_LIMIT:
            lines.append(CaseLine.of(verdict))
        shown_case = cases.get(verdict.case_id)
        # The terminal lists the failed and inconclusive cases (always shown) with this line.
        if shown_case is not None and shown_case.turns and verdict.verdict is not Verdict.PASS:
            conversations[verdict.case_id] = conversation_line(shown_case, verdict)
    manifest = read_manifest(run_dir)
    return _Gathered(
        with_unjudged(tally.summary(), manifest),
        shown,
        cases,
        agreement,
        errors,
        tradeoff,
        lines,
        conversations,
        limit,
        manifest,
    )


def _write_html(
    out: TextIO,
    index: VerdictIndex,
    gathered: _Gathered,
    header: Any,
    gate: Gate,
    rubric: Rubric | None = None,
    warnings: Sequence[str] = (),
) -> None:
    from ..agreement._seats import Seats
    from ._html import Cards, Page, write_html
    from ._prompts import prompt_book

    manifest = gathered.manifest
    shown = gathered.shown
    first = [index.load(index.entries[0])] if index.entries else []
    metrics = rubric_metrics(rubric or manifest_rubric(manifest), first, required=False)
    assert gathered.agreement is not None, "gathered without the page's agreement"
    agreement = gathered.agreement.page(
        metrics, bootstrap=RESAMPLES, confidence=CONFIDENCE, seed=SEED
    )
    groups, vote_errors = gathered.errors.result(
        {entry.case_id: place for place, entry in enumerate(shown)}
    )
    book = prompt_book(
        manifest,
        (gathered.cases[e.case_id] for e in shown if e.case_id in gathered.cases),
        rubric,
    )
    page = Page(
        agreement=agreement,
        error_groups=groups,
        # The seats as the manifest records them (each seat's model), as calibrate has them.
        tradeoff=gathered.tradeoff.result(
            Seats.of_manifest(manifest, gathered.tradeoff.served.values())
        ),
        durations=[entry.duration_s for entry in index.entries],
        not_shown=len(index) - len(shown),
        limit=gathered.limit,
    )
    cards = Cards(index, shown, gathered.cases, vote_errors, book)
    write_html(out, gathered.summary, cards, page, header, gate, manifest, warnings)


def _write_atomic(path: Path, write: Callable[[TextIO], None]) -> None:
    """`path` replaced whole or not at all, written as it is made (`write_atomic` for a
    report too big to hold as one string)."""
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", encoding="utf-8") as handle:
        write(handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def _copy(made: Path, out: TextIO) -> None:
    with open(made, encoding="utf-8") as source:
        shutil.copyfileobj(source, out)


def _write_summary(
    out: TextIO, summary: RunSummary, gate: Gate, warnings: Sequence[str] = ()
) -> None:
    data = summary.model_dump(mode="json")
    # What the run warned of as it went (the terminal's "warning:" lines), in every report.
    data["warnings"] = list(warnings)
    data["pass_rate"] = summary.pass_rate
    data["coverage"] = summary.coverage
    data["cost"] = summary.cost
    # Every call of the run, the jurors' and the model checks' (`check_calls`), added up.
    data["calls"] = asdict(summary.calls)
    # The judge-errors section: each juror that missed cases, and how (`_judge_errors`).
    data["judge_errors"] = {name: losses_json(stats) for name, stats in lost(summary)}
    data["gate"] = gate.model_dump(mode="json")
    decided = summary.gate_outcome(gate)
    data["exit_code"] = decided.code
    # The pass rate's uncertainty (`_uncertainty`): the run's and each category's and split's.
    data["pass_rate_interval"] = interval_json(decided.interval)
    data["gate_decision"] = decision_json(decided)
    for key, stats in (("by_category", summary.by_category), ("by_split", summary.by_split)):
        for name, found in stats.items():
            data[key][name]["pass_rate"] = found.pass_rate
            data[key][name]["pass_rate_interval"] = interval_json(found.interval(gate))
    json.dump(data, out, indent=2, ensure_ascii=False)
    out.write("\n")
