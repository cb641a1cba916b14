"""The pairwise kind: both orders for every juror, abstention on position bias, position
consistency, what a pass means, and invalid replies."""

from __future__ import annotations

import re
from typing import Any

import pytest

from jury import Case, Juror, Jury, Panel, RubricError, Verdict, VoteStatus
from jury.adapters import JudgeRequest
from jury.rubrics import position_consistency
from jury.rubrics._pairwise import PairwiseRubric, from_toml
from jury.testing import ScriptedModel

GOOD = "ORD-102 was delivered 20 days ago, so it can still be returned."
WEAK = "Probably, but check the policy."


def pairwise(**overrides: Any) -> PairwiseRubric:
    return from_toml({"kind": "pairwise", "name": "pair", **overrides}, "test")


def pair_case(a: str = GOOD, b: str = WEAK, **fields: Any) -> Case:
    data: dict[str, Any] = {"id": "p1", "question": "Can I return ORD-102?", "answer": a}
    data["answer_b"] = b
    data.update(fields)
    return Case.model_validate(data)


def shown(request: JudgeRequest, position: int) -> str:
    match = re.search(
        rf"<answer_{position}-(\w+)>\n(.*?)\n</answer_{position}-\1>", request.user, re.S
    )
    assert match is not None
    return match.group(2)


def prefers(text: str) -> Any:
    """A judge that picks whichever answer is `text`, wherever it is shown: consistent."""

    def judge(request: JudgeRequest) -> dict[str, str]:
        return {"reason": "r", "winner": "1" if shown(request, 1) == text else "2"}

    return judge


def first(_: JudgeRequest) -> dict[str, str]:
    """A judge that always picks the answer shown first: pure position bias."""
    return {"reason": "first is best", "winner": "1"}


async def judge(
    case: Case, *judges: Any, rubric: PairwiseRubric | None = None, **settings: Any
) -> Any:
    models = [ScriptedModel(j, name=f"scripted/j{i}") for i, j in enumerate(judges)]
    panel = Panel(jurors=tuple(Juror(model=m) for m in models), **settings)
    async with Jury(panel, rubric=rubric or pairwise()) as jury:
        return await jury.judge(case), models


def test_two_prompts_show_the_answers_in_both_orders() -> None:
    ab, ba = pairwise().prompts(pair_case())
    assert (ab.key, ba.key) == ("AB", "BA")
    assert ab.system == ba.system
    for prompt, first_shown, second_shown in ((ab, GOOD, WEAK), (ba, WEAK, GOOD)):
        assert prompt.user.index(first_shown) < prompt.user.index(second_shown)
    assert ab.schema["properties"]["winner"]["enum"] == ["1", "2", "tie"]
    no_tie = pairwise(allow_tie=False).prompts(pair_case())[0]
    assert no_tie.schema["properties"]["winner"]["enum"] == ["1", "2"]
    assert '"tie"' not in no_tie.system


def test_a_case_without_answer_b_cannot_be_judged() -> None:
    with pytest.raises(ValueError, match="needs both answer"):
        pairwise().prompts(pair_case(b=None))  # type: ignore[arg-type]


async def test_a_consistent_juror_votes_for_the_same_answer_in_both_orders() -> None:
    result, (model,) = await judge(pair_case(), prefers(GOOD), quorum=1)
    assert [r.prompt for r in model.requests] == ["AB", "BA"]
    # AB: the good answer is shown first ("1"); BA: shown second ("2"). Both mean A.
    assert shown(model.requests[0], 1) == GOOD
    assert shown(model.requests[1], 1) == WEAK
    (vote,) = result.votes
    assert vote.status is VoteStatus.VALID
    assert vote.scores == {"winner": "A"}
    assert vote.details["ballots"] == {"AB": {"winner": "A"}, "BA": {"winner": "A"}}
    assert vote.details["position_consistent"] is True
    assert result.verdict is Verdict.PASS
    assert result.reasons == ("A is better",)
    result, _ = await judge(pair_case(), prefers(WEAK), quorum=1)
    assert result.verdict is Verdict.FAIL
    assert result.reasons == ("B is better; a pass needs A or a tie",)


async def test_a_juror_whose_orders_disagree_abstains() -> None:
    result, (model,) = await judge(pair_case(), first, quorum=1)
    (vote,) = result.votes
    assert model.calls == 2
    assert vote.status is VoteStatus.ABSTAINED
    assert "position bias" in vote.reason
    assert "with A shown first it chose A, with B shown first B" in vote.reason
    # The two verdicts behind the abstention are kept, for position consistency.
    assert vote.details["ballots"] == {"AB": {"winner": "A"}, "BA": {"winner": "B"}}
    assert result.verdict is Verdict.INCONCLUSIVE
    assert "quorum not met" in result.reasons[0]


async def test_the_panel_decides_among_the_jurors_that_did_not_abstain() -> None:
    result, _ = await judge(pair_case(), prefers(GOOD), first, prefers(GOOD), quorum=2)
    assert result.verdict is Verdict.PASS
    statuses = {v.juror: v.status for v in result.votes}
    assert statuses["scripted/j1"] is VoteStatus.ABSTAINED
    consistency = position_consistency([result])
    assert consistency["scripted/j0"].rate == 1.0
    assert consistency["scripted/j1"].rate == 0.0
    assert consistency["scripted/j1"].judged == 1
    # Two of three abstaining leaves the default quorum of two unmet.
    result, _ = await judge(pair_case(), prefers(GOOD), first, first)
    assert result.verdict is Verdict.INCONCLUSIVE


