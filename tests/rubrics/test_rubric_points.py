"""The points kind: schema, per-point votes, the deterministic score, the quote check and
every invalid reply (re-asked through the engine)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from jury import Case, Juror, Jury, Panel, RubricError, Verdict, VoteStatus, load_rubric
from jury.adapters import JudgeRequest
from jury.rubrics._points import PointsRubric, from_toml, quote_occurs
from jury.testing import ScriptedModel

ANSWER = "Yes. ORD-102 was delivered 20 days ago,\nwithin the 30-day return window."

# The seed article's shape: two musts, three optionals, two shared points, one penalty.
RUBRIC: dict[str, Any] = {
    "kind": "points",
    "name": "test-points",
    "threshold": 0.7,
    "shared": [
        {"id": "S2", "says": "Names the order the question is about."},
        {"id": "S4", "says": "Reaches a conclusion."},
    ],
}


def points_case(**fields: Any) -> Case:
    data: dict[str, Any] = {
        "id": "c1",
        "question": "Can I still return ORD-102?",
        "answer": ANSWER,
        "golden_answer": "Yes, ORD-102 is within the window.",
        "points": [
            {"id": "c1.1", "need": "must", "says": "Concludes that ORD-102 can be returned."},
            {"id": "c1.2", "need": "must", "says": "States the delivery was 20 days ago."},
            {"id": "c1.3", "need": "optional", "says": "Names the 30-day window."},
            {"id": "c1.4", "need": "optional", "says": "Mentions the refund method."},
            {"id": "c1.5", "need": "optional", "says": "Mentions the return label."},
        ],
        "shared": ["S2", "S4"],
        "penalties": [{"id": "c1.x1", "says": "Says the return window has closed."}],
    }
    data.update(fields)
    return Case.model_validate(data)


def rubric(**overrides: Any) -> PointsRubric:
    return from_toml({**RUBRIC, **overrides}, "test")


def reply(answers: dict[str, str], quote: str = "ORD-102 was delivered") -> dict[str, Any]:
    """A points reply: short ID -> verdict; every "yes" quotes `quote`."""
    return {
        "points": {
            short: {
                "verdict": verdict,
                "quotes": [quote] if verdict == "yes" else [],
                "reason": f"point {short}",
            }
            for short, verdict in answers.items()
        }
    }


def all_(verdict: str, **others: str) -> dict[str, str]:
    """Every one of the case's eight points answered `verdict`, with exceptions by ID."""
    answers = dict.fromkeys(("1", "2", "3", "4", "5", "6", "7", "8"), verdict)
    answers.update({k.lstrip("_"): v for k, v in others.items()})
    return answers


async def judge(
    case: Case, *replies: Any, rubric_: PointsRubric | None = None, **settings: Any
) -> Any:
    models = [
        ScriptedModel([r] if not isinstance(r, list) else r, name=f"scripted/j{i}")
        for i, r in enumerate(replies)
    ]
    panel = Panel(jurors=tuple(Juror(model=m) for m in models), **settings)
    async with Jury(panel, rubric=rubric_ or rubric()) as jury:
        return await jury.judge(case), models


def test_the_schema_has_one_required_property_per_point_with_its_statement() -> None:
    case = points_case()
    (prompt,) = rubric().prompts(case)
    points = prompt.schema["properties"]["points"]
    assert list(points["properties"]) == ["1", "2", "3", "4", "5", "6", "7", "8"]
    assert points["required"] == list(points["properties"])
    assert points["additionalProperties"] is False
    assert points["properties"]["6"]["description"] == "Names the order the question is about."
    assert points["properties"]["8"]["description"] == "Says the return window has closed."
    answer = points["properties"]["1"]
    assert answer["properties"]["verdict"]["enum"] == ["yes", "no", "cant_tell"]
    # The judge sees short IDs and statements, never the needs or weights.
    assert "1: Concludes that ORD-102 can be returned." in prompt.user
    assert "must" not in prompt.user
    assert "penalty" not in prompt.user.lower()


def test_metrics_are_nominal_points_ordered_worst_to_best() -> None:
    metrics = {m.name: m for m in rubric().metrics(points_case())}
    assert metrics["c1.1"].level == "nominal"
    assert metrics["c1.1"].values == ("no", "cant_tell", "yes")
    # For a penalty "yes" is the worst answer: a tie settled as "fail" applies it.
    assert metrics["c1.x1"].values == ("yes", "cant_tell", "no")
    assert set(metrics) == {"c1.1", "c1.2", "c1.3", "c1.4", "c1.5", "S2", "S4", "c1.x1"}


