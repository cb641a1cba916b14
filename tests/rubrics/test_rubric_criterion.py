"""The criterion kind: pass / fail with reasoning, refute inverts, a missing pass is invalid."""

from __future__ import annotations

import json
from typing import Any

import pytest

from jury import Case, Juror, Jury, Panel, RubricError, Verdict, VoteStatus, load_rubric
from jury.rubrics._criterion import CriterionRubric, from_toml
from jury.testing import ScriptedModel

BASE: dict[str, Any] = {
    "kind": "criterion",
    "name": "states-price",
    "criterion": "The answer states a specific price.",
}


def criterion(**overrides: Any) -> CriterionRubric:
    return from_toml({**BASE, **overrides}, "test")


def a_case(**fields: Any) -> Case:
    data: dict[str, Any] = {
        "id": "c1",
        "question": "How much is shipping?",
        "answer": "Shipping is $4.99 on orders under $50.",
        "golden_answer": "A flat $4.99 under $50; free above.",
    }
    data.update(fields)
    return Case.model_validate(data)


async def judge(rubric: CriterionRubric, *replies: Any, **settings: Any) -> Any:
    models = [
        ScriptedModel(r if isinstance(r, list) else [r], name=f"scripted/j{i}")
        for i, r in enumerate(replies)
    ]
    panel = Panel(jurors=tuple(Juror(model=m) for m in models), **settings)
    async with Jury(panel, rubric=rubric) as jury:
        return await jury.judge(a_case()), models


def test_schema_and_prompt() -> None:
    (prompt,) = criterion().prompts(a_case())
    assert prompt.schema["required"] == ["reason", "pass"]
    assert prompt.schema["properties"]["pass"] == {"type": "boolean"}
    assert "The criterion:\nThe answer states a specific price." in prompt.system
    # The criterion is static: it is in the system text, the case in the user text.
    assert "$4.99 on orders" not in prompt.system
    assert "$4.99 on orders" in prompt.user
    # The judge is never told about refute: it only sees the positive criterion.
    assert criterion(refute=True).prompts(a_case())[0].system == prompt.system


@pytest.mark.parametrize(
    ("refute", "holds", "verdict"),
    [
        (False, True, Verdict.PASS),
        (False, False, Verdict.FAIL),
        (True, True, Verdict.FAIL),
        (True, False, Verdict.PASS),
    ],
)
async def test_refute_inverts_the_verdict(refute: bool, holds: bool, verdict: Verdict) -> None:
    result, _ = await judge(criterion(refute=refute), {"reason": "it says $4.99", "pass": holds})
    assert result.verdict is verdict
    (vote,) = result.votes
    assert vote.details == {"criterion_met": holds, "refute": refute}
    assert vote.reason == "it says $4.99"
    if verdict is Verdict.FAIL:
        why = "refutes it" if refute else "does not meet the criterion"
        assert why in result.reasons[0]


async def test_jurors_vote_on_the_verdict_by_majority() -> None:
    yes, no = {"reason": "r", "pass": True}, {"reason": "r", "pass": False}
    result, _ = await judge(criterion(), yes, no, yes)
    assert result.verdict is Verdict.PASS
    assert result.metrics["pass"].value is True
    assert result.disagreement
    assert [d.juror for d in result.dissent] == ["scripted/j1"]
    # With refute, the same replies fail the case: the votes are on the verdict.
    result, _ = await judge(criterion(refute=True), yes, no, yes)
    assert result.verdict is Verdict.FAIL


@pytest.mark.parametrize(
    ("ties", "verdict"),
    [("inconclusive", Verdict.INCONCLUSIVE), ("fail", Verdict.FAIL), ("pass", Verdict.PASS)],
)
async def test_an_even_split_follows_the_tie_policy(ties: str, verdict: Verdict) -> None:
    yes, no = {"reason": "r", "pass": True}, {"reason": "r", "pass": False}
    result, _ = await judge(criterion(), yes, no, ties=ties)
    assert result.verdict is verdict


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ({"reason": "looks fine"}, "pass: missing"),
        ({"reason": "r", "pass": "true"}, "pass: Input should be a valid boolean"),
        ({"reason": "r", "pass": 1}, "pass: Input should be a valid boolean"),
        ({"reason": "r", "pass": None}, "pass: Input should be a valid boolean"),
        ({"reason": "r", "passed": True}, "pass: missing"),
        ({"pass": True}, "reason: missing"),
        ({"reason": " ", "pass": True}, "reason: empty"),
        ('{"reason": "r", "pass": true, "pass": false}', "pass: given twice"),
        ("PASS", "not a JSON object"),
    ],
)
async def test_a_missing_or_malformed_pass_is_invalid_never_false(bad: Any, reason: str) -> None:
    result, (model,) = await judge(criterion(), bad, reasks=1)
    (vote,) = result.votes
    assert vote.status is VoteStatus.INVALID
    assert vote.error is not None
    assert reason in vote.error
    assert model.calls == 2
    assert vote.calls.reasks == 1
    assert vote.scores == {}
    assert result.verdict is Verdict.INCONCLUSIVE


def test_the_builtin_criterion_loads_by_name_and_takes_no_thresholds() -> None:
    rubric = load_rubric("grounded-answer")
    assert rubric.kind == "criterion"
    with pytest.raises(RubricError, match="criterion rubrics take no thresholds"):
        load_rubric("grounded-answer", {"*": 3})


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"criterion": ""}, "test: criterion: must not be empty"),
        ({"refute": "yes"}, 'test: refute: expected true or false, got "yes"'),
        ({"critera": "x"}, "test: critera: unknown key (did you mean 'criterion'?)"),
    ],
)
def test_a_bad_criterion_file_names_the_key(change: dict[str, Any], message: str) -> None:
    with pytest.raises(RubricError) as info:
        from_toml({**BASE, **change}, "test")
    assert message in str(info.value)


def test_missing_criterion_is_named() -> None:
    data = dict(BASE)
    del data["criterion"]
    with pytest.raises(RubricError, match="test: criterion: missing"):
        from_toml(data, "test")


def test_fingerprint_changes_with_the_criterion_and_refute() -> None:
    prints = {
        criterion().fingerprint(),
        criterion(refute=True).fingerprint(),
        criterion(criterion="The answer states a date.").fingerprint(),
    }
    assert len(prints) == 3
    assert criterion().fingerprint() == criterion().fingerprint()


def test_the_reply_text_for_a_valid_vote_is_kept() -> None:
    # Sanity of the helper used by other tests: a valid JSON text parses to the same ballot.
    rubric = criterion()
    (prompt,) = rubric.prompts(a_case())
    ballot = rubric.read(a_case(), prompt, json.loads('{"reason": "r", "pass": false}'))
    assert ballot.scores == {"pass": False}
