"""Two recorded runs side by side (`jury report --compare A B`): one self-contained page.

It opens on the two runs' counts and the paired tests `jury compare` computes (the same
`compare_runs`), then every case with its verdict in A and in B, the cases that got worse
first, with filters (how the verdict changed, category), search and sort. In each case the
question comes first, then A's and B's answers, verdicts, reasons and votes side by side.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._verdict import CaseVerdict, Verdict
from ..cases._case import Case
from ..panel._panel import Gate
from ..runs._records import read_cases, read_verdicts, require_manifest
from ._agreement import manifest_rubric, rubric_metrics
from ._page import render_page
from ._summary import summarize
from ._views import anchor, confidence_view, number

__all__ = ["Comparison", "render_compare", "write_compare"]

_RANK = {Verdict.FAIL: 0, Verdict.INCONCLUSIVE: 1, Verdict.PASS: 2}
#: How a case's verdict moved from A to B, in the order the page lists them.
CHANGES = ("worse", "better", "only in A", "only in B", "same")


@dataclass(frozen=True, slots=True)
class Comparison:
    """What the page shows, in counts (for the terminal line and the tests)."""

    html: str
    changes: dict[str, int]


def _change(a: CaseVerdict | None, b: CaseVerdict | None) -> str:
    if a is None:
        return "only in B"
    if b is None:
        return "only in A"
    if _RANK[b.verdict] < _RANK[a.verdict]:
        return "worse"
    if _RANK[b.verdict] > _RANK[a.verdict]:
        return "better"
    return "same"


def _side(verdict: CaseVerdict | None, case: Case | None) -> dict[str, Any] | None:
    if verdict is None:
        return None
    return {
        "verdict": verdict.verdict.value,
        "reasons": verdict.reasons,
        "metrics": {name: number(result.value) for name, result in verdict.metrics.items()},
        "score": None if verdict.score is None else f"{verdict.score:.2f}",
        "answer": case.answer if case and case.answer is not None else "",
        "votes": [
            {
                "juror": vote.juror,
                "verdict": vote.verdict.value if vote.verdict else vote.status.value,
                "reason": vote.reason or vote.error or "",
                # How sure the juror was, formatted as the run's own report shows it.
                "confidence": confidence_view(vote),
            }
            for vote in verdict.votes
        ],
        "disagreement": verdict.disagreement,
    }


def _run(path: Path) -> tuple[dict[str, Any], dict[str, CaseVerdict], dict[str, Case]]:
    manifest = require_manifest(path)
    verdicts = {v.case_id: v for v in read_verdicts(path)}
    return manifest, verdicts, {case.id: case for case in read_cases(path)}


def _tests(
    a: Mapping[str, CaseVerdict], b: Mapping[str, CaseVerdict], manifest: Mapping[str, Any]
) -> list[Any]:
    from ..agreement._compare import compare_runs

    sample = next(iter(a.values()), None)
    metrics = rubric_metrics(manifest_rubric(manifest), [sample] if sample else [], False)
    levels = {m.name: m.level for m in metrics or ()}
    return list(compare_runs([a], [b], levels=levels).quantities)


def render_compare(run_a: Path, run_b: Path, warnings: Sequence[str] = ()) -> Comparison:
    """The page of two runs side by side; `warnings` (what the comparison stands on: other
    juries, FAKE replies, judge errors...) in a box above everything else."""
    manifest_a, verdicts_a, cases_a = _run(run_a)
    manifest_b, verdicts_b, cases_b = _run(run_b)
    moves = {
        case_id: _change(verdicts_a.get(case_id), verdicts_b.get(case_id))
        for case_id in verdicts_a.keys() | verdicts_b.keys()
    }
    # The cases that got worse first, then better, then in one run only, then the same.
    listed = sorted(moves, key=lambda case_id: (CHANGES.index(moves[case_id]), case_id))
    rows = []
    for position, case_id in enumerate(listed):
        a, b = verdicts_a.get(case_id), verdicts_b.get(case_id)
        either = a or b
        case = cases_a.get(case_id) or cases_b.get(case_id)
        rows.append(
            {
                "id": case_id,
                "anchor": anchor("case", case_id),
                "category": (either.category if either else None) or "(none)",
                "change": moves[case_id],
                "question": case.question if case else "",
                "golden_answer": case.golden_answer if case and case.golden_answer else "",
                "a": _side(a, cases_a.get(case_id)),
                "b": _side(b, cases_b.get(case_id)),
                "sort": {"order": position},
            }
        )
    changes = {name: sum(1 for row in rows if row["change"] == name) for name in CHANGES}
    sides = []
    for label, path, manifest, verdicts in (
        ("A", run_a, manifest_a, verdicts_a),
        ("B", run_b, manifest_b, verdicts_b),
    ):
        summary = summarize(verdicts.values())
        sides.append(
            {
                "label": label,
                "path": str(path),
                "manifest": manifest,
                "summary": summary,
                "interval": summary.pass_rate_interval(_gate(manifest)),
            }
        )
    html = render_page(
        "compare.html.j2",
        title=f"aiojury comparison · {run_a.name} vs {run_b.name}",
        sides=sides,
        rows=rows,
        changes=changes,
        categories=sorted({row["category"] for row in rows}),
        tests=_tests(verdicts_a, verdicts_b, manifest_a) if verdicts_a.keys() & verdicts_b else [],
        warnings=list(warnings),
    )
    return Comparison(html=html, changes=changes)


def write_compare(run_a: Path, run_b: Path, out: Path, warnings: Sequence[str] = ()) -> Comparison:
    """The comparison page of two runs, written to `out` whole or not at all."""
    from ..runs._records import write_atomic

    comparison = render_compare(run_a, run_b, warnings)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(out, comparison.html)
    return comparison


def _gate(manifest: Mapping[str, Any]) -> Gate:
    """The gate a run recorded (its interval and level), the default one when unreadable."""
    try:
        return Gate.model_validate(manifest.get("jury", {}).get("gate", {}))
    except ValueError:
        return Gate()
