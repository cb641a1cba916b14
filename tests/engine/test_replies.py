"""Every judge reply is validated twice (schema, then rules); an invalid reply is re-asked a
bounded number of times, then kept verbatim as an invalid vote. Never clamped, never defaulted.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from conftest import case, scores
from jury import Juror, Jury, Panel, VoteStatus
from jury.adapters import InvalidReply, parse_reply
from jury.testing import ScriptedModel

VALID = json.dumps(scores(4))


def with_(**overrides: Any) -> str:
    return json.dumps(scores(4, **overrides))


def without(key: str) -> str:
    data = scores(4)
    del data[key]
    return json.dumps(data)


@pytest.mark.parametrize(
    ("reply", "status", "reason"),
    [
        (with_(relevance=7), VoteStatus.INVALID, "relevance: 7 is outside 1..5"),
        (with_(correctness=0), VoteStatus.INVALID, "correctness: 0 is outside 1..5"),
        (
            with_(faithfulness=4.5),
            VoteStatus.INVALID,
            "faithfulness: Input should be a valid integer",
        ),
        (
            with_(helpfulness="4"),
            VoteStatus.INVALID,
            "helpfulness: Input should be a valid integer",
        ),
        (
            with_(helpfulness=True),
            VoteStatus.INVALID,
            "helpfulness: Input should be a valid integer",
        ),
        (with_(relevance=None), VoteStatus.INVALID, "relevance: Input should be a valid integer"),
        (without("hallucinationFree"), VoteStatus.INVALID, "hallucinationFree: missing"),
        (without("reason"), VoteStatus.INVALID, "reason: missing"),
        (with_(reason="   "), VoteStatus.INVALID, "reason: empty"),
        ("The answer looks good, 5/5.", VoteStatus.INVALID, "not a JSON object"),
        ("[4, 4, 4, 4, 4]", VoteStatus.INVALID, "expected a JSON object, got an array"),
        ("{" + VALID[1:-1], VoteStatus.INVALID, "not valid JSON"),
        (f"```json\n{VALID}\n```", VoteStatus.VALID, None),
        (f"```\n{VALID}\n```", VoteStatus.VALID, None),
        (
            f"{VALID}\nActually, correctness should be 2.",
            VoteStatus.INVALID,
            "text after the JSON object",
        ),
        (f"Here are my scores: {VALID}", VoteStatus.INVALID, "not a JSON object"),
        (with_(extra_note="fine"), VoteStatus.VALID, None),
    ],
)
async def test_reply_rules(reply: str, status: VoteStatus, reason: str | None) -> None:
    model = ScriptedModel([reply])
    async with Jury(Panel(jurors=(Juror(model=model),), reasks=2)) as jury:
        verdict = await jury.judge(case())
    vote = verdict.votes[0]
    assert vote.status is status
    if status is VoteStatus.INVALID:
        assert vote.error is not None
        assert reason is not None
        assert reason in vote.error
        # Asked once, then re-asked twice; the offending reply is kept verbatim.
        assert model.calls == 3
        assert vote.calls.reasks == 2
        assert vote.calls.attempts == 3
        assert vote.raw == reply
        assert vote.scores == {}
    else:
        assert model.calls == 1
        assert vote.calls.reasks == 0
        assert vote.scores == dict.fromkeys(vote.scores, 4)
        assert len(vote.scores) == 5


async def test_a_reask_that_succeeds_gives_a_valid_vote() -> None:
    model = ScriptedModel([with_(relevance=7), VALID], cycle=False)
    async with Jury(Panel(jurors=(Juror(model=model),))) as jury:
        verdict = await jury.judge(case())
    vote = verdict.votes[0]
    assert vote.status is VoteStatus.VALID
    assert vote.calls.reasks == 1
    # The re-ask shows the judge its own reply and what was wrong with it.
    second = model.requests[1]
    assert [m.role for m in second.messages] == ["user", "assistant", "user"]
    assert second.messages[1].content == with_(relevance=7)
    assert "relevance: 7 is outside 1..5" in second.messages[2].content
    assert second.system == model.requests[0].system


@pytest.mark.parametrize("reasks", [0, 1, 3])
async def test_the_reask_bound_is_configurable(reasks: int) -> None:
    model = ScriptedModel(["garbage"])
    async with Jury(Panel(jurors=(Juror(model=model),), reasks=reasks)) as jury:
        verdict = await jury.judge(case())
    assert model.calls == reasks + 1
    assert verdict.votes[0].calls.reasks == reasks


async def test_an_enforced_schema_object_is_validated_too() -> None:
    from jury.adapters import JudgeReply

    model = ScriptedModel([JudgeReply(text="", model="m", parsed=scores(4, relevance=9))])
    async with Jury(Panel(jurors=(Juror(model=model),), reasks=0)) as jury:
        verdict = await jury.judge(case())
    assert verdict.votes[0].status is VoteStatus.INVALID
    assert "relevance: 9 is outside 1..5" in (verdict.votes[0].error or "")


def test_parse_reply_rule() -> None:
    assert parse_reply('  {"a": 1}  ') == {"a": 1}
    assert parse_reply('```JSON\n{"a": 1}\n```') == {"a": 1}
    for bad in ('{"a": 1}{"b": 2}', '{"a": 1} ok', "", "null", '```\n{"a": 1}\n``` more'):
        with pytest.raises(InvalidReply):
            parse_reply(bad)