@pytest.mark.parametrize(
    ("answers", "score", "verdict"),
    [
        # The seed article's arithmetic: both musts and both shared points, no optionals.
        (all_("no", _1="yes", _2="yes", _6="yes", _7="yes"), 8 / 11, Verdict.PASS),
        # ... and the penalty's wrong thing said too.
        (all_("no", _1="yes", _2="yes", _6="yes", _7="yes", _8="yes"), 5 / 11, Verdict.FAIL),
        (all_("yes", _8="no"), 1.0, Verdict.PASS),
        # Strict: a missed must fails the case even with a score above the threshold.
        (all_("yes", _2="no", _8="no"), 8 / 11, Verdict.FAIL),
        # Penalties subtract below zero: the score is not clamped.
        (all_("no", _8="yes"), -3 / 11, Verdict.FAIL),
        # "cant_tell" earns nothing, and a penalty judged cant_tell does not apply.
        (all_("yes", _3="cant_tell", _8="cant_tell"), 10 / 11, Verdict.PASS),
    ],
)
async def test_the_score_is_earned_over_total_with_penalties_subtracted(
    answers: dict[str, str], score: float, verdict: Verdict
) -> None:
    result, _ = await judge(points_case(), reply(answers))
    assert result.score == pytest.approx(score)
    assert result.verdict is verdict


async def test_a_failed_case_names_the_missed_must_points_and_the_penalty() -> None:
    result, _ = await judge(points_case(), reply(all_("yes", _2="no")))
    assert result.verdict is Verdict.FAIL
    assert "must point c1.2 not met: States the delivery was 20 days ago." in result.reasons
    assert "penalty c1.x1 applies: Says the return window has closed." in result.reasons


async def test_weights_and_threshold_are_overridable() -> None:
    heavy = rubric(weights={"must": 5, "penalty": -1}, threshold=0.9, strict=False)
    answers = all_("yes", _2="no", _8="no")
    result, _ = await judge(points_case(), reply(answers), rubric_=heavy)
    # musts 5+5, optionals 3, shared 2: 15 in all; one must missed.
    assert result.score == pytest.approx(10 / 15)
    assert result.verdict is Verdict.FAIL  # 0.67 < 0.9, even though strict is off
    lenient = heavy.with_thresholds({"score": 0.6})
    result, _ = await judge(points_case(), reply(answers), rubric_=lenient)
    assert result.verdict is Verdict.PASS
    # A point's own weight wins over the rubric's.
    case = points_case(
        points=[
            {"id": "p1", "need": "must", "says": "One.", "weight": 1},
            {"id": "p2", "need": "optional", "says": "Two.", "weight": 9},
        ],
        shared=[],
        penalties=[],
    )
    result, _ = await judge(case, reply({"1": "no", "2": "yes"}), rubric_=rubric(strict=False))
    assert result.score == pytest.approx(0.9)


def test_thresholds_from_the_panel_and_unknown_threshold_names() -> None:
    loaded = load_rubric("shopnest-points", {"*": 0.5})
    assert isinstance(loaded, PointsRubric)
    assert loaded.spec.threshold == 0.5
    with pytest.raises(RubricError, match="one threshold, 'score'"):
        load_rubric("shopnest-points", {"correctness": 3})


async def test_jurors_vote_per_point_and_the_score_follows_the_majorities() -> None:
    # Each juror alone would pass (8/11 and up), but they miss different musts: per point
    # the majority meets both, so the panel's score is higher than any juror's.
    a = reply(all_("yes", _1="no", _8="no"))
    b = reply(all_("yes", _2="no", _8="no"))
    c = reply(all_("yes", _8="no"))
    result, _ = await judge(points_case(), a, b, c)
    assert result.metrics["c1.1"].value == "yes"
    assert result.metrics["c1.2"].value == "yes"
    assert result.score == pytest.approx(1.0)
    assert result.verdict is Verdict.PASS
    juror_verdicts = {v.juror: v.verdict for v in result.votes}
    assert juror_verdicts["scripted/j0"] is Verdict.FAIL
    assert juror_verdicts["scripted/j1"] is Verdict.FAIL
    assert result.disagreement


