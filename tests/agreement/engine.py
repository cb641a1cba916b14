"""Real runs for the agreement tests: the engine, the five-metric rubric and scripted jurors."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from jury import Case, CaseVerdict, JudgeRequest, Juror, Jury, Panel
from providers.scripted import ScriptedModel

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
