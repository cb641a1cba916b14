"""`jury.testing`, the public test helpers: the fake provider server speaks each protocol
well enough for the official SDKs, scripts replies, injects faults, rate-limits, logs."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from dataclasses import replace
from typing import Any

import aiohttp
import pytest

from conftest import FAKE_HEADERS
from jury.testing import FakeProviderServer, Fault, LoggedRequest
from jury.testing._anthropic import AnthropicMessages
from jury.testing._google import GeminiGenerateContent
from jury.testing._openai import OpenAIChatCompletions

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "reason": {"type": "string"},
        "score": {"type": "integer", "minimum": 1, "maximum": 5},
    },
    "required": ["reason", "score"],
    "additionalProperties": False,
}

OPENAI_BODY = {
    "model": "gpt-x",
    "messages": [{"role": "system", "content": "rubric"}, {"role": "user", "content": "case"}],
    "response_format": {"type": "json_schema", "json_schema": {"name": "v", "schema": SCHEMA}},
}
#: The least the Messages API takes (model, max_tokens, messages with content).
ANTHROPIC_BODY = {
    "model": "claude-x",
    "max_tokens": 64,
    "messages": [{"role": "user", "content": "hi"}],
}


async def post(
    server: FakeProviderServer, path: str, body: Any, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            server.url + path, json=body, headers={**FAKE_HEADERS, **(headers or {})}
        ) as response,
    ):
        headers = {k.lower(): v for k, v in response.headers.items()}
        return response.status, headers, await response.read()


def test_a_logged_request_built_by_hand_finds_its_schema() -> None:
    logged = LoggedRequest(
        index=0,
        provider="google",
        method="POST",
        path="/v1beta/models/g:generateContent",
        headers={},
        body={"generationConfig": {"responseJsonSchema": SCHEMA}},
        model="g",
        schema_of=GeminiGenerateContent().requested_schema,
    )
    assert logged.schema == SCHEMA
    assert replace(logged, schema_of=OpenAIChatCompletions().requested_schema).schema is None
    assert replace(logged, body="not json").schema is None
    assert replace(logged, schema_of=None).schema is None


@pytest.mark.parametrize(
    ("path", "body", "error"),
    [
        (
            "/v1/chat/completions",
            OPENAI_BODY,
            {
                "error": {
                    "message": "injected 429",
                    "type": "rate_limit_exceeded",
                    "param": None,
                    "code": None,
                }
            },
        ),
        (
            "/v1/messages",
            ANTHROPIC_BODY,
            {"type": "error", "error": {"type": "rate_limit_error", "message": "injected 429"}},
        ),
        (
            "/v1beta/models/g:generateContent",
            {"contents": []},
            {"error": {"code": 429, "message": "injected 429", "status": "RESOURCE_EXHAUSTED"}},
        ),
    ],
    ids=["openai", "anthropic", "google"],
)
async def test_each_protocol_answers_an_error_in_its_own_shape(
    path: str, body: Any, error: dict[str, Any]
) -> None:
    async with FakeProviderServer() as server:
        server.inject(Fault.http(429))
        status, _, raw = await post(server, path, body)
    assert status == 429
    assert json.loads(raw) == error


async def test_anthropic_reads_the_prompt_cache_only_where_the_request_marks_it() -> None:
    rubric = "rubric " * 40
    plain = {**ANTHROPIC_BODY, "system": rubric}
    marked = {
        **plain,
        "system": [{"type": "text", "text": rubric, "cache_control": {"type": "ephemeral"}}],
    }
    # Lenient: this short a prefix is below every model's minimum (see the strict tests).
    async with FakeProviderServer(strict=False) as server:
        read = [
            json.loads((await post(server, "/v1/messages", body))[2])["usage"]
            for body in (plain, plain, marked, marked)
        ]
    prefix = len(rubric) // 4
    assert [usage["cache_read_input_tokens"] for usage in read] == [0, 0, 0, prefix]
    # Written to the cache the first time it is marked, and said so.
    assert [usage["cache_creation_input_tokens"] for usage in read] == [0, 0, prefix, 0]
    # Written or read, the prefix is no longer counted as plain input.
    assert read[2]["input_tokens"] == read[3]["input_tokens"] == read[0]["input_tokens"] - prefix


@pytest.mark.parametrize(
    ("model", "cached"),
    [
        # 512 tokens: "Claude Opus 5.5, ..., Claude Sonnet 5.5, ..., and Claude Haiku 5.5"
        # (the prompt-caching page's cache limitations); 1,024 for Sonnet 5, 4,096 for Haiku 4.5.
        ("claude-haiku-5-5", True),
        ("claude-sonnet-5-5", True),
        ("claude-sonnet-5", False),
        ("claude-haiku-4-5-20251001", False),
    ],
)
async def test_claude_5_5_caches_a_marked_prefix_of_600_tokens_and_older_models_do_not(
    model: str, cached: bool
) -> None:
    rubric = "rubric. " * 300  # 2,400 characters: 600 tokens by the fake's count
    body = {
        **ANTHROPIC_BODY,
        "model": model,
        "system": [{"type": "text", "text": rubric, "cache_control": {"type": "ephemeral"}}],
    }
    async with FakeProviderServer() as server:
        usages = [
            json.loads((await post(server, "/v1/messages", body))[2])["usage"] for _ in range(2)
        ]
    assert usages[1]["cache_read_input_tokens"] == (600 if cached else 0)
    assert usages[0]["cache_creation_input_tokens"] == (600 if cached else 0)


async def test_openai_reads_its_cache_in_steps_of_128_tokens_schema_first() -> None:
    # The schema is a prefix of the system message, and a hit is 1,024 + 128 n tokens
    # (https://developers.openai.com/api/docs/guides/prompt-caching).
    system = "r" * 4600  # 1,150 tokens, with the schema's few more
    body = {
        **OPENAI_BODY,
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": "case"}],
    }
    async with FakeProviderServer() as server:
        usages = [
            json.loads((await post(server, "/v1/chat/completions", body))[2])["usage"]
            for _ in range(2)
        ]
    prefix = (len(json.dumps(SCHEMA)) + len(system)) // 4
    assert 1152 <= prefix < 1280
    assert usages[1]["prompt_tokens_details"]["cached_tokens"] == 1152
    # The schema is prompt: counted in the input like the messages.
    assert usages[1]["prompt_tokens"] == prefix + len("case") // 4


async def test_a_body_the_protocol_refuses_is_answered_400_in_its_shape(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refusal(self: AnthropicMessages, body: dict[str, Any]) -> str | None:
        return "temperature: not supported" if "temperature" in body else None

    monkeypatch.setattr(AnthropicMessages, "refusal", refusal)
    # Lenient: the hook alone decides (strict mode refuses an unknown key anyway).
    async with FakeProviderServer(strict=False) as server:
        status, _, raw = await post(server, "/v1/messages", {"model": "c", "temperature": 1})
        assert (await post(server, "/v1/messages", {"model": "c"}))[0] == 200
    assert status == 400
    assert json.loads(raw)["error"] == {
        "type": "invalid_request_error",
        "message": "temperature: not supported",
    }
    assert [r.status for r in server.requests] == [400, 200]
    # Refused before the model is asked: only the second call counts as served.
    assert server.served == {"anthropic": 1}


async def test_faults_are_injected_per_model_and_counted() -> None:
    async with FakeProviderServer() as server:
        server.inject(Fault.http(503), model="gpt-x", times=2)
        other = {**OPENAI_BODY, "model": "gpt-y"}
        statuses = [(await post(server, "/v1/chat/completions", OPENAI_BODY))[0] for _ in range(3)]
        assert (await post(server, "/v1/chat/completions", other))[0] == 200
    assert statuses == [503, 503, 200]
    assert [r.fault for r in server.requests] == ["status", "status", None, None]


async def test_http_faults_carry_retry_after_headers() -> None:
    async with FakeProviderServer() as server:
        server.inject(Fault.http(429, retry_after=3, retry_after_ms=2500))
        status, headers, raw = await post(server, "/v1/messages", ANTHROPIC_BODY)
    assert status == 429
    assert headers["retry-after"] == "3"
    assert headers["retry-after-ms"] == "2500"
    assert json.loads(raw)["error"]["type"] == "rate_limit_error"


async def test_a_dropped_connection_and_a_malformed_body() -> None:
    async with FakeProviderServer() as server:
        server.inject(Fault.drop())
        with pytest.raises(aiohttp.ClientError):
            await post(server, "/v1/chat/completions", OPENAI_BODY)
        server.inject(Fault.malformed())
        status, _, raw = await post(server, "/v1/chat/completions", OPENAI_BODY)
    assert status == 200
    with pytest.raises(ValueError, match="Expecting"):
        json.loads(raw)


async def test_a_hang_lasts_until_the_client_gives_up() -> None:
    async with FakeProviderServer() as server:
        server.inject(Fault.hang())
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.2):
                await post(server, "/v1/chat/completions", OPENAI_BODY)


@pytest.mark.parametrize(
    ("fault", "check"),
    [
        (Fault.truncated(), lambda text: not text.endswith("}")),
        (Fault.out_of_range(), lambda text: json.loads(text)["score"] == 10),
        (Fault.missing(), lambda text: "score" not in json.loads(text)),
    ],
    ids=["truncated", "out_of_range", "missing"],
)
async def test_reply_faults_spoil_the_reply_text(fault: Fault, check: Any) -> None:
    async with FakeProviderServer() as server:
        server.inject(fault)
        _, _, raw = await post(server, "/v1/chat/completions", OPENAI_BODY)
    choice = json.loads(raw)["choices"][0]
    assert check(choice["message"]["content"])
    if fault.kind == "truncated":
        assert choice["finish_reason"] == "length"


async def test_the_rate_limit_answers_429_with_retry_after() -> None:
    async with FakeProviderServer(rpm={"openai": 2}) as server:
        statuses = []
        for _ in range(3):
            status, headers, _ = await post(server, "/v1/chat/completions", OPENAI_BODY)
            statuses.append(status)
        # Another provider is not limited by OpenAI's limit.
        assert (await post(server, "/v1/messages", ANTHROPIC_BODY))[0] == 200
    assert statuses == [200, 200, 429]
    assert 59 <= int(headers["retry-after"]) <= 60
    assert len(server.throttled["openai"]) == 1


def test_the_server_runs_on_its_own_and_reports_at_exit() -> None:
    import subprocess
    import sys
    from pathlib import Path

    process = subprocess.Popen(
        [sys.executable, "-m", "jury.testing", "--latency", "0"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")

        async def one() -> int:
            async with (
                aiohttp.ClientSession() as session,
                session.post(
                    f"{url}/v1/chat/completions", json=OPENAI_BODY, headers=FAKE_HEADERS
                ) as response,
            ):
                return response.status

        assert asyncio.run(one()) == 200
    finally:
        process.terminate()
        out, _ = process.communicate(timeout=10)
    assert json.loads(out.strip().splitlines()[-1])["served"] == {"openai": 1}


async def test_clear_forgets_scripts_faults_the_log_and_the_prompt_cache() -> None:
    async with FakeProviderServer() as server:
        server.script("gpt-x", "not json")
        server.inject(Fault.http(500), times=None)
        await post(server, "/v1/chat/completions", OPENAI_BODY)
        server.clear()
        assert server.requests == []
        status, _, raw = await post(server, "/v1/chat/completions", OPENAI_BODY)
    assert status == 200
    data = json.loads(raw)
    assert json.loads(data["choices"][0]["message"]["content"])["score"] == 5
    # The system prompt counts as new again: nothing read from the cache.
    assert data["usage"]["prompt_tokens_details"]["cached_tokens"] == 0


def test_the_scripted_judge_and_the_fake_clock_need_no_web_server() -> None:
    # A harness that only scripts its judges should not pay for aiohttp's server.
    code = (
        "import sys; from jury.testing import FakeClock, ScriptedModel; "
        "print('aiohttp.web' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
