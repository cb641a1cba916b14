"""The strict fake's rules for the Claude models that think by default (each rule's source is
in jury/testing/_anthropic_thinking.py): what each family refuses of a request's thinking,
effort, last turn and tool choice, and how its thinking eats ``max_tokens`` and is reported
in ``usage.output_tokens_details.thinking_tokens``."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest

from conftest import FAKE_HEADERS
from jury.testing import FakeProviderServer

MESSAGES = "/v1/messages"
PREFILL = [{"role": "user", "content": "case"}, {"role": "assistant", "content": "{"}]
TOOLS = [{"name": "verdict", "input_schema": {"type": "object", "properties": {}}}]
FORCED = {"type": "tool", "name": "verdict"}


def body(model: str, max_tokens: int = 4096, **extra: Any) -> dict[str, Any]:
    return {
        "model": model,
        "max_tokens": max_tokens,
        "messages": [{"role": "user", "content": "case"}],
        **extra,
    }


async def post(server: FakeProviderServer, sent: dict[str, Any]) -> tuple[int, Any]:
    async with (
        aiohttp.ClientSession() as session,
        session.post(server.url + MESSAGES, json=sent, headers=FAKE_HEADERS) as response,
    ):
        return response.status, json.loads(await response.read())


@pytest.mark.parametrize(
    ("sent", "words"),
    [
        # Opus 5.5, Sonnet 5.5 and Fable 5.1 cannot stop thinking.
        (body("claude-opus-5-5", thinking={"type": "disabled"}), '"thinking.type.disabled"'),
        (body("claude-sonnet-5-5", thinking={"type": "disabled"}), '"thinking.type.disabled"'),
        (body("claude-fable-5-1", thinking={"type": "disabled"}), '"thinking.type.disabled"'),
        (body("claude-fable-5", thinking={"type": "disabled"}), '"thinking.type.disabled"'),
        # None of the 5.x models takes a manual budget.
        (
            body("claude-opus-5-5", thinking={"type": "enabled", "budget_tokens": 2048}),
            '"thinking.type.enabled"',
        ),
        (
            body("claude-haiku-5-5", thinking={"type": "enabled", "budget_tokens": 2048}),
            '"thinking.type.enabled"',
        ),
        # Opus 5 and Haiku 5.5 stop thinking only at effort high or below.
        (
            body("claude-opus-5", thinking={"type": "disabled"}, output_config={"effort": "xhigh"}),
            'not supported at effort "xhigh"',
        ),
        (
            body(
                "claude-haiku-5-5", thinking={"type": "disabled"}, output_config={"effort": "max"}
            ),
            'not supported at effort "max"',
        ),
        (
            body(
                "claude-sonnet-5-5",
                thinking={"type": "between_tools"},
                output_config={"effort": "xhigh"},
            ),
            'not supported at effort "xhigh"',
        ),
        # No assistant prefill on Opus 5 and the 5.5 models.
        (body("claude-opus-5-5", messages=PREFILL), "prefill"),
        (body("claude-sonnet-5-5", messages=PREFILL), "prefill"),
        (body("claude-haiku-5-5", messages=PREFILL), "prefill"),
        (body("claude-opus-5", messages=PREFILL), "prefill"),
        # No forced tool choice on Opus 5.5, Sonnet 5.5 and Fable 5.1 (their thinking is on).
        (body("claude-opus-5-5", tools=TOOLS, tool_choice=FORCED), 'type "tool" and "any"'),
        (
            body("claude-sonnet-5-5", tools=TOOLS, tool_choice={"type": "any"}),
            'type "tool" and "any"',
        ),
        (body("claude-fable-5-1", tools=TOOLS, tool_choice=FORCED), 'type "tool" and "any"'),
        # Nor on any model while it thinks.
        (body("claude-opus-5", tools=TOOLS, tool_choice=FORCED), "tool_choice forces tool use"),
        # A manual budget (Claude 4.x) is at least 1024 tokens and below max_tokens.
        (
            body(
                "claude-haiku-4-5-20251001",
                1024,
                thinking={"type": "enabled", "budget_tokens": 1024},
            ),
            "greater than `thinking.budget_tokens`",
        ),
        (
            body("claude-haiku-4-5-20251001", thinking={"type": "enabled", "budget_tokens": 512}),
            "greater than or equal to 1024",
        ),
    ],
)
async def test_the_fake_refuses_what_each_claude_family_refuses(
    sent: dict[str, Any], words: str
) -> None:
    async with FakeProviderServer() as server:
        status, data = await post(server, sent)
    assert status == 400
    assert data["error"]["type"] == "invalid_request_error"
    assert words in data["error"]["message"]


@pytest.mark.parametrize(
    "sent",
    [
        # What each family does take: its effort, adaptive thinking, disabled where it may be.
        body("claude-opus-5-5", output_config={"effort": "low"}),
        body("claude-opus-5-5", thinking={"type": "adaptive"}),
        body("claude-sonnet-5-5", thinking={"type": "between_tools"}),
        body("claude-fable-5-1", output_config={"effort": "low"}),
        body("claude-opus-5", thinking={"type": "disabled"}, output_config={"effort": "high"}),
        body("claude-sonnet-5", thinking={"type": "disabled"}),
        body("claude-haiku-5-5", thinking={"type": "disabled"}),
        # Thinking off, a forced tool is fine; Claude 4.x takes a budget below max_tokens.
        body("claude-opus-5", thinking={"type": "disabled"}, tools=TOOLS, tool_choice=FORCED),
        body("claude-haiku-4-5-20251001", thinking={"type": "enabled", "budget_tokens": 1024}),
        # A prefill, where no source says it is refused.
        body("claude-haiku-4-5-20251001", messages=PREFILL),
    ],
    ids=lambda sent: f"{sent['model']}-{'-'.join(k for k in sent if k not in ('model',))}",
)
async def test_the_fake_answers_what_each_claude_family_takes(sent: dict[str, Any]) -> None:
    async with FakeProviderServer() as server:
        status, data = await post(server, sent)
    assert status == 200, data
    assert data["stop_reason"] in ("end_turn", "tool_use")


@pytest.mark.parametrize(
    ("model", "thinking"),
    [
        # Opus 5.5 and Haiku 5.5 think at medium unless told, the others at high.
        ("claude-opus-5-5", 1024),
        ("claude-haiku-5-5", 1024),
        ("claude-sonnet-5-5", 4096),
        ("claude-fable-5-1", 4096),
        ("claude-opus-5", 4096),
        ("claude-sonnet-5", 4096),
    ],
)
async def test_a_thinking_model_left_at_its_default_effort_spends_a_judges_budget_thinking(
    model: str, thinking: int
) -> None:
    async with FakeProviderServer() as server:
        status, cut = await post(server, body(model, 1024))
        _, roomy = await post(server, body(model, 16384))
    assert status == 200
    # The 1024 tokens a judge used to be given all went on thinking: the reply is cut.
    assert cut["stop_reason"] == "max_tokens"
    assert cut["usage"]["output_tokens_details"]["thinking_tokens"] == 1024
    assert cut["usage"]["output_tokens"] == 1024
    assert not [b for b in cut["content"] if b["type"] == "text"]
    # With room, the family's default effort shows in what it spent.
    assert roomy["stop_reason"] == "end_turn"
    assert roomy["usage"]["output_tokens_details"]["thinking_tokens"] == thinking


async def test_at_low_effort_with_room_the_reply_fits_and_its_thinking_is_reported() -> None:
    async with FakeProviderServer() as server:
        status, data = await post(
            server, body("claude-opus-5-5", 1024 + 2048, output_config={"effort": "low"})
        )
    assert status == 200
    assert data["stop_reason"] == "end_turn"
    thought = data["usage"]["output_tokens_details"]["thinking_tokens"]
    assert 0 < thought < data["usage"]["output_tokens"]
    assert [b["type"] for b in data["content"]] == ["thinking", "text"]


async def test_a_model_that_does_not_think_reports_no_thinking_tokens() -> None:
    async with FakeProviderServer() as server:
        status, data = await post(server, body("claude-haiku-4-5-20251001", 1024))
    assert status == 200
    assert "output_tokens_details" not in data["usage"]
