"""Builders for votes, verdicts and run directories used across the agreement tests."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from jury import CaseVerdict, Verdict, Vote, VoteStatus
from jury._verdict import Score


def vote(
    juror: str,
    status: VoteStatus = VoteStatus.VALID,
    verdict: Verdict | None = None,
    **scores: Score,
) -> Vote:
    return Vote(juror=juror, status=status, scores=dict(scores), verdict=verdict)


def case(case_id: str, *votes: Vote, verdict: Verdict = Verdict.PASS) -> CaseVerdict:
    return CaseVerdict(case_id=case_id, verdict=verdict, votes=votes)


def write_run(directory: Path, verdicts: Iterable[CaseVerdict], rubric: str | None = None) -> Path:
    """A run directory in the records format: verdicts.jsonl (+ manifest.json)."""
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / "verdicts.jsonl").open("w", encoding="utf-8") as handle:
        for verdict in verdicts:
            handle.write(verdict.model_dump_json() + "\n")
    if rubric is not None:
        (directory / "manifest.json").write_text(json.dumps({"rubric": rubric}))
    return directory
