"""The HTML report: one self-contained file (inline CSS, no script, no external asset).

Every piece of case and judge text goes through Jinja2's autoescaping, and the page's
Content-Security-Policy forbids scripts and every network fetch, so an answer that contains
``<script>`` is shown as text and could not run even if it slipped through.

The agreement section is a pairwise percent agreement of the jurors' own pass/fail verdicts,
computed here; chance-corrected statistics belong to `jury.agreement`.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from itertools import combinations
from typing import Any

from ._case import Case
from ._panel import Gate
from ._summary import RunSummary
from ._verdict import CaseVerdict, Verdict, VoteStatus

__all__ = ["PairAgreement", "pairwise_agreement", "render_html"]

_EXIT_WORD = {0: "PASSED", 1: "FAILED", 3: "INCONCLUSIVE"}


@dataclass(frozen=True, slots=True)
class PairAgreement:
    """How often two jurors gave the same pass/fail verdict on the cases both voted on."""

    both: int
    same: int

    @property
    def rate(self) -> float | None:
        return self.same / self.both if self.both else None


def pairwise_agreement(
    verdicts: Sequence[CaseVerdict], jurors: Sequence[str]
) -> dict[tuple[str, str], PairAgreement]:
    """Percent agreement of each pair of jurors' own verdicts (PASS or FAIL) per case.

    A juror's vote counts only when it is valid and decided; anything else is a missing
    rating, never a disagreement.
    """
    counts = {pair: [0, 0] for pair in combinations(jurors, 2)}
    for verdict in verdicts:
        own = {
            v.juror: v.verdict
            for v in verdict.votes
            if v.status is VoteStatus.VALID and v.verdict in (Verdict.PASS, Verdict.FAIL)
        }
        for (a, b), count in counts.items():
            if a in own and b in own:
                count[0] += 1
                count[1] += own[a] is own[b]
    return {pair: PairAgreement(both, same) for pair, (both, same) in counts.items()}


def _number(value: object) -> str:
    if isinstance(value, float):
        return f"{value:g}" if value.is_integer() else f"{value:.2f}"
    return "–" if value is None else str(value)


def _heat(rate: float | None) -> str:
    """A background colour from red (0) through yellow to green (1)."""
    if rate is None:
        return "#eee"
    return f"hsl({round(120 * rate)}, 70%, 80%)"


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
            "latency": f"{vote.latency_s:.2f}s",
            "tokens": f"{vote.input_tokens}/{vote.output_tokens}",
            "offline": vote.offline,
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

    jurors = list(summary.jurors)
    pairs = pairwise_agreement(verdicts, jurors)
    matrix = [
        [
            (1.0, "") if a == b else _pair_cell(pairs.get((a, b)) or pairs.get((b, a)))
            for b in jurors
        ]
        for a in jurors
    ]
    rated = [p for p in pairs.values() if p.both]
    overall = sum(p.same for p in rated) / sum(p.both for p in rated) if rated else None
    durations = sorted(v.duration_s for v in verdicts)
    code = summary.exit_code(gate)
    # Failed cases first, then inconclusive, then passed: the page opens on what to look at.
    order = {Verdict.FAIL: 0, Verdict.INCONCLUSIVE: 1, Verdict.PASS: 2}
    listed = sorted(verdicts, key=lambda v: (order[v.verdict], v.case_id))
    template = (resources.files("jury") / "templates" / "report.html.j2").read_text("utf-8")
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
        overall=overall,
        latency={
            "p50": _percentile(durations, 0.5),
            "p95": _percentile(durations, 0.95),
            "max": durations[-1] if durations else None,
        },
        cost=summary.cost,
    )


def _pair_cell(pair: PairAgreement | None) -> tuple[float | None, str]:
    if pair is None or not pair.both:
        return None, "no case rated by both"
    return pair.rate, f"{pair.same} of {pair.both} cases"