async def test_position_consistency_over_many_cases_ignores_invalid_votes() -> None:
    cases = [pair_case(), pair_case(a=WEAK, b=GOOD).model_copy(update={"id": "p2"})]
    sometimes = ScriptedModel(
        [{"reason": "r", "winner": "1"}, {"reason": "r", "winner": "2"}], name="scripted/half"
    )
    broken = ScriptedModel(["not json"], name="scripted/broken")
    panel = Panel(jurors=(Juror(model=sometimes), Juror(model=broken)), quorum=1, reasks=0)
    async with Jury(panel, rubric=pairwise()) as jury:
        verdicts = [await jury.judge(c) for c in cases]
    result = position_consistency(verdicts)
    assert set(result) == {"scripted/half"}  # invalid votes say nothing about order
    assert (result["scripted/half"].consistent, result["scripted/half"].judged) == (2, 2)


@pytest.mark.parametrize(
    ("pass_when", "winner_text", "verdict"),
    [
        (["A", "tie"], None, Verdict.PASS),
        (["A"], None, Verdict.FAIL),
        (["B"], WEAK, Verdict.PASS),
        (["B"], GOOD, Verdict.FAIL),
    ],
)
async def test_pass_when_says_which_winners_pass(
    pass_when: list[str], winner_text: str | None, verdict: Verdict
) -> None:
    def tie(_: JudgeRequest) -> dict[str, str]:
        return {"reason": "same", "winner": "tie"}

    chooser = tie if winner_text is None else prefers(winner_text)
    result, _ = await judge(pair_case(), chooser, rubric=pairwise(pass_when=pass_when), quorum=1)
    assert result.verdict is verdict


@pytest.mark.parametrize(
    ("ties", "pass_when", "verdict", "value"),
    [
        ("inconclusive", ["A", "tie"], Verdict.INCONCLUSIVE, None),
        ("fail", ["A", "tie"], Verdict.FAIL, "B"),
        ("pass", ["A", "tie"], Verdict.PASS, "A"),
        # Worst and best are relative to the gate: with B passing, "fail" settles on A.
        ("fail", ["B"], Verdict.FAIL, "A"),
    ],
)
async def test_a_split_panel_follows_the_tie_policy(
    ties: str, pass_when: list[str], verdict: Verdict, value: str | None
) -> None:
    rubric = pairwise(pass_when=pass_when)
    result, _ = await judge(pair_case(), prefers(GOOD), prefers(WEAK), rubric=rubric, ties=ties)
    assert result.metrics["winner"].value == value
    assert result.verdict is verdict


async def test_a_split_between_a_and_tie_still_passes_by_default() -> None:
    def tie(_: JudgeRequest) -> dict[str, str]:
        return {"reason": "same", "winner": "tie"}

    result, _ = await judge(pair_case(), prefers(GOOD), tie)
    assert result.metrics["winner"].value is None
    assert result.verdict is Verdict.PASS


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ({"reason": "r", "winner": "A"}, "winner: Input should be '1', '2' or 'tie'"),
        ({"reason": "r", "winner": 1}, "winner: Input should be '1', '2' or 'tie'"),
        ({"reason": "r"}, "winner: missing"),
        ({"winner": "1"}, "reason: missing"),
        ({"reason": "", "winner": "1"}, "reason: String should have at least 1 character"),
        ("Answer 1 is better.", "not a JSON object"),
    ],
)
async def test_invalid_replies_are_reasked_then_recorded_invalid(bad: Any, reason: str) -> None:
    result, (model,) = await judge(pair_case(), [bad], reasks=2, quorum=1)
    (vote,) = result.votes
    assert vote.status is VoteStatus.INVALID
    assert vote.error is not None
    assert reason in vote.error
    assert model.calls == 3  # the first order, asked three times; the second never asked
    assert vote.calls.reasks == 2


async def test_a_tie_where_ties_are_not_allowed_is_invalid() -> None:
    tie = {"reason": "same", "winner": "tie"}
    result, (model,) = await judge(
        pair_case(),
        [tie, tie, {"reason": "r", "winner": "1"}, {"reason": "r", "winner": "2"}],
        rubric=pairwise(allow_tie=False, pass_when=["A"]),
        reasks=2,
        quorum=1,
    )
    (vote,) = result.votes
    assert vote.status is VoteStatus.VALID
    assert vote.calls.reasks == 2
    assert 'winner: "tie" is not allowed' in model.requests[1].messages[-1].content
    assert result.verdict is Verdict.PASS


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"pass_when": ["C"]}, 'test: pass_when[0]: "C" is not one of A, B, tie'),
        ({"pass_when": []}, "test: pass_when: needs at least 1 item(s)"),
        ({"pass_when": ["A", "A"]}, "a winner is listed twice"),
        ({"allow_ties": True}, "test: allow_ties: unknown key"),
    ],
)
def test_a_bad_pairwise_file_names_the_key(change: dict[str, Any], message: str) -> None:
    with pytest.raises(RubricError) as info:
        pairwise(**change)
    assert message in str(info.value)
