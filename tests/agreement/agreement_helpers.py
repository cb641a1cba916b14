"""Helpers for the agreement tests: votes, verdicts and run directories, and real runs with
the engine, the five-metric rubric and scripted jurors."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from jury import Case, CaseVerdict, Juror, Jury, Panel, Verdict, Vote, VoteStatus
from jury.adapters import JudgeRequest, Score
from jury.testing import ScriptedModel


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


METRICS = ("relevance", "correctness", "faithfulness", "helpfulness", "hallucinationFree")

#: A juror's script: (case ID, sample index) -> every metric's score, or None for garbage.
Script = Callable[[str, int], int | dict[str, int] | None]


def reply(score: int | dict[str, int] | None) -> Any:
    if score is None:
        return "I would rather not say."
    scores = score if isinstance(score, dict) else dict.fromkeys(METRICS, score)
    return {"reason": "scripted", **scores}


def juror(name: str, script: Script) -> Juror:
    def answer(request: JudgeRequest) -> Any:
        assert request.case is not None
        return reply(script(request.case.id, request.sample))

    return Juror(model=ScriptedModel(answer, name=f"scripted/{name}", family=name), name=name)


async def judge(
    cases: Sequence[str], jurors: Sequence[Juror], *, samples: int = 1, reasks: int = 0
) -> list[CaseVerdict]:
    panel = Panel(jurors=tuple(jurors), samples=samples, reasks=reasks, quorum=1)
    items = [Case(id=c, question="q?", answer="a.", golden_answer="a.") for c in cases]
    async with Jury(panel) as jury:
        verdicts = [v async for v in jury.evaluate(items)]
    return sorted(verdicts, key=lambda v: v.case_id)
