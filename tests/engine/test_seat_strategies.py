"""The vote layer with strategies: each seat is sent its strategy's prompts, what it writes
before its verdict is checked, re-asked when missing, kept with its vote, cached like any
reply and counted in its tokens; a third party's strategy works the same way."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from conftest import case
from jury import Juror, Jury, Panel, VoteStatus
from jury.adapters import JudgeReply, JudgeRequest, Strategy, _strategy, register_strategy
from jury.testing import ScriptedModel, valid_reply

PAIRWISE = case(answer="Yes, within 30 days.", answer_b="No.")


def writes_everything(request: JudgeRequest) -> dict[str, Any]:
    reply = valid_reply(request.schema)
    for name in ("questions", "own_answer", "reasoning"):
        if name in reply:
            reply[name] = f"{name} for {request.prompt}"
    return reply


def judge(panel: Panel, *cases: Any, **options: Any) -> list[Any]:
    async def run() -> list[Any]:
        async with Jury(panel, checks=None, **options) as jury:
            return [await jury.judge(c) for c in cases]

    return asyncio.run(run())


def test_two_seats_of_one_model_are_sent_different_prompts_and_keep_what_they_wrote() -> None:
    model = ScriptedModel(writes_everything)
    panel = Panel(jurors=(Juror(model=model), Juror(model=model, strategy="metrics_reference")))
    (verdict,) = judge(panel, case())
    plain, strategic = model.requests
    assert plain.system != strategic.system
    assert list((strategic.schema or {})["properties"])[:2] == ["questions", "own_answer"]
    assert "questions" not in (plain.schema or {})["properties"]
    by_seat = {vote.juror: vote for vote in verdict.votes}
    assert by_seat["scripted/judge"].generated == {}
    assert by_seat["scripted/judge+metrics_reference"].generated == {
        "questions": "questions for answer",
        "own_answer": "own_answer for answer",
    }
    # The same reply carries what the strategy wrote: its tokens are counted with the vote.
    assert (
        by_seat["scripted/judge+metrics_reference"].calls.output_tokens
        > by_seat["scripted/judge"].calls.output_tokens
    )


def test_a_pairwise_seat_keeps_what_it_wrote_in_each_order() -> None:
    model = ScriptedModel(writes_everything)
    panel = Panel(rubric="pairwise-preference", jurors=(Juror(model=model, strategy="cot"),))
    (verdict,) = judge(panel, PAIRWISE)
    (vote,) = verdict.votes
    assert vote.status is VoteStatus.VALID
    assert vote.generated == {
        "AB.reasoning": "reasoning for AB",
        "BA.reasoning": "reasoning for BA",
    }


def test_a_reply_without_the_strategys_field_is_asked_again_naming_it() -> None:
    replies: list[dict[str, Any]] = []

    def forgets_once(request: JudgeRequest) -> dict[str, Any]:
        reply = writes_everything(request)
        if not replies:
            del reply["reasoning"]
        replies.append(reply)
        return reply

    model = ScriptedModel(forgets_once)
    (verdict,) = judge(Panel(jurors=(Juror(model=model, strategy="cot"),)), case())
    (vote,) = verdict.votes
    assert vote.status is VoteStatus.VALID
    assert vote.calls.reasks == 1
    assert "reasoning: missing" in model.requests[1].messages[-1].content
    assert vote.generated == {"reasoning": "reasoning for answer"}


def test_a_seat_that_never_writes_its_field_casts_an_invalid_vote() -> None:
    model = ScriptedModel(lambda request: valid_reply(request.schema) | {"questions": ""})
    (verdict,) = judge(Panel(jurors=(Juror(model=model, strategy="metrics"),), reasks=1), case())
    (vote,) = verdict.votes
    assert vote.status is VoteStatus.INVALID
    assert vote.error == "questions: empty"


def test_a_cached_reply_gives_back_what_the_strategy_wrote() -> None:
    class Memory:
        def __init__(self) -> None:
            self.store: dict[str, JudgeReply] = {}

        async def get(self, key: str) -> JudgeReply | None:
            return self.store.get(key)

        async def put(self, key: str, model: str, request: JudgeRequest, reply: JudgeReply) -> None:
            self.store[key] = reply

    model = ScriptedModel(writes_everything)
    panel = Panel(jurors=(Juror(model=model), Juror(model=model, strategy="reference")))
    memory = Memory()
    first, second = judge(panel, case(), case(), cache=memory)
    assert model.calls == 2  # one per seat: the two seats' requests are not the same call
    assert len(memory.store) == 2
    assert second.votes[1].calls.cache_hits == 1
    assert (
        second.votes[1].generated
        == first.votes[1].generated
        == {"own_answer": "own_answer for answer"}
    )


def test_a_third_partys_strategy_is_registered_from_public_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Registered for this test only.
    _strategy._strategies()
    monkeypatch.setattr(_strategy, "_STRATEGIES", dict(_strategy._STRATEGIES))
    register_strategy(
        Strategy(
            name="devil",
            instructions="Argue against the answer before you score it.",
            fields={"objection": "the strongest objection to the answer"},
            source="a test",
        )
    )
    model = ScriptedModel(
        lambda request: valid_reply(request.schema) | {"objection": "it is too short"}
    )
    (verdict,) = judge(Panel(jurors=(Juror(model=model, strategy="devil"),)), case())
    (vote,) = verdict.votes
    assert vote.juror == "scripted/judge+devil"
    assert vote.generated == {"objection": "it is too short"}
    assert "Argue against the answer before you score it." in model.requests[0].system
