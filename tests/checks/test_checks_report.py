"""The terminal report's checks: the compact cell, the failed stage, the summary lines, and no
secret printed whole even when a judge quotes one."""

from __future__ import annotations

import io

from rich.console import Console

from jury import CaseVerdict, CheckOutcome, CheckResult, Dissent, Verdict, summarize
from jury.report._terminal import CaseLine, ReportHeader, render_report

CARD = "4111111111111111"


def result(
    name: str, outcome: CheckOutcome, stage: str = "generation", required: bool = True
) -> CheckResult:
    return CheckResult(name=name, outcome=outcome, stage=stage, required=required)


def render(verdicts: list[CaseVerdict], checks: tuple[str, ...] | None) -> str:
    out = io.StringIO()
    header = ReportHeader(rubric="five-metric", jurors=["a/b"], offline_jurors=[], checks=checks)
    render_report(
        summarize(verdicts),
        header,
        Console(file=out, width=200),
        cases=[CaseLine.of(v) for v in verdicts],
    )
    return out.getvalue()


SPARED = CaseVerdict(
    case_id="spared",
    verdict=Verdict.FAIL,
    reasons=("check tool_choice failed: never called",),
    checks=(
        result("source", CheckOutcome.PASS, "retrieval"),
        result("tool_choice", CheckOutcome.FAIL, "tool choice"),
        result("[bold]mine[/bold]", CheckOutcome.FAIL, required=False),
        result("json_schema", CheckOutcome.NOT_APPLICABLE),
    ),
    judges_spared=True,
    calls_saved=6,
)
JUDGED = CaseVerdict(
    case_id="judged",
    verdict=Verdict.FAIL,
    reasons=(f"correctness 2 < 4: it reads out the card {CARD}",),
    checks=(result("source", CheckOutcome.PASS, "retrieval"),),
    disagreement=True,
    disagreement_reasons=("jurors split",),
    dissent=(Dissent(juror="a/b", verdict=Verdict.PASS, reason=f"the card {CARD} is right"),),
)


def test_case_line_is_compact() -> None:
    line = CaseLine.of(SPARED)
    # The first required failure by name, and how many more failed (all are listed below).
    assert line.checks == "✗ tool_choice +1"
    assert line.stage == "tool choice"
    assert line.spared
    assert CaseLine.of(JUDGED).stage == "generation"
    assert CaseLine.of(JUDGED).checks == "✓1"


def test_report_counts_spared_cases_and_saved_calls() -> None:
    advisory = CaseVerdict(
        case_id="advisory",
        verdict=Verdict.PASS,
        checks=(result("[bold]mine[/bold]", CheckOutcome.FAIL, required=False),),
    )
    text = render([SPARED, JUDGED, advisory], checks=("source", "tool_choice"))
    assert (
        "2 checks run first; a failed required check fails the case and spares its judges." in text
    )
    assert "! [bold]mine[/bold]" in text  # a name is shown, never read as markup
    assert "  spared  (failed at tool choice)" in text
    assert "Judges spared on 1 case(s) whose required checks failed: 6 judge call(s) saved." in text
    assert "Failed cases by the stage that failed first: tool choice 1, generation 1." in text
    assert "Checks failed on 2 case(s)." in text  # the advisory failure counts too


def test_a_card_quoted_by_a_judge_is_masked() -> None:
    text = render([JUDGED], checks=())
    assert CARD not in text
    assert text.count("[card ****1111 (16 digits)]") >= 2
    assert "Checks off: the judges alone decide." in text


def test_nothing_is_said_about_checks_the_report_was_not_told_of() -> None:
    text = render([JUDGED], checks=None)
    assert "Checks off" not in text
    assert "checks run first" not in text
