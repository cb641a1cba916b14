"""Reading run directories, and the plain progress lines for CI logs."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from conftest import case
from jury import CallStats, CaseVerdict, Verdict, Vote, VoteStatus
from jury._errors import RunRecordError
from jury.report._progress import RunProgress
from jury.runs._records import (
    Redactor,
    RunRecord,
    read_cases,
    read_verdicts,
)


def verdict(
    case_id: str,
    outcome: Verdict = Verdict.PASS,
    status: VoteStatus = VoteStatus.VALID,
    reason: str = "",
    scores: dict[str, Any] | None = None,
    **calls: Any,
) -> CaseVerdict:
    stats = CallStats(**{"attempts": 1, **calls})
    vote = Vote(juror="j", status=status, calls=stats, reason=reason, scores=scores or {})
    votes = (vote,)
    return CaseVerdict(case_id=case_id, verdict=outcome, votes=votes)


def record(tmp_path: Path) -> RunRecord:
    manifest = {"format": 1, "run_id": "r"}
    return RunRecord.create(tmp_path / "r", manifest, [case("a"), case("b")], Redactor())


def test_verdicts_round_trip_and_a_torn_tail_is_dropped(tmp_path: Path) -> None:
    with record(tmp_path) as run:
        run.append(verdict("a"))
        run.append(verdict("b", Verdict.FAIL))
    path = tmp_path / "r" / "verdicts.jsonl"
    assert [v.case_id for v in read_verdicts(tmp_path / "r")] == ["a", "b"]
    # A crash in the middle of a line: readers skip it, and resuming cuts it off.
    path.write_bytes(path.read_bytes() + b'{"case_id": "c", "verd')
    assert [v.case_id for v in read_verdicts(tmp_path / "r")] == ["a", "b"]
    with RunRecord.resume(tmp_path / "r", Redactor()) as run:
        assert run.finished() == {"a", "b"}
        run.append(verdict("c"))
    assert [v.case_id for v in read_verdicts(tmp_path / "r")] == ["a", "b", "c"]
    assert [c.id for c in read_cases(tmp_path / "r")] == ["a", "b"]


def test_a_bad_line_is_named(tmp_path: Path) -> None:
    with record(tmp_path) as run:
        run.append(verdict("a"))
    path = tmp_path / "r" / "verdicts.jsonl"
    path.write_bytes(path.read_bytes() + b'{"case_id": "b", "verdict": "MAYBE"}\n')
    with pytest.raises(RunRecordError, match=r"verdicts.jsonl: 1 bad line\n  line 2: verdict"):
        read_verdicts(tmp_path / "r")


def test_a_directory_holding_a_run_is_not_overwritten(tmp_path: Path) -> None:
    record(tmp_path).close()
    with pytest.raises(RunRecordError, match="already holds a run"):
        record(tmp_path)
    with pytest.raises(RunRecordError, match="No such file"):
        read_verdicts(tmp_path)
    with pytest.raises(RunRecordError, match="not a run directory"):
        RunRecord.resume(tmp_path, Redactor())


def test_redaction_keeps_identifiers_and_scores(tmp_path: Path) -> None:
    redactor = Redactor([r"\d+"], env={})
    line = redactor.json_line(verdict("case-42", reason="refund of 120 dollars", scores={"x": 5}))
    assert b'"case_id":"case-42"' in line
    assert b'"reason":"refund of [redacted] dollars"' in line
    assert b'"scores":{"x":5}' in line
    with pytest.raises(Exception, match="not a valid pattern"):
        Redactor(["("])


def test_plain_progress_lines_are_periodic_and_log_safe() -> None:
    now = [0.0]
    stream = io.StringIO()
    with RunProgress(
        4, done=1, mode="auto", stream=stream, interval=10, clock=lambda: now[0]
    ) as progress:
        assert progress.mode == "plain"  # a StringIO is no terminal
        now[0] = 5.0
        progress.add(verdict("b", input_tokens=100, output_tokens=10, cost=0.25))
        now[0] = 12.0
        progress.add(
            verdict("c", Verdict.INCONCLUSIVE, status=VoteStatus.UNAVAILABLE, attempts=4, cost=None)
        )
        now[0] = 13.0
        progress.add(verdict("d", cache_hits=1, attempts=0))
    lines = stream.getvalue().splitlines()
    # One line when the interval passed, one at the end; nothing a CI log could garble.
    assert len(lines) == 2
    assert "\r" not in stream.getvalue()
    assert "\x1b" not in stream.getvalue()
    assert lines[0].startswith("jury: 3/4 cases (75%)")
    assert "calls 5 (cached 0)" in lines[0]
    assert "ETA" in lines[0]
    assert "errors: unavailable 1" in lines[0]
    assert "cost ?" in lines[0]  # one call had no known price
    assert lines[1].startswith("jury: 4/4 cases (100%)")
    assert "calls 5 (cached 1)" in lines[1]
    assert "tokens 100/10" in lines[1]
