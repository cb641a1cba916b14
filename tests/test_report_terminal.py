"""The terminal report's juror table: counts, tokens with the cached part, and cost."""

from __future__ import annotations

import io

from rich.console import Console

from jury import CallStats, CaseVerdict, Verdict, Vote, VoteStatus, summarize
from jury.report._terminal import ReportHeader, render_report


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
