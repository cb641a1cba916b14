"""The HTML report: one self-contained file (inline CSS, no script, no external asset).

Every piece of case and judge text goes through Jinja2's autoescaping, and the page's
Content-Security-Policy forbids scripts and every network fetch, so an answer that contains
``<script>`` is shown as text and could not run even if it slipped through.

The agreement section comes from `jury.agreement`: alpha, Fleiss' kappa and percent agreement
per metric with bootstrap intervals, and a heatmap of Cohen's kappa between each pair of
jurors on their own pass/fail verdicts.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import TYPE_CHECKING, Any

from .._case import Case
from .._panel import Gate
from .._verdict import CaseVerdict, Verdict
from ._summary import RunSummary, batch_line

if TYPE_CHECKING:
    from ..agreement._ratings import Estimate

__all__ = ["render_html"]

#: Resamples for the report's agreement intervals: enough for two decimals, and cheap enough
#: on a large run (`jury agreement` takes more when asked).
REPORT_RESAMPLES = 200

_EXIT_WORD = {0: "PASSED", 1: "FAILED", 3: "INCONCLUSIVE"}


def _number(value: object) -> str:
    if isinstance(value, float):
        return f"{value:g}" if value.is_integer() else f"{value:.2f}"
    return "–" if value is None else str(value)


def _heat(value: float | None) -> str:
    """A background colour from red (agreement at or below chance, 0) to green (1)."""
    if value is None:
        return "#eee"
    return f"hsl({round(120 * min(1.0, max(0.0, value)))}, 70%, 80%)"


def _estimate(estimate: Estimate) -> dict[str, Any]:
    """An agreement statistic as the page shows it: the value with its interval, or why it
    is undefined (never a 1.0 or 0 standing in for "cannot be computed")."""
    if estimate.value is None:
        return {"value": None, "text": "undefined", "title": estimate.reason or ""}
    text = f"{estimate.value:.2f}"
    if estimate.low is not None and estimate.high is not None:
        text += f" [{estimate.low:.2f}, {estimate.high:.2f}]"
    return {"value": estimate.value, "text": text, "title": f"n = {estimate.units} cases"}


def _percentile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


def _case_view(verdict: CaseVerdict, case: Case | None) -> dict[str, Any]:
    dissenters = {d.juror for d in verdict.dissent}
    votes = [
        {
            "juror": vote.juror,
            "status": vote.status.value,
            "verdict": vote.verdict.value if vote.verdict else "",
            "scores": {name: _number(value) for name, value in vote.scores.items()},
            "reason": vote.reason or vote.error or "",
            "served_by": vote.served_by or "",
            "dissent": vote.juror in dissenters,
            "latency": f"{vote.calls.latency_s:.2f}s",
            "tokens": f"{vote.calls.input_tokens}/{vote.calls.output_tokens}",
            "offline": vote.offline,
            "batched": vote.calls.batched,
        }
        for vote in verdict.votes
    ]
    return {
        "id": verdict.case_id,
        "category": verdict.category or "",
        "verdict": verdict.verdict.value,
        "reasons": verdict.reasons,
        "metrics": {name: _number(result.value) for name, result in verdict.metrics.items()},
        "score": None if verdict.score is None else f"{verdict.score:.2f}",
        "votes": votes,
        "metric_names": sorted({name for vote in verdict.votes for name in vote.scores}),
        "checks": [
            {
                "name": c.name,
                "outcome": c.outcome.value,
                "reason": c.reason,
                "evidence": c.evidence or "",
                "stage": c.stage,
                "required": c.required,
            }
            for c in verdict.checks
        ],
        "spared": verdict.judges_spared,
        "disagreement": verdict.disagreement,
        "disagreement_reasons": verdict.disagreement_reasons,
        "dissent": [
            {"juror": d.juror, "verdict": d.verdict.value if d.verdict else "–", "reason": d.reason}
            for d in verdict.dissent
        ],
        "question": case.question if case else "",
        "answer": case.answer if case and case.answer is not None else "",
        "golden_answer": case.golden_answer if case and case.golden_answer else "",
        "duration": f"{verdict.duration_s:.2f}s",
    }


def render_html(
    summary: RunSummary,
    verdicts: Sequence[CaseVerdict],
    cases: Mapping[str, Case],
    header: Any,
    gate: Gate,
    manifest: Mapping[str, Any],
) -> str:
    """The report page for a run (verdicts in the order they are to be listed)."""
    import jinja2

    from ..agreement import summarize_agreement

    agreement = summarize_agreement(verdicts, bootstrap=REPORT_RESAMPLES)
    jurors = list(agreement.jurors)
    kappas = agreement.verdict.pairwise
    matrix = [[None if a == b else _estimate(kappas.get(a, b)) for b in jurors] for a in jurors]
    metrics = [
        {
            "name": name,
            "level": result.level,
            "alpha": _estimate(result.alpha),
            "fleiss": _estimate(result.fleiss_kappa),
            "percent": _estimate(result.percent_agreement),
        }
        for name, result in agreement.all().items()
    ]
    durations = sorted(v.duration_s for v in verdicts)
    code = summary.exit_code(gate)
    # Failed cases first, then inconclusive, then passed: the page opens on what to look at.
    order = {Verdict.FAIL: 0, Verdict.INCONCLUSIVE: 1, Verdict.PASS: 2}
    listed = sorted(verdicts, key=lambda v: (order[v.verdict], v.case_id))
    template = (resources.files("jury.report") / "templates" / "report.html.j2").read_text("utf-8")
    environment = jinja2.Environment(
        autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True
    )
    environment.filters["pct"] = lambda v: "–" if v is None else f"{v:.0%}"
    environment.filters["heat"] = _heat
    return environment.from_string(template).render(
        title=f"aiojury report · {manifest.get('run_id', '')}",
        manifest=manifest,
        header=header,
        summary=summary,
        gate=gate,
        outcome=_EXIT_WORD[code],
        exit_code=code,
        categories=summary.by_category,
        cases=[_case_view(v, cases.get(v.case_id)) for v in listed],
        jurors=jurors,
        matrix=matrix,
        agreement_metrics=metrics,
        resamples=REPORT_RESAMPLES,
        latency={
            "p50": _percentile(durations, 0.5),
            "p95": _percentile(durations, 0.95),
            "max": durations[-1] if durations else None,
        },
        cost=summary.cost,
        batch_line=batch_line(summary) if summary.calls.batched else None,
    )
