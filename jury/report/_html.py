"""The HTML report of a run: one self-contained page to explore (`_page` has its policy).

It opens on the gate's outcome, the counts (each a shortcut to the cases it counts), the
judge errors grouped by their text, and the cases, failures first, with filters (verdict,
disagreement, category, a juror's vote), a text search and a choice of order. In each case
the question, answer and reasons come before the checks; a failed check is shown in full, a
passed one by name, the ones that did not apply folded away. Each vote links to the exact
prompt its juror saw (`_prompts`). Then results by category, agreement (the figures
`jury agreement` prints, from the same computation), each juror's record and the run.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from ..cases._case import Case
from ..panel._panel import Gate
from ._agreement import RESAMPLES, agreement_rows, estimate_text
from ._conversation import conversation_view
from ._index import Entry, VerdictIndex
from ._judge_errors import family_lines, juror_line, lost, probability_lines
from ._page import write_page
from ._prompts import PromptBook
from ._summary import RunSummary, batch_line
from ._uncertainty import bounds_text, interval_heading
from ._views import ErrorGroup, anchor, case_view

if TYPE_CHECKING:
    from ..agreement._plain import PageAgreement

__all__ = ["TEMPLATE", "Cards", "Page", "write_html"]

_EXIT_WORD = {0: "PASSED", 1: "FAILED", 3: "INCONCLUSIVE"}


def _percentile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


def agreement_view(agreement: PageAgreement) -> dict[str, Any]:
    jurors = list(agreement.jurors)
    kappas = agreement.pairwise
    matrix = [
        [
            None
            if a == b
            else {
                "value": kappas[a][b].value,
                "text": estimate_text(kappas[a][b], interval=False),
                "title": kappas[a][b].reason or f"n = {kappas[a][b].units} cases",
            }
            for b in jurors
        ]
        for a in jurors
    ]
    return {"rows": agreement_rows(agreement), "jurors": jurors, "matrix": matrix}


class Cards:
    """The case cards of the page, built one at a time as the page is written (a card is
    parsed again from the records when it is reached, so the page never holds them all)."""

    def __init__(
        self,
        index: VerdictIndex,
        shown: Sequence[Entry],
        cases: Mapping[str, Case],
        errors: Mapping[Any, int],
        book: PromptBook,
    ) -> None:
        self.index, self.shown, self.cases, self.errors, self.book = (
            index,
            shown,
            cases,
            errors,
            book,
        )

    def __len__(self) -> int:
        return len(self.shown)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for position, entry in enumerate(self.shown):
            verdict = self.index.load(entry)
            case = self.cases.get(verdict.case_id)
            prompt = self.book.cases.get(verdict.case_id)
            view = case_view(
                verdict,
                case,
                errors=self.errors,
                prompt=prompt["anchor"] if prompt is not None else None,
                position=position,
            )
            # A strategy seat's link goes to the prompts its strategy made of the rubric's.
            seats = {w["name"]: w["anchor"] for w in prompt["strategies"]} if prompt else {}
            for vote in view["votes"]:
                vote["strategy"] = self.book.strategies.get(vote["juror"])
                if vote["strategy"] in seats:
                    vote["prompt"] = seats[vote["strategy"]]
            view["conversation"] = conversation_view(case, verdict)
            yield view


@dataclass(frozen=True, slots=True)
class Page:
    """What the report page says beyond the summary: gathered over every case."""

    agreement: PageAgreement
    error_groups: list[ErrorGroup]
    tradeoff: dict[str, Any] | None
    durations: list[float]
    #: Passing cases left off the page, and how many are shown at most.
    not_shown: int = 0
    limit: int | None = None


#: The report page's template (`prepare_template` compiles it before the page is written).
TEMPLATE = "report.html.j2"


def write_html(
    out: TextIO,
    summary: RunSummary,
    cards: Cards,
    page: Page,
    header: Any,
    gate: Gate,
    manifest: Mapping[str, Any],
    warnings: Sequence[str] = (),
) -> None:
    """The report page of a run, written to `out` as it is rendered; `warnings`, what the
    run warned of, near its top."""
    from markupsafe import Markup

    tradeoff = page.tradeoff
    if tradeoff is not None:
        tradeoff["svg"] = Markup(tradeoff["svg"])  # built from escaped text in _calibration
        tradeoff["errors"] = Markup(tradeoff.get("errors", ""))  # escaped in report._seats
    durations = sorted(page.durations)
    decided = summary.gate_outcome(gate)
    code = decided.code
    write_page(
        out,
        TEMPLATE,
        title=f"aiojury report · {manifest.get('run_id', '')}",
        manifest=manifest,
        header=header,
        summary=summary,
        gate=gate,
        outcome=_EXIT_WORD[code],
        exit_code=code,
        decided=decided,
        intervals={
            "heading": interval_heading(gate),
            "by_category": {
                n: bounds_text(c.interval(gate)) for n, c in summary.by_category.items()
            },
            "by_split": {n: bounds_text(c.interval(gate)) for n, c in summary.by_split.items()},
        },
        categories=summary.by_category,
        anchors={e.case_id: anchor("case", e.case_id) for e in cards.shown},
        cases=cards,
        prompt_cases=[{"id": e.case_id, "anchor": anchor("case", e.case_id)} for e in cards.shown],
        not_shown=page.not_shown,
        html_cases=page.limit,
        jurors=[name for name, stats in summary.jurors.items() if stats.votes],
        error_groups=page.error_groups,
        lost_jurors=[(name, juror_line(name, stats), stats) for name, stats in lost(summary)],
        family_lines=family_lines(summary),
        warnings=warnings,
        probability_lines=probability_lines(summary),
        agreement=agreement_view(page.agreement),
        resamples=RESAMPLES,
        book=cards.book,
        latency={
            "p50": _percentile(durations, 0.5),
            "p95": _percentile(durations, 0.95),
            "max": durations[-1] if durations else None,
        },
        cost=summary.cost,
        tradeoff=tradeoff,
        batch_line=batch_line(summary) if summary.calls.batched else None,
    )
