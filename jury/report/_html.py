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
from collections.abc import Mapping, Sequence
from typing import Any

from .._case import Case
from .._panel import Gate
from .._verdict import CaseVerdict
from ._agreement import (
    RESAMPLES,
    agreement_rows,
    estimate_text,
    manifest_rubric,
    rubric_metrics,
    run_agreement,
)
from ._conversation import conversation_view
from ._page import render_page
from ._prompts import prompt_book
from ._summary import RunSummary, batch_line
from ._views import VERDICT_ORDER, anchor, case_view, error_groups

__all__ = ["render_html"]

_EXIT_WORD = {0: "PASSED", 1: "FAILED", 3: "INCONCLUSIVE"}


def _percentile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


def _agreement(verdicts: Sequence[CaseVerdict], manifest: Mapping[str, Any]) -> dict[str, Any]:
    # In case order, as `jury agreement` reads them: the bootstrap resamples cases.
    verdicts = sorted(verdicts, key=lambda verdict: verdict.case_id)
    metrics = rubric_metrics(manifest_rubric(manifest), verdicts, required=False)
    summary = run_agreement(verdicts, metrics)
    jurors = list(summary.jurors)
    kappas = summary.verdict.pairwise
    matrix = [
        [
            None
            if a == b
            else {
                "value": kappas.get(a, b).value,
                "text": estimate_text(kappas.get(a, b), interval=False),
                "title": kappas.get(a, b).reason or f"n = {kappas.get(a, b).units} cases",
            }
            for b in jurors
        ]
        for a in jurors
    ]
    return {"rows": agreement_rows(summary), "jurors": jurors, "matrix": matrix}


def render_html(
    summary: RunSummary,
    verdicts: Sequence[CaseVerdict],
    cases: Mapping[str, Case],
    header: Any,
    gate: Gate,
    manifest: Mapping[str, Any],
) -> str:
    """The report page of a run."""
    from markupsafe import Markup

    from ._calibration import run_tradeoff

    tradeoff = run_tradeoff(verdicts, cases)
    if tradeoff is not None:
        tradeoff["svg"] = Markup(tradeoff["svg"])  # built from escaped text in _calibration
    durations = sorted(v.duration_s for v in verdicts)
    code = summary.exit_code(gate)
    listed = sorted(verdicts, key=lambda v: (VERDICT_ORDER[v.verdict], v.case_id))
    groups, vote_errors = error_groups(listed)
    book = prompt_book(manifest, (cases[v.case_id] for v in listed if v.case_id in cases))
    views = [
        case_view(
            verdict,
            cases.get(verdict.case_id),
            errors=vote_errors,
            prompt=book.cases[verdict.case_id]["anchor"] if verdict.case_id in book.cases else None,
            position=position,
        )
        for position, verdict in enumerate(listed)
    ]
    for view, verdict in zip(views, listed, strict=True):
        view["conversation"] = conversation_view(cases.get(verdict.case_id), verdict)
    return render_page(
        "report.html.j2",
        title=f"aiojury report · {manifest.get('run_id', '')}",
        manifest=manifest,
        header=header,
        summary=summary,
        gate=gate,
        outcome=_EXIT_WORD[code],
        exit_code=code,
        categories=summary.by_category,
        anchors={v.case_id: anchor("case", v.case_id) for v in verdicts},
        cases=views,
        jurors=sorted({vote.juror for v in verdicts for vote in v.votes}),
        error_groups=groups,
        agreement=_agreement(verdicts, manifest),
        resamples=RESAMPLES,
        book=book,
        latency={
            "p50": _percentile(durations, 0.5),
            "p95": _percentile(durations, 0.95),
            "max": durations[-1] if durations else None,
        },
        cost=summary.cost,
        tradeoff=tradeoff,
        batch_line=batch_line(summary) if summary.calls.batched else None,
    )
