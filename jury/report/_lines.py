"""What the terminal report is made from, without the terminal: the header and the per-case
lines a run's publishing gathers. Kept apart from `_terminal` so that a run that prints
nothing never imports rich (issue 36: the report code only when it prints)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .._verdict import CaseVerdict, CheckOutcome, CheckResult, Verdict

__all__ = ["CaseLine", "ReportHeader", "fake_line", "offline_line"]


def offline_line(jurors: Sequence[str]) -> str:
    """What the terminal and JUnit say of offline reference jurors (the page says it too)."""
    return (
        f"OFFLINE reference jurors ({', '.join(jurors)}): deterministic heuristics, not LLM judges."
    )


def fake_line(jurors: Sequence[str]) -> str:
    """What the terminal says of jurors answered by `jury.testing`'s fake (the page too)."""
    return (
        f"FAKE replies ({', '.join(jurors)}): answered by jury.testing's fake provider server, "
        "not by real judges; priced $0."
    )


@dataclass(frozen=True, slots=True)
class ReportHeader:
    rubric: str
    jurors: Sequence[str]
    offline_jurors: Sequence[str]
    #: The checks run before the judges: empty when they were turned off, None when the
    #: report does not know (nothing is said about them).
    checks: Sequence[str] | None = None
    judge_all: bool = False
    #: Tell how to get real judges: only when the panel was the default one (no jury file).
    offline_hint: bool = False
    #: Jurors (and model checks) some of whose replies came from `jury.testing`'s fake.
    fake_jurors: Sequence[str] = ()


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


def _number(value: object) -> str:
    if isinstance(value, float):
        return f"{value:g}" if value.is_integer() else f"{value:.2f}".rstrip("0")
    return "?" if value is None else str(value)
