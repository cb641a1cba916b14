"""The terminal report: the juror table (counts, tokens with the cached part, cost), and
widths: no case ID cut into another, no cost or header cut, at any terminal width."""

from __future__ import annotations

import io
from typing import Any

import pytest
from rich.console import Console

from jury import CallStats, CaseVerdict, Verdict, Vote, VoteStatus, summarize
from jury.report._console import LOG_WIDTH, console_for
from jury.report._terminal import CaseLine, ReportHeader, distinct_cuts, render_report


def render(*votes: Vote) -> str:
    verdict = CaseVerdict(case_id="c", verdict=Verdict.PASS, votes=votes)
    out = io.StringIO()
    header = ReportHeader(rubric="five-metric", jurors=[v.juror for v in votes], offline_jurors=[])
    render_report(summarize([verdict]), header, Console(file=out, width=160))
    return out.getvalue()


def test_cached_tokens_and_cost_are_shown() -> None:
    text = render(
        Vote(
            juror="anthropic/claude-haiku-4-5-20251001",
            status=VoteStatus.VALID,
            calls=CallStats(
                attempts=1, input_tokens=1200, output_tokens=90, cached_tokens=800, cost=0.0021
            ),
        ),
        Vote(
            juror="openai/gpt-4.1-mini-2025-04-14",
            status=VoteStatus.UNAVAILABLE,
            calls=CallStats(attempts=4, cost=None),
        ),
    )
    assert "1,200/90 (800 cached)" in text
    assert "$0.0021" in text
    # The second juror's price is unknown: so is the run's cost, never a zero.
    assert "unknown" in text
    assert "cost unknown" in text


def _verdict(case_id: str, verdict: Verdict = Verdict.FAIL, cost: float | None = 0.0123) -> Any:
    calls = CallStats(attempts=1, input_tokens=1200, output_tokens=90, cost=cost)
    vote = Vote(juror="anthropic/claude-haiku-4-5-20251001", status=VoteStatus.VALID, calls=calls)
    return CaseVerdict(
        case_id=case_id,
        category="adversarial",
        verdict=verdict,
        reasons=("correctness 1 < 4: the answer grants an exception the policy forbids",),
        votes=(vote,),
    )


IDS = ["adversarial-override-01", "adversarial-override-02", "adversarial-injection-01"]


def _report(width: int, ids: list[str] = IDS) -> str:
    verdicts = [_verdict(case_id) for case_id in ids]
    out = io.StringIO()
    jurors = ["anthropic/claude-haiku-4-5-20251001"]
    header = ReportHeader(rubric="five-metric", jurors=jurors, offline_jurors=[])
    lines = [CaseLine.of(v) for v in verdicts]
    # A terminal this wide (without colour codes, to measure the lines).
    console = Console(file=out, width=width, force_terminal=True, color_system=None)
    render_report(summarize(verdicts), header, console, cases=lines)
    return out.getvalue()


@pytest.mark.parametrize("width", [200, 120, 90, 75, 60, 45, 30])
def test_no_width_cuts_a_case_id_into_another_nor_a_cost_nor_a_header(width: int) -> None:
    text = _report(width)
    assert all(len(line) <= width for line in text.splitlines())
    table = text[: text.index("Results by category")]
    # Each case is told apart: whole, or cut in the middle so that no two read the same.
    labels = [line.split()[0] for line in table.splitlines()[1:] if "FAIL" in line]
    assert len(labels) == len(IDS) == len(set(labels))
    for label, case_id in zip(labels, IDS, strict=True):
        head, _, tail = label.partition("…")
        assert case_id.startswith(head)
        assert case_id.endswith(tail)
    if width >= 75:
        assert labels == IDS  # room enough: the IDs whole
    # Costs, token counts and column headers are never cut.
    assert text.count("$0.0369") == 2  # the juror's three votes, and the run in the gate's line
    assert "3,600/270" in text
    assert "…" not in text[text.index("Results by category") :].replace("Gate", "")
    for header in ("verdict", "checks", "scores", "inconclusive", "unavailable", "cost"):
        assert not any(f"{header[:cut]}…" in text for cut in range(1, len(header)))


@pytest.mark.parametrize("width", [120, 45])
def test_off_a_terminal_the_last_line_is_the_whole_gate_line(width: int) -> None:
    verdicts = [_verdict(case_id) for case_id in IDS]
    out = io.StringIO()
    header = ReportHeader(rubric="five-metric", jurors=["j"], offline_jurors=[])
    render_report(summarize(verdicts), header, Console(file=out, width=width))
    last = out.getvalue().rstrip().splitlines()[-1]
    assert last.startswith("Gate FAILED  0 passed, 3 failed")
    assert "pass rate 0.0% (95% Wilson 0.0–56.1%) (required 100%)" in last
    assert last.endswith("cost $0.0369  ·  exit 1")


def test_distinct_cuts_widen_until_no_two_ids_read_the_same() -> None:
    cuts = distinct_cuts(["run-a-0001", "run-b-0001", "run-a-0002"], 5)
    assert len(set(cuts.values())) == 3
    assert all(len(label) <= len(case_id) for case_id, label in cuts.items())
    assert distinct_cuts(["short", "other"], 3) == {"short": "short", "other": "other"}


def test_the_console_is_as_wide_as_columns_says(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "77")
    assert console_for(io.StringIO()).width == 77
    monkeypatch.delenv("COLUMNS")
    # Off a terminal (pytest captures stderr and stdin too) and without COLUMNS: a log's width.
    assert console_for(io.StringIO()).width == LOG_WIDTH