@pytest.mark.parametrize(
    ("ties", "verdict", "value"),
    [("inconclusive", Verdict.INCONCLUSIVE, None), ("fail", Verdict.FAIL, "no")],
)
async def test_a_tie_on_a_must_point_follows_the_tie_policy(
    ties: str, verdict: Verdict, value: str | None
) -> None:
    a = reply(all_("yes", _8="no"))
    b = reply(all_("yes", _1="no", _8="no"))
    result, _ = await judge(points_case(), a, b, ties=ties, quorum=2)
    assert result.metrics["c1.1"].value == value
    assert result.verdict is verdict
    if ties == "inconclusive":
        assert "jurors split on c1.1" in result.reasons[0]


async def test_a_tie_that_cannot_change_the_verdict_still_decides() -> None:
    a = reply(all_("yes", _8="no"))
    b = reply(all_("yes", _3="no", _8="no"))
    result, _ = await judge(points_case(), a, b, quorum=2)
    assert result.verdict is Verdict.PASS
    assert result.score is None  # 10/11 or 11/11: the panel did not settle it
    assert any("jurors split on c1.3" in r for r in result.reasons)


async def test_a_tied_penalty_settled_as_fail_applies() -> None:
    a = reply(all_("yes", _8="no"))
    b = reply(all_("yes", _8="yes"))
    result, _ = await judge(points_case(), a, b, ties="fail", quorum=2)
    assert result.metrics["c1.x1"].value == "yes"
    assert result.score == pytest.approx(8 / 11)


def test_quote_occurs_ignores_whitespace_only() -> None:
    assert quote_occurs("ORD-102 was   delivered 20 days ago, within", ANSWER)
    assert quote_occurs(" within the 30-day\treturn window. ", ANSWER)
    assert not quote_occurs("ORD-102 was delivered 21 days ago", ANSWER)
    assert not quote_occurs("ord-102 was delivered", ANSWER)  # exact words, exact case
    assert not quote_occurs("   ", ANSWER)


async def test_a_yes_whose_quote_is_not_in_the_answer_is_downgraded_and_flagged() -> None:
    data = reply(all_("yes", _8="no"))
    data["points"]["1"]["quotes"] = ["ORD-102 can be returned at any time"]
    data["points"]["2"]["quotes"] = []
    data["points"]["3"]["quotes"] = ["ORD-102  was\ndelivered 20 days ago,"]  # whitespace only
    result, _ = await judge(points_case(), data)
    (vote,) = result.votes
    assert vote.status is VoteStatus.VALID
    assert vote.scores["c1.1"] == "cant_tell"
    assert vote.scores["c1.2"] == "cant_tell"
    assert vote.scores["c1.3"] == "yes"
    assert vote.details["downgraded"] == {
        "c1.1": "quote not in the answer: 'ORD-102 can be returned at any time'",
        "c1.2": "a yes without a quote",
    }
    # What the judge said is kept beside what was counted.
    assert vote.details["points"]["c1.1"]["verdict"] == "yes"
    assert "counted as cant_tell" in vote.reason
    assert result.verdict is Verdict.FAIL  # both musts lost


async def test_a_penalty_yes_needs_its_quote_too() -> None:
    data = reply(all_("yes", _8="yes"))
    data["points"]["8"]["quotes"] = ["the return window has closed"]
    result, _ = await judge(points_case(), data)
    assert result.votes[0].scores["c1.x1"] == "cant_tell"
    assert result.score == pytest.approx(1.0)


def _without(short: str) -> dict[str, Any]:
    data = reply(all_("yes"))
    del data["points"][short]
    return data


def _with(short: str, **fields: Any) -> dict[str, Any]:
    data = reply(all_("yes"))
    data["points"][short] = {**data["points"][short], **fields}
    return data


def _extra() -> dict[str, Any]:
    data = reply(all_("yes"))
    data["points"]["9"] = {"verdict": "no", "quotes": [], "reason": "r"}
    return data


