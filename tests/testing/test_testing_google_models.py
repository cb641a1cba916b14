"""The fake's Gemini 4 thinks as issue 34 found the real one does: at a level (low, medium or
high; medium when the request does not say), never by a budget."""

from __future__ import annotations

import pytest
from test_testing_strict import gemini, gemini_body, post

from jury.testing import FakeProviderServer


@pytest.mark.parametrize("model", ["gemini-4-argon", "gemini-4-hydrogen"])
@pytest.mark.parametrize("thinking", [{"thinking_budget": 1024}, {"thinkingBudget": 0}])
async def test_gemini_4_refuses_a_thinking_budget(model: str, thinking: dict[str, int]) -> None:
    async with FakeProviderServer() as server:
        status, _, data = await post(server, gemini(model), gemini_body(thinkingConfig=thinking))
    assert status == 400
    assert f"Model {model} does not support thinking_budget" in data["error"]["message"]
    assert data["error"]["status"] == "INVALID_ARGUMENT"


@pytest.mark.parametrize(("level", "status"), [("MINIMAL", 400), ("XHIGH", 400), ("LOW", 200)])
async def test_gemini_4_thinks_at_low_medium_or_high_only(level: str, status: int) -> None:
    body = gemini_body(thinkingConfig={"thinking_level": level})
    async with FakeProviderServer() as server:
        got, _, data = await post(server, gemini("gemini-4-argon"), body)
    assert got == status, data
    if status == 400:
        assert data["error"]["message"] == (
            f"Thinking level {level} is not supported for gemini-4-argon."
        )


async def test_gemini_4_thinks_at_medium_when_the_request_does_not_say() -> None:
    async with FakeProviderServer() as server:
        said = await post(server, gemini("gemini-4-argon"), gemini_body(maxOutputTokens=4000))
        low = gemini_body(maxOutputTokens=4000, thinkingConfig={"thinking_level": "LOW"})
        asked_low = await post(server, gemini("gemini-4-argon"), low)
    thoughts = said[2]["usageMetadata"]["thoughtsTokenCount"]
    assert thoughts > asked_low[2]["usageMetadata"]["thoughtsTokenCount"]
    # The fake's "medium" (jury.testing._wire.THINKING), as a thinking model's default spends.
    assert thoughts == 1024
