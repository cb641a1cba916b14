"""The fake's Chat Completions refuses per model what OpenAI refuses per model: a
``reasoning_effort`` the model does not take, ``max_tokens`` on a reasoning model, and
function tools beside a reasoning effort on gpt-5.4, gpt-5.6 and gpt-6 (each rule's source is
in `jury.testing._openai_models`)."""

from __future__ import annotations

from typing import Any

import pytest
from test_testing_strict import OPENAI, openai_body, post

from jury.testing import FakeProviderServer

TOOL = {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}


async def refused(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    async with FakeProviderServer() as server:
        status, _, data = await post(server, OPENAI, body)
        return status, data.get("error") or {}


@pytest.mark.parametrize(
    ("model", "effort"),
    [
        ("gpt-5.1", "minimal"),  # 5.1 dropped minimal for none
        ("gpt-5-mini", "none"),  # none came with 5.1
        ("o3", "xhigh"),  # the o-series take low, medium, high
        ("gpt-6.2-astra", "none"),  # no none on 6.2 astra and sol
        ("gpt-6.2-sol", "none"),
        ("gpt-6-sol", "max"),  # max is listed for three GPT-6 models only
        ("gpt-5.4-mini", "max"),
    ],
)
async def test_an_effort_the_model_does_not_take_is_refused_naming_the_ones_it_does(
    model: str, effort: str
) -> None:
    status, error = await refused(openai_body(model, reasoning_effort=effort))
    assert status == 400
    assert error["param"] == "reasoning_effort"
    assert error["code"] == "unsupported_value"
    assert error["message"].startswith(
        f"Unsupported value: '{effort}' is not supported with the '{model}' model. Supported "
        "values are: "
    )


@pytest.mark.parametrize(
    ("model", "effort"),
    [
        ("gpt-6-luna", "max"),
        ("gpt-6-astra", "max"),
        ("gpt-6.2-sol", "max"),
        ("gpt-6-luna", "none"),
        ("gpt-5.1", "none"),
        ("gpt-5-nano-2025-08-07", "minimal"),
        ("gpt-5.6-terra", "xhigh"),
    ],
)
async def test_an_effort_the_model_takes_is_answered(model: str, effort: str) -> None:
    async with FakeProviderServer() as server:
        status, _, data = await post(server, OPENAI, openai_body(model, reasoning_effort=effort))
    assert status == 200, data


async def test_gpt_5_1_names_its_four_efforts_as_the_api_does() -> None:
    _, error = await refused(openai_body("gpt-5.1", reasoning_effort="minimal"))
    assert error["message"] == (
        "Unsupported value: 'minimal' is not supported with the 'gpt-5.1' model. Supported "
        "values are: 'none', 'low', 'medium', and 'high'."
    )


@pytest.mark.parametrize("model", ["o3-mini", "gpt-5-mini", "gpt-6-luna"])
async def test_a_reasoning_model_refuses_max_tokens_for_max_completion_tokens(model: str) -> None:
    status, error = await refused(openai_body(model, max_tokens=64))
    assert status == 400
    assert (error["param"], error["code"]) == ("max_tokens", "unsupported_parameter")
    assert "Use 'max_completion_tokens' instead." in error["message"]
    async with FakeProviderServer() as server:
        body = openai_body(model, max_completion_tokens=64)
        assert (await post(server, OPENAI, body))[0] == 200


async def test_a_model_that_does_not_reason_still_takes_max_tokens() -> None:
    async with FakeProviderServer() as server:
        status, _, _ = await post(server, OPENAI, openai_body(max_tokens=64))
    assert status == 200


@pytest.mark.parametrize(
    ("model", "extra"),
    [
        ("gpt-5.6-terra", {"reasoning_effort": "low"}),
        # The model's own default effort is refused too, when none is sent (joplin #16451).
        ("gpt-5.6-luna", {}),
        ("gpt-6-astra", {"reasoning_effort": "medium"}),
        ("gpt-5.4", {"reasoning_effort": "low"}),
    ],
)
async def test_function_tools_with_a_reasoning_effort_send_the_caller_to_responses(
    model: str, extra: dict[str, Any]
) -> None:
    status, error = await refused(openai_body(model, tools=[TOOL], **extra))
    assert status == 400
    assert error["param"] == "reasoning_effort"
    assert error["message"].startswith(
        f"Function tools with reasoning_effort are not supported for {model} in "
        "/v1/chat/completions."
    )
    assert "/v1/responses" in error["message"]


@pytest.mark.parametrize(
    ("model", "extra"),
    [
        ("gpt-6-luna", {"reasoning_effort": "none"}),
        ("gpt-5.4", {}),  # gpt-5.4 refused the effort sent, not its default
        ("gpt-6-luna", {"reasoning_effort": "low", "tools": []}),
    ],
)
async def test_tools_with_effort_none_or_no_tools_are_answered(
    model: str, extra: dict[str, Any]
) -> None:
    body = openai_body(model, **{"tools": [TOOL], **extra})
    async with FakeProviderServer() as server:
        status, _, data = await post(server, OPENAI, body)
    assert status == 200, data
