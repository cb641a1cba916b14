"""A rubric's scope: a conversation judged at its end, or each assistant reply in turn, with
the panel's votes aggregated turn by turn and the turns combined by one stated rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import METRICS, scores
from jury import Case, Juror, Jury, Panel, RubricError, Verdict, load_rubric
from jury.adapters import JudgeRequest
from jury.testing import ScriptedModel

ROOT = Path(__file__).parents[2]


def rubric_file(tmp_path: Path, builtin: str, scope: str) -> str:
    text = (ROOT / "rubrics" / "builtin" / f"{builtin}.toml").read_text()
    path = tmp_path / f"{builtin}-{scope}.toml"
    path.write_text(f'scope = "{scope}"\n{text}')
    return str(path)


def chat() -> Case:
    return Case.model_validate(
        {
            "id": "chat",
            "golden_answer": "Booked for Saturday: BK-2.",
            "messages": [
                {"role": "user", "content": "Book a table for Friday."},
                {"role": "assistant", "content": "Which time on Friday?"},
                {"role": "user", "content": "7pm. Actually, make it Saturday."},
                {
                    "role": "assistant",
                    "tool_calls": [{"name": "book", "arguments": {"day": "Sat"}, "result": "BK-2"}],
                },
                {"role": "assistant", "content": "Booked for Saturday at 7pm: BK-2."},
            ],
        }
    )


def by_turn(low: dict[str, int]) -> Any:
    """A juror scoring 5 everywhere but in the turns of `low` (prompt key -> score)."""

    def reply(request: JudgeRequest) -> dict[str, Any]:
        return scores(low.get(request.prompt.split("/")[0], 5), reason=request.prompt)

    return reply


def test_turn_scope_asks_one_prompt_per_reply_and_names_metrics_by_turn(tmp_path: Path) -> None:
    rubric = load_rubric(rubric_file(tmp_path, "five-metric", "turn"))
    case = chat()
    assert [p.key for p in rubric.prompts(case)] == ["turn2/answer", "turn5/answer"]
    assert [m.name for m in rubric.metrics(case)] == [
        *(f"turn2.{m}" for m in METRICS),
        *(f"turn5.{m}" for m in METRICS),
    ]
    first, last = rubric.prompts(case)
    # A turn is judged as if the conversation ended there: no golden answer for a step, the
    # turns before it shown, nothing after it.
    assert "golden_answer" not in first.user
    assert "Which time on Friday?" in first.user.split("<answer-")[1]
    assert "Saturday" not in first.user
    assert "Booked for Saturday: BK-2." in last.user
    assert "<conversation-" in last.user
    assert "Which time on Friday?" in last.user


async def test_a_conversation_fails_when_any_turn_fails_and_says_which(tmp_path: Path) -> None:
    rubric = load_rubric(rubric_file(tmp_path, "five-metric", "turn"))
    jurors = [ScriptedModel(by_turn({"turn2": 2}), name=f"scripted/j{i}") for i in range(3)]
    async with Jury(Panel(jurors=tuple(Juror(model=m) for m in jurors)), rubric=rubric) as jury:
        verdict = await jury.judge(chat())
    assert verdict.verdict is Verdict.FAIL
    assert verdict.reasons[0].startswith("turn 2: relevance 2 < 4")
    assert all(len(m.requests) == 2 for m in jurors)
    assert verdict.metrics["turn5.correctness"].value == 5
    assert "turn 2: turn2/answer" in verdict.votes[0].reason


async def test_votes_are_aggregated_turn_by_turn_before_the_rule(tmp_path: Path) -> None:
    rubric = load_rubric(rubric_file(tmp_path, "five-metric", "turn"))
    # One juror in three dislikes each turn: every turn's median passes.
    jurors = [
        ScriptedModel(by_turn({"turn2": 1}), name="scripted/a"),
        ScriptedModel(by_turn({"turn5": 1}), name="scripted/b"),
        ScriptedModel(by_turn({}), name="scripted/c"),
    ]
    async with Jury(Panel(jurors=tuple(Juror(model=m) for m in jurors)), rubric=rubric) as jury:
        verdict = await jury.judge(chat())
    assert verdict.verdict is Verdict.PASS
    # Each juror's own verdict fails on the turn it disliked.
    assert [v.verdict for v in verdict.votes] == [Verdict.FAIL, Verdict.FAIL, Verdict.PASS]


async def test_a_split_turn_leaves_the_conversation_inconclusive(tmp_path: Path) -> None:
    rubric = load_rubric(rubric_file(tmp_path, "grounded-answer", "turn"))

    def holds(request: JudgeRequest) -> dict[str, Any]:
        return {"reason": "r", "pass": not request.prompt.startswith("turn2")}

    jurors = [
        ScriptedModel(holds, name="scripted/a"),
        ScriptedModel([{"reason": "r", "pass": True}], name="scripted/b"),
    ]
    async with Jury(Panel(jurors=tuple(Juror(model=m) for m in jurors)), rubric=rubric) as jury:
        verdict = await jury.judge(chat())
    assert verdict.verdict is Verdict.INCONCLUSIVE
    assert verdict.reasons == ("turn 2: jurors split evenly on the criterion",)


async def test_offline_jurors_judge_each_turn_as_its_own_case(tmp_path: Path) -> None:
    rubric = load_rubric(rubric_file(tmp_path, "five-metric", "turn"))
    panel = Panel(jurors=(Juror(model="offline/evidence"),))
    async with Jury(panel, rubric=rubric, checks=None) as jury:
        verdict = await jury.judge(chat())
    (vote,) = verdict.votes
    assert vote.status.value == "valid"
    assert set(vote.scores) == {m.name for m in rubric.metrics(chat())}
    # The last reply's date and booking are in what the user said and the tool returned.
    assert vote.scores["turn5.hallucinationFree"] == 5


def test_a_single_answer_under_turn_scope_is_judged_as_it_is(tmp_path: Path) -> None:
    rubric = load_rubric(rubric_file(tmp_path, "five-metric", "turn"))
    case = Case(id="one", question="Q?", answer="A.")
    assert [m.name for m in rubric.metrics(case)] == list(METRICS)
    assert [p.key for p in rubric.prompts(case)] == ["answer/answer"]


def test_conversation_scope_is_the_default_and_judges_the_last_reply(tmp_path: Path) -> None:
    explicit = load_rubric(rubric_file(tmp_path, "five-metric", "conversation"))
    default = load_rubric("five-metric")
    assert [p.user for p in explicit.prompts(chat())] == [p.user for p in default.prompts(chat())]
    assert explicit.fingerprint() == default.fingerprint()
    turned = load_rubric(rubric_file(tmp_path, "five-metric", "turn"))
    assert turned.fingerprint() != default.fingerprint()


@pytest.mark.parametrize(
    ("builtin", "scope", "says"),
    [
        ("shopnest-points", "turn", "a points rubric judges a whole answer, not each turn"),
        ("pairwise-preference", "turn", "a pairwise rubric judges a whole answer"),
        ("five-metric", "each", "scope: expected one of conversation, turn, got 'each'"),
    ],
)
def test_a_scope_that_cannot_work_is_refused(
    tmp_path: Path, builtin: str, scope: str, says: str
) -> None:
    with pytest.raises(RubricError, match=says):
        load_rubric(rubric_file(tmp_path, builtin, scope))