def _twice() -> str:
    text = json.dumps(reply(all_("yes")))
    one = '"1": {"verdict": "no", "quotes": [], "reason": "again"}'
    return text.replace('"points": {', '"points": {' + one + ", ", 1)


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (_without("3"), "points.3: missing"),
        (_extra(), "points.9: no such point (the IDs are 1, 2, 3, 4, 5, 6, 7, 8)"),
        (_twice(), "1: given twice"),
        (_with("2", verdict="can't tell"), "points.2.verdict: Input should be 'yes', 'no'"),
        (_with("2", verdict="YES"), "points.2.verdict"),
        (_with("2", quotes="ORD-102"), "points.2.quotes: Input should be a valid list"),
        (_with("2", reason="  "), "points.2.reason: empty"),
        ({"points": [{"id": "1", "verdict": "yes"}]}, "points: Input should be a valid dict"),
        ({"verdicts": {}}, "points: missing"),
        ("Point 1: yes. Point 2: yes.", "not a JSON object"),
    ],
)
async def test_every_invalid_reply_is_reasked_then_recorded_invalid(bad: Any, reason: str) -> None:
    result, (model,) = await judge(points_case(), bad, reasks=2)
    (vote,) = result.votes
    assert vote.status is VoteStatus.INVALID
    assert vote.error is not None
    assert reason in vote.error
    assert model.calls == 3  # the first ask and two re-asks
    assert vote.calls.reasks == 2
    assert vote.raw == (bad if isinstance(bad, str) else json.dumps(bad))
    # The re-ask tells the judge what was wrong.
    assert reason.split(":", maxsplit=1)[0] in model.requests[1].messages[-1].content
    assert result.verdict is Verdict.INCONCLUSIVE


async def test_a_reask_that_succeeds_gives_a_valid_vote() -> None:
    result, (model,) = await judge(points_case(), [_without("1"), reply(all_("yes"))], reasks=2)
    assert result.votes[0].status is VoteStatus.VALID
    assert result.votes[0].calls.reasks == 1
    assert model.calls == 2


async def test_shared_points_come_from_the_rubric_by_id() -> None:
    case = points_case(shared=["S4", {"id": "own", "says": "A shared point of its own."}])
    (prompt,) = rubric().prompts(case)
    assert "6: Reaches a conclusion." in prompt.user
    assert "7: A shared point of its own." in prompt.user
    result, _ = await judge(case, reply(all_("yes", _8="no")))
    assert set(result.metrics) >= {"S4", "own"}


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"shared": ["S9"]}, "shared point 'S9' is not defined by the rubric (S2, S4)"),
        ({"points": [], "shared": [], "penalties": []}, "the case has no points"),
        ({"points": [], "shared": []}, "only penalties"),
        (
            {"points": [{"id": "S2", "says": "Clash."}]},
            "point id S2 is used twice",
        ),
        ({"penalties": [{"id": "x", "says": "Bad.", "weight": 2}]}, "weight 2 must be below 0"),
        ({"answer": None}, "the case has no answer to judge"),
    ],
)
async def test_a_case_the_rubric_cannot_judge_is_inconclusive_unasked(
    fields: dict[str, Any], why: str
) -> None:
    model = ScriptedModel([reply(all_("yes"))])
    async with Jury(Panel(jurors=(Juror(model=model),)), rubric=rubric(), checks=None) as jury:
        result = await jury.judge(points_case(**fields))
    assert result.verdict is Verdict.INCONCLUSIVE
    assert why in result.reasons[0]
    assert model.calls == 0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"treshold": 0.5}, "test: treshold: unknown key"),
        ({"weights": {"penalty": 3}}, "test: weights.penalty: must be less than 0, got 3"),
        ({"weights": {"must": 0}}, "test: weights.must: must be more than 0, got 0"),
        ({"shared": [{"id": "S1"}]}, "test: shared[0].says: missing"),
        ({"name": "has space"}, 'test: name: "has space" does not match the pattern'),
        (
            {"shared": [{"id": "S1", "says": "a"}, {"id": "S1", "says": "b"}]},
            "test: shared: two shared points have the same id",
        ),
    ],
)
def test_a_bad_rubric_file_names_the_key(change: dict[str, Any], message: str) -> None:
    with pytest.raises(RubricError) as info:
        from_toml({**RUBRIC, **change}, "test")
    assert message in str(info.value)


async def test_the_reply_reaches_the_judge_with_the_schema_and_no_identity() -> None:
    seen: list[JudgeRequest] = []

    def judge_(request: JudgeRequest) -> Any:
        seen.append(request)
        return reply(all_("yes", _8="no"))

    model = ScriptedModel(judge_, name="scripted/secret-judge-name")
    case = points_case(metadata={"agent_model": "gpt-agent-9000"})
    async with Jury(Panel(jurors=(Juror(model=model),)), rubric=rubric()) as jury:
        await jury.judge(case)
    (request,) = seen
    assert request.schema["properties"]["points"]["required"] == [str(i) for i in range(1, 9)]
    sent = request.system + request.user
    assert "secret-judge-name" not in sent
    assert "gpt-agent-9000" not in sent
