"""The manual's seats are real: its jury file seats one model twice under two names, and its
"A strategy of your own" example registers a strategy that a seat then judges with."""

from __future__ import annotations

import asyncio
import re
import tomllib
from typing import Any

import pytest
from test_examples import block

from jury import Case, Juror, Jury, Panel, VoteStatus
from jury.adapters import JudgeRequest, _strategy
from jury.panel._panel import panel_from_mapping
from jury.panel._warnings import panel_warnings
from jury.testing import ScriptedModel, valid_reply


def test_the_seats_example_seats_one_model_twice_under_two_names() -> None:
    seats = block("jury-files.md", "## Seats: a model and a strategy", "toml")
    panel = panel_from_mapping(tomllib.loads(seats))
    assert [j.id for j in panel.jurors] == [
        "openai/gpt-5.4-mini-2026-03-17",
        "openai/gpt-5.4-mini-2026-03-17+metrics_reference",
        "anthropic/claude-haiku-5-5+rules",
    ]
    family = [w for w in panel_warnings(panel) if "family" in w]
    assert family == [
        "jurors openai/gpt-5.4-mini-2026-03-17, openai/gpt-5.4-mini-2026-03-17+metrics_reference "
        "(seats of one model, openai/gpt-5.4-mini-2026-03-17) are all of the openai family: ways "
        "of judging of one model share its blind spots; a jury's strength is jurors from "
        "different families"
    ]


def test_the_strategy_example_registers_a_strategy_a_seat_judges_with(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The example registers a strategy: only for this test.
    _strategy._strategies()
    monkeypatch.setattr(_strategy, "_STRATEGIES", dict(_strategy._STRATEGIES))
    snippet = block("extending.md", "## A strategy of your own", "python")
    assert set(re.findall(r"^(?:from|import) (jury\S*)", snippet, re.M)) == {"jury.adapters"}
    exec(compile(snippet, "docs/extending.md", "exec"), {})

    def judge(request: JudgeRequest) -> dict[str, Any]:
        return valid_reply(request.schema) | {"objection": "the window is 30 days, not 20"}

    model = ScriptedModel(judge)
    panel = Panel(jurors=(Juror(model=model, strategy="devils_advocate"),))

    async def run() -> Any:
        async with Jury(panel, checks=None) as jury:
            return await jury.judge(Case(id="c1", question="Return?", answer="Yes."))

    (vote,) = asyncio.run(run()).votes
    assert vote.status is VoteStatus.VALID
    assert vote.juror == "scripted/judge+devils_advocate"
    assert vote.generated == {"objection": "the window is 30 days, not 20"}
    (request,) = model.requests
    assert "argue against the answer as hard as the evidence allows" in request.system
    assert next(iter((request.schema or {})["properties"])) == "objection"
