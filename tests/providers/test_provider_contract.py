"""The contract every adapter keeps, through its official SDK and through the direct
transport, against the fake server: same request bytes, same vote."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace

import pytest
from extras import needs, needs_sdk, sdk_params
from provider_helpers import (
    ALL_SPECS,
    ANTHROPIC,
    CASE,
    COMPATIBLE,
    GOOGLE,
    OLLAMA,
    OPENAI,
    TRANSPORTS,
    judge,
    model_id,
    panel,
)

from jury import Verdict, VoteStatus, load_rubric
from jury.testing import FakeProviderServer, ScriptReply, valid_reply

RUBRIC = load_rubric("five-metric")
PROMPT = RUBRIC.prompts(CASE)[0]


@pytest.fixture(autouse=True)
def compatible_env(server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACME_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("ACME_API_KEY", "acme-key-0123456789")
    monkeypatch.setenv("OLLAMA_BASE_URL", server.openai_base_url)


@pytest.mark.parametrize("spec", sdk_params(*ALL_SPECS))
async def test_sdk_and_direct_send_the_same_body_and_give_the_same_vote(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch, spec: str
) -> None:
    votes = {}
    for transport in TRANSPORTS:
        monkeypatch.setenv("JURY_TRANSPORT", transport)
        verdict = await judge(panel(spec))
        assert verdict.verdict is Verdict.PASS
        votes[transport] = verdict.votes[0]

    via_sdk, direct = server.requests
    assert direct.body == via_sdk.body
    assert direct.path == via_sdk.path
    assert direct.model == via_sdk.model == model_id(spec)
    # The server saw a credential both times, and logged it redacted.
    assert "[redacted]" in {via_sdk.headers.get(h) for h in ("authorization", "x-goog-api-key")}

    for name in ("status", "scores", "reason", "served_by"):
        assert getattr(votes["sdk"], name) == getattr(votes["direct"], name), name
    for name in ("attempts", "input_tokens", "output_tokens", "served_by"):
        assert getattr(votes["sdk"].calls, name) == getattr(votes["direct"].calls, name), name
    assert votes["direct"].status is VoteStatus.VALID
    assert votes["direct"].served_by == model_id(spec)
    assert votes["direct"].scores == {m.name: 5 for m in RUBRIC.metrics(CASE)}
    assert votes["direct"].calls.input_tokens > 0


@needs_sdk("openai")
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_openai_asks_for_a_strict_json_schema(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch, transport: str
) -> None:
    monkeypatch.setenv("JURY_TRANSPORT", transport)
    await judge(panel(OPENAI))
    body = server.requests[0].body
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "five-metric", "schema": PROMPT.schema, "strict": True},
    }
    schema = body["response_format"]["json_schema"]["schema"]
    # What strict mode demands of a schema.
    assert schema["additionalProperties"] is False
    assert sorted(schema["required"]) == sorted(schema["properties"])
    # The static rubric first, the case last: the prefix the provider's cache can reuse.
    assert body["messages"][0] == {"role": "system", "content": PROMPT.system}
    assert body["messages"][-1] == {"role": "user", "content": PROMPT.user}
    assert body["temperature"] == 0.0
    assert body["max_completion_tokens"] == 1024


@needs("anthropic")  # the SDK's own rule for the schema, on either transport
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_anthropic_asks_for_structured_output_and_caches_the_rubric(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch, transport: str
) -> None:
    import anthropic.lib._parse._transform as anthropic_schema

    monkeypatch.setenv("JURY_TRANSPORT", transport)
    await judge(panel(ANTHROPIC))
    body = server.requests[0].body
    assert body["output_config"] == {
        "format": {
            "type": "json_schema",
            # The SDK's own rule for what structured outputs accept.
            "schema": anthropic_schema.transform_schema(PROMPT.schema),
        }
    }
    assert body["system"] == [
        {"type": "text", "text": PROMPT.system, "cache_control": {"type": "ephemeral"}}
    ]
    assert body["messages"] == [{"role": "user", "content": PROMPT.user}]
    # Claude Haiku 5.5 thinks unless told not to; a verdict needs no thinking.
    assert body["thinking"] == {"type": "disabled"}


@needs_sdk("google")
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_gemini_asks_for_a_response_json_schema(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch, transport: str
) -> None:
    monkeypatch.setenv("JURY_TRANSPORT", transport)
    await judge(panel(GOOGLE))
    request = server.requests[0]
    assert request.path == "/v1beta/models/gemini-3.5-flash-lite:generateContent"
    config = request.body["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert config["responseJsonSchema"] == PROMPT.schema
    assert request.body["systemInstruction"]["parts"] == [{"text": PROMPT.system}]
    assert request.body["contents"] == [{"parts": [{"text": PROMPT.user}], "role": "user"}]


@pytest.mark.parametrize("spec", [COMPATIBLE, OLLAMA])
async def test_compatible_servers_get_the_schema_and_the_older_token_field(
    server: FakeProviderServer, spec: str
) -> None:
    await judge(panel(spec))
    body = server.requests[0].body
    assert body["response_format"]["type"] == "json_schema"
    assert body["max_tokens"] == 1024
    assert "max_completion_tokens" not in body


async def test_a_compatible_server_without_schema_support_gets_only_the_prompt(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACME_RESPONSE_FORMAT", "none")
    # Unconstrained, the model answers from the prompt: first prose, then (re-asked) JSON.
    replies: Iterator[ScriptReply] = iter(["Scores: all fives.", valid_reply(PROMPT.schema)])
    server.script(model_id(COMPATIBLE), lambda request: next(replies))
    verdict = await judge(panel(COMPATIBLE))
    assert all("response_format" not in r.body for r in server.requests)
    # The prompt itself asks for the JSON object, and the engine's re-ask does the rest.
    assert "Reply with one JSON object" in server.requests[0].body["messages"][0]["content"]
    vote = verdict.votes[0]
    assert vote.status is VoteStatus.VALID
    assert vote.calls.reasks == 1


#: A rubric's system prompt past every model's minimum cacheable prefix (4,096 tokens for the
#: longest, Claude Haiku 4.5's), as a long rubric with worked examples is.
LONG_SYSTEM = PROMPT.system + "\n\nWorked example: " + "a judged case and its scores. " * 600


def cached_prefix(spec: str, system: str) -> int:
    """The tokens each provider reads from its cache for a prompt whose static part is
    `system` (the fake's estimate: 4 characters a token). OpenAI's prefix is the reply's
    schema, then the system message, read in steps of 128 tokens (its prompt-caching guide);
    the others' the system text."""
    if spec == OPENAI:
        size = (len(json.dumps(PROMPT.schema)) + len(system)) // 4
        return size - size % 128
    return len(system) // 4


@needs_sdk()
@pytest.mark.parametrize("spec", [ANTHROPIC, OPENAI, GOOGLE])
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_cached_tokens_are_reported_past_the_models_minimum_prefix(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch, spec: str, transport: str
) -> None:
    monkeypatch.setenv("JURY_TRANSPORT", transport)
    long = RUBRIC.prompts(CASE)[0]
    rubric = load_rubric("five-metric")
    monkeypatch.setattr(
        type(rubric), "prompts", lambda self, case: (replace(long, system=LONG_SYSTEM),)
    )
    first = await judge(panel(spec))
    second = await judge(panel(spec))
    assert first.votes[0].calls.cached_tokens == 0
    # The rubric (system) was seen before: the provider reads it from its cache.
    assert second.votes[0].calls.cached_tokens == cached_prefix(spec, LONG_SYSTEM)
    assert second.votes[0].calls.input_tokens >= second.votes[0].calls.cached_tokens


@pytest.mark.parametrize("spec", [ANTHROPIC, OPENAI, GOOGLE])
async def test_a_rubric_shorter_than_the_minimum_prefix_is_never_cached(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch, spec: str
) -> None:
    # Some 250 tokens (with OpenAI's schema, some 530): under Claude Haiku 5.5's 512, OpenAI's
    # and Gemini Flash's 1,024. The providers cache nothing, silently; so must the fake.
    short = replace(PROMPT, system=PROMPT.system[:1000])
    rubric = load_rubric("five-metric")
    monkeypatch.setattr(type(rubric), "prompts", lambda self, case: (short,))
    await judge(panel(spec))
    second = await judge(panel(spec))
    assert second.votes[0].calls.cached_tokens == 0


@pytest.mark.parametrize(("spec", "cached"), [(ANTHROPIC, True), (OPENAI, True), (GOOGLE, False)])
async def test_the_five_metric_rubric_is_cached_where_the_models_minimum_allows_it(
    server: FakeProviderServer, spec: str, cached: bool
) -> None:
    # The rubric is some 1,019 tokens, its schema some 275: past Claude Haiku 5.5's 512 and,
    # schema first, past OpenAI's 1,024; under Gemini Flash's 1,024, where only the system
    # instruction is the prefix.
    assert 512 < len(PROMPT.system) // 4 < 1024
    await judge(panel(spec))
    second = await judge(panel(spec))
    expected = cached_prefix(spec, PROMPT.system) if cached else 0
    assert second.votes[0].calls.cached_tokens == expected


@pytest.mark.parametrize("spec", [ANTHROPIC, OPENAI])
async def test_a_second_case_reads_the_whole_static_prefix_from_the_cache(
    server: FakeProviderServer, spec: str
) -> None:
    # Two different cases: the rubric (and, on OpenAI, its schema) is the prefix both share,
    # read from the cache the second time; the case after it is paid in full.
    other = CASE.model_copy(update={"id": "kettle-2", "question": "And the toaster?"})
    first = await judge(panel(spec))
    second = await judge(panel(spec), case=other)
    assert first.votes[0].calls.cached_tokens == 0
    calls = second.votes[0].calls
    assert calls.cached_tokens == cached_prefix(spec, PROMPT.system)
    assert calls.input_tokens - calls.cached_tokens >= len(PROMPT.user) // 4 - 64


async def test_a_reasoning_model_is_not_sent_a_temperature(server: FakeProviderServer) -> None:
    await judge(panel("openai/gpt-5.4-mini-2026-03-17"))
    assert "temperature" not in server.requests[0].body
