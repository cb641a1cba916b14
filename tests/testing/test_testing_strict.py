"""The fake server's strict mode (its default): it refuses what each real API refuses, with the
real status and error body, and answers the real APIs' awkward cases as they answer them."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest
from extras import needs

from conftest import FAKE_HEADERS
from jury.testing import FakeProviderServer, Fault

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"reason": {"type": "string"}, "score": {"type": "integer"}},
    "required": ["reason", "score"],
    "additionalProperties": False,
}
OPENAI = "/v1/chat/completions"
ANTHROPIC = "/v1/messages"


def gemini(model: str = "gemini-3.5-flash-lite", version: str = "v1beta") -> str:
    return f"/{version}/models/{model}:generateContent"


def vertex(version: str, model: str = "gemini-3.5-flash-lite") -> str:
    return (
        f"/{version}/projects/p/locations/us-central1/publishers/google/models/"
        f"{model}:generateContent"
    )


def openai_body(model: str = "gpt-4.1-mini-2025-04-14", **extra: Any) -> dict[str, Any]:
    return {
        "model": model,
        "messages": [{"role": "system", "content": "rubric"}, {"role": "user", "content": "case"}],
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "v", "schema": SCHEMA, "strict": True},
        },
        **extra,
    }


def anthropic_body(model: str = "claude-haiku-4-5-20251001", **extra: Any) -> dict[str, Any]:
    return {
        "model": model,
        "max_tokens": 256,
        "messages": [{"role": "user", "content": "case"}],
        **extra,
    }


def gemini_body(*contents: dict[str, Any], **config: Any) -> dict[str, Any]:
    return {
        "contents": list(contents) or [{"role": "user", "parts": [{"text": "case"}]}],
        "generationConfig": {"maxOutputTokens": 256, **config},
    }


async def post(server: FakeProviderServer, path: str, body: Any) -> tuple[int, dict[str, str], Any]:
    async with (
        aiohttp.ClientSession() as session,
        session.post(server.url + path, json=body, headers=FAKE_HEADERS) as response,
    ):
        headers = {k.lower(): v for k, v in response.headers.items()}
        return response.status, headers, json.loads(await response.read())


REFUSED: list[tuple[str, dict[str, Any], int, dict[str, Any]]] = [
    # A key the provider's request type (read from the installed SDK) does not have.
    (
        OPENAI,
        openai_body(reasoning={"effort": "low"}),
        400,
        {"message": "Unrecognized request argument supplied: reasoning"},
    ),
    (
        ANTHROPIC,
        anthropic_body(temperature=0.0),
        400,
        {
            "type": "invalid_request_error",
            "message": "temperature: Extra inputs are not permitted",
        },
    ),
    (
        gemini(),
        gemini_body(candidateCount=1, seedling=3),
        400,
        {"status": "INVALID_ARGUMENT"},
    ),
    # A key it requires.
    (
        ANTHROPIC,
        {"model": "claude-haiku-4-5-20251001", "messages": []},
        400,
        {"message": "max_tokens: Field required"},
    ),
    (OPENAI, {"model": "gpt-4.1-mini"}, 400, {"code": "missing_required_parameter"}),
    # An empty message.
    (
        ANTHROPIC,
        anthropic_body(
            messages=[
                {"role": "user", "content": "case"},
                {"role": "assistant", "content": ""},
                {"role": "user", "content": "again"},
            ]
        ),
        400,
        {"type": "invalid_request_error"},
    ),
    (
        gemini(),
        gemini_body(
            {"role": "user", "parts": [{"text": "case"}]},
            {"role": "model", "parts": [{"text": ""}]},
            {"role": "user", "parts": [{"text": "again"}]},
        ),
        400,
        {"status": "INVALID_ARGUMENT"},
    ),
    # A sampling setting the model refuses.
    (
        OPENAI,
        openai_body("gpt-6-luna", temperature=0.0),
        400,
        {"param": "temperature", "code": "unsupported_value"},
    ),
    (OPENAI, openai_body("o4-mini", temperature=0.0), 400, {"code": "unsupported_value"}),
    (
        gemini("gemini-3.5-flash-lite"),
        gemini_body(frequencyPenalty=0.5),
        400,
        {"status": "INVALID_ARGUMENT"},
    ),
    (
        gemini("gemini-2.5-pro"),
        gemini_body(thinkingConfig={"thinkingBudget": 0}),
        400,
        {"status": "INVALID_ARGUMENT"},
    ),
    # A path with an API version the surface does not serve.
    (vertex("v1beta"), gemini_body(), 404, {"status": "NOT_FOUND"}),
    (gemini(version="v1beta1"), gemini_body(), 404, {"status": "NOT_FOUND"}),
    # A schema keyword structured outputs refuse.
    (
        OPENAI,
        openai_body(
            response_format={
                "type": "json_schema",
                "json_schema": {
                    "name": "v",
                    "strict": True,
                    "schema": {**SCHEMA, "additionalProperties": True},
                },
            }
        ),
        400,
        {"code": "invalid_json_schema", "param": "response_format"},
    ),
    (
        ANTHROPIC,
        anthropic_body(
            output_config={
                "format": {
                    "type": "json_schema",
                    "schema": {
                        **SCHEMA,
                        "properties": {"score": {"type": "integer", "minimum": 1}},
                        "required": ["score"],
                    },
                }
            }
        ),
        400,
        {"type": "invalid_request_error"},
    ),
]
REFUSED_IDS = [
    "openai-unknown-key",
    "anthropic-unknown-key",
    "gemini-unknown-key",
    "anthropic-missing-key",
    "openai-missing-key",
    "anthropic-empty-turn",
    "gemini-empty-text",
    "openai-gpt-6-temperature",
    "openai-o-series-temperature",
    "gemini-3.5-penalty",
    "gemini-2.5-pro-no-thinking",
    "vertex-v1beta",
    "gemini-v1beta1",
    "openai-schema-open-object",
    "anthropic-schema-minimum",
]
#: The refusals the fake reads from an installed SDK (its request types, its schema rule),
#: by the extra that installs it.
FROM_THE_SDK = {
    "openai-unknown-key": "openai",
    "anthropic-unknown-key": "anthropic",
    "gemini-unknown-key": "google",
    "anthropic-missing-key": "anthropic",
    "openai-missing-key": "openai",
    "anthropic-schema-minimum": "anthropic",
}


@pytest.mark.parametrize(
    ("path", "body", "status", "error"),
    [
        pytest.param(
            *row, id=name, marks=[needs(FROM_THE_SDK[name])] if name in FROM_THE_SDK else []
        )
        for row, name in zip(REFUSED, REFUSED_IDS, strict=True)
    ],
)
async def test_what_the_real_api_refuses_is_refused_in_its_shape(
    path: str, body: dict[str, Any], status: int, error: dict[str, Any]
) -> None:
    async with FakeProviderServer() as server:
        got, _, data = await post(server, path, body)
        assert got == status, data
        assert error.items() <= data["error"].items(), data
        assert server.served == {}  # refused before any model is asked
        # Lenient, the same body is answered.
        async with FakeProviderServer(strict=False) as lenient:
            assert (await post(lenient, path, body))[0] == 200


async def test_the_gemini_api_and_vertex_are_served_at_their_own_versions() -> None:
    async with FakeProviderServer() as server:
        for path in (gemini(version="v1beta"), gemini(version="v1"), vertex("v1beta1")):
            assert (await post(server, path, gemini_body()))[0] == 200, path
        # Protocol-buffer JSON: a field by either spelling (google-genai sends snake_case).
        body = gemini_body(thinking_config={"thinking_level": "MINIMAL"})
        assert (await post(server, gemini(), body))[0] == 200


@pytest.mark.parametrize(
    ("path", "body", "thinking", "ending"),
    [
        # Gemini 2.5 thinks by default; its thinking counts against maxOutputTokens (256 here:
        # all of it goes to thinking).
        (gemini("gemini-2.5-flash"), gemini_body(), 256, ("MAX_TOKENS",)),
        (
            gemini("gemini-2.5-flash"),
            gemini_body(thinkingConfig={"thinkingBudget": 0}),
            0,
            ("STOP",),
        ),
        (gemini("gemini-3.8-flash"), gemini_body(), 256, ("MAX_TOKENS",)),
        (
            gemini("gemini-3.8-flash"),
            gemini_body(thinkingConfig={"thinkingLevel": "low"}, maxOutputTokens=2048),
            256,
            ("STOP",),
        ),
        # OpenAI's reasoning models reason at medium effort unless told otherwise.
        (
            OPENAI,
            openai_body("gpt-5.4-mini-2026-03-17", max_completion_tokens=512),
            512,
            ("length",),
        ),
        # Claude Haiku 5.5 thinks adaptively unless thinking is turned off.
        (ANTHROPIC, anthropic_body("claude-haiku-5-5"), 256, ("max_tokens",)),
        (
            ANTHROPIC,
            anthropic_body("claude-haiku-5-5", thinking={"type": "disabled"}),
            0,
            ("end_turn",),
        ),
    ],
    ids=[
        "gemini-2.5-default",
        "gemini-2.5-off",
        "gemini-3-default",
        "gemini-3-low",
        "openai-reasoning-default",
        "haiku-5-default",
        "haiku-5-off",
    ],
)
async def test_thinking_counts_against_the_output_limit(
    path: str, body: dict[str, Any], thinking: int, ending: tuple[str]
) -> None:
    async with FakeProviderServer() as server:
        status, _, data = await post(server, path, body)
    assert status == 200
    if path == OPENAI:
        assert data["choices"][0]["finish_reason"] in ending
        assert data["usage"]["completion_tokens_details"]["reasoning_tokens"] == thinking
        # All of the limit went to reasoning: nothing is left of the reply.
        assert data["choices"][0]["message"]["content"] == ""
    elif path == ANTHROPIC:
        assert data["stop_reason"] in ending
        assert data["usage"]["output_tokens"] >= thinking
    else:
        assert data["candidates"][0]["finishReason"] in ending
        assert data["usageMetadata"].get("thoughtsTokenCount", 0) == thinking


@pytest.mark.parametrize(
    ("fault", "path", "body", "check"),
    [
        (
            Fault.refusal("I won't grade this."),
            ANTHROPIC,
            anthropic_body(),
            lambda d: d["stop_reason"] == "refusal",
        ),
        (
            Fault.refusal("I won't grade this."),
            OPENAI,
            openai_body(),
            lambda d: (
                d["choices"][0]["message"]["refusal"] == "I won't grade this."
                and d["choices"][0]["message"]["content"] is None
            ),
        ),
        (
            Fault.filtered(),
            OPENAI,
            openai_body(),
            lambda d: d["choices"][0]["finish_reason"] == "content_filter",
        ),
        (
            Fault.truncated(),
            OPENAI,
            openai_body(),
            lambda d: d["choices"][0]["finish_reason"] == "length",
        ),
        (
            Fault.filtered(),
            gemini(),
            gemini_body(),
            lambda d: d["promptFeedback"]["blockReason"] == "SAFETY" and "candidates" not in d,
        ),
        (
            Fault.refusal(),
            gemini(),
            gemini_body(),
            lambda d: d["candidates"][0]["finishReason"] == "SAFETY",
        ),
    ],
    ids=[
        "anthropic-refusal",
        "openai-refusal",
        "openai-content-filter",
        "openai-length",
        "gemini-blocked-prompt",
        "gemini-safety-stop",
    ],
)
async def test_refusals_and_filters_come_as_each_api_sends_them(
    fault: Fault, path: str, body: dict[str, Any], check: Any
) -> None:
    async with FakeProviderServer() as server:
        server.inject(fault)
        status, _, data = await post(server, path, body)
    assert status == 200
    assert check(data), data


async def test_a_gemini_429_carries_its_delay_in_the_body_not_a_header() -> None:
    async with FakeProviderServer() as server:
        server.inject(Fault.http(429, retry_after=45.8))
        status, headers, data = await post(server, gemini(), gemini_body())
    assert status == 429
    assert "retry-after" not in headers
    details = {d["@type"].rsplit(".", 1)[1]: d for d in data["error"]["details"]}
    assert details["RetryInfo"]["retryDelay"] == "45.8s"
    assert "PerMinute" in details["QuotaFailure"]["violations"][0]["quotaId"]


@pytest.mark.parametrize(
    ("path", "body", "status", "check"),
    [
        (OPENAI, openai_body(), 429, lambda e: e["code"] == "insufficient_quota"),
        (
            ANTHROPIC,
            anthropic_body(),
            429,
            lambda e: e["details"]["error_code"] == "enforced_spend_limit_reached",
        ),
        (gemini(), gemini_body(), 429, lambda e: "PerDay" in json.dumps(e["details"])),
    ],
    ids=["openai", "anthropic", "google"],
)
async def test_a_quota_used_up_comes_as_each_api_sends_it(
    path: str, body: dict[str, Any], status: int, check: Any
) -> None:
    async with FakeProviderServer() as server:
        server.inject(Fault.quota())
        got, _, data = await post(server, path, body)
    assert got == status
    assert check(data["error"]), data


async def test_anthropic_says_it_is_overloaded_with_a_529() -> None:
    async with FakeProviderServer() as server:
        server.inject(Fault.overloaded())
        status, _, data = await post(server, ANTHROPIC, anthropic_body())
    assert status == 529
    assert data["error"]["type"] == "overloaded_error"


@pytest.mark.parametrize(
    ("path", "body", "prefix", "names"),
    [
        (OPENAI, openai_body(), "x-ratelimit-", ("limit-requests", "remaining-requests")),
        (
            ANTHROPIC,
            anthropic_body(),
            "anthropic-ratelimit-",
            ("requests-limit", "requests-remaining"),
        ),
    ],
    ids=["openai", "anthropic"],
)
async def test_replies_carry_the_providers_rate_limit_headers(
    path: str, body: dict[str, Any], prefix: str, names: tuple[str, str]
) -> None:
    provider = "openai" if path == OPENAI else "anthropic"
    limit, remaining = (prefix + name for name in names)
    async with FakeProviderServer(rpm={provider: 600}) as server:
        _, headers, _ = await post(server, path, body)
        _, second, _ = await post(server, path, body)
        async with FakeProviderServer(rpm={provider: 600}, strict=False) as lenient:
            assert "ratelimit" not in str((await post(lenient, path, body))[1])
    assert headers[limit] == "600"
    assert int(headers[remaining]) - 1 == int(second[remaining]) == 598


async def test_a_prefix_is_cached_only_past_the_models_minimum() -> None:
    def marked(text: str) -> dict[str, Any]:
        block = {"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}
        return anthropic_body(system=[block])

    short, long = "rubric " * 500, "rubric " * 2400  # ~875 and ~4200 tokens
    async with FakeProviderServer() as server:
        usage = [
            (await post(server, ANTHROPIC, marked(text)))[2]["usage"]
            for text in (short, short, long, long)
        ]
    # Claude Haiku 4.5 caches nothing shorter than 4,096 tokens, silently.
    assert [u["cache_read_input_tokens"] for u in usage] == [0, 0, 0, len(long) // 4]
    assert [u["cache_creation_input_tokens"] for u in usage] == [0, 0, len(long) // 4, 0]
