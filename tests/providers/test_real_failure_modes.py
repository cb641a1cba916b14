"""What the real APIs do that the project once got wrong (issue 11's table), one test a row,
through each adapter against the strict fake server: a wrong API version, retired models and
dropped sampling settings, an empty turn re-asked, thinking that eats the output budget, a
delay given in the body, a quota no retry clears, a prefix too short to cache, and the price
of a cache write."""

from __future__ import annotations

from pathlib import Path

import pytest
from extras import needs, needs_sdk
from provider_helpers import ANTHROPIC, GOOGLE, OPENAI, judge, model_id, panel, run_cli

from jury import QuotaExhaustedError, VoteStatus
from jury.adapters import JudgeReply, Usage
from jury.adapters._registry import resolve_model
from jury.providers._wire import WireModel
from jury.testing import FakeClock, FakeProviderServer, Fault


@pytest.fixture(params=["sdk", "direct"])
def transport(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("JURY_TRANSPORT", request.param)
    return str(request.param)


@needs("google")  # google-auth finds Vertex's credentials
async def test_vertex_is_called_at_an_api_version_vertex_serves(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import google.auth
    import google.oauth2.credentials

    # Vertex credentials as google-auth would find them (a token that needs no refresh).
    token = google.oauth2.credentials.Credentials(token="vertex-test-token")  # type: ignore[no-untyped-call]
    monkeypatch.setattr(google.auth, "default", lambda *args, **kwargs: (token, "proj"))
    for name, value in {
        "GOOGLE_GENAI_USE_VERTEXAI": "true",
        "GOOGLE_CLOUD_PROJECT": "proj",
        "GOOGLE_CLOUD_LOCATION": "us-central1",
        "GOOGLE_VERTEX_BASE_URL": server.url,
    }.items():
        monkeypatch.setenv(name, value)
    vote = (await judge(panel(GOOGLE))).votes[0]
    assert vote.status is VoteStatus.VALID, vote.error
    # Vertex serves v1 and v1beta1; the Gemini API's v1beta is a 404 there.
    (request,) = server.requests
    assert request.path.startswith("/v1beta1/projects/proj/locations/us-central1/publishers/")


@needs_sdk("google")
async def test_gemini_3_is_sent_no_temperature_and_gemini_2_5_is_told_not_to_think(
    server: FakeProviderServer, transport: str
) -> None:
    await judge(panel("google/gemini-3.5-flash-lite"))
    await judge(panel("google/gemini-2.5-flash"))
    three, two = (r.body["generationConfig"] for r in server.requests)
    # Gemini 3 ignores a custom temperature: sending one only pretends to control it.
    assert "temperature" not in three
    assert three["thinkingConfig"] == {"thinking_level": "MINIMAL"}
    assert two["temperature"] == 0.0
    assert two["thinkingConfig"] == {"thinking_budget": 0}
    # Told not to think, 2.5 Flash leaves the whole output budget to the verdict.
    assert [r.status for r in server.requests] == [200, 200]
    assert "thoughtsTokenCount" not in str(server.requests[1].body)


@needs_sdk()
@pytest.mark.parametrize("spec", [ANTHROPIC, GOOGLE, OPENAI])
async def test_an_empty_reply_is_asked_again_without_an_empty_turn(
    server: FakeProviderServer, transport: str, spec: str
) -> None:
    server.inject(Fault.empty(), model=model_id(spec))
    vote = (await judge(panel(spec))).votes[0]
    # Anthropic and Gemini refuse an empty turn with a 400: the re-ask leaves it out.
    assert vote.status is VoteStatus.VALID, vote.error
    assert vote.calls.reasks == 1
    assert [r.status for r in server.requests] == [200, 200]
    assert "could not be used" in str(server.requests[1].body)


@needs_sdk("openai")
async def test_a_gpt_6_model_is_sent_no_temperature(
    server: FakeProviderServer, transport: str
) -> None:
    vote = (await judge(panel("openai/gpt-6-luna"))).votes[0]
    assert vote.status is VoteStatus.VALID, vote.error
    body = server.requests[0].body
    assert "temperature" not in body
    # A reasoning model is asked for little reasoning, and given room for it.
    assert body["reasoning_effort"] == "low"
    assert body["max_completion_tokens"] > 1024


@needs_sdk("google")
async def test_a_reply_cut_at_the_limit_is_an_invalid_vote_that_says_so(
    server: FakeProviderServer, transport: str
) -> None:
    server.inject(Fault.truncated(), model=model_id(GOOGLE), times=None)
    vote = (await judge(panel(GOOGLE, reasks=1))).votes[0]
    assert vote.status is VoteStatus.INVALID
    # finishReason MAX_TOKENS is read: the reason says the reply was cut, not only that it
    # did not parse. It had something written, so it was asked again, shorter, once.
    assert "cut off at the output limit" in (vote.error or "")
    assert vote.calls.reasks == 1


def test_thinking_that_ate_the_budget_is_read_from_the_reply() -> None:
    from jury.providers.google import GeminiWire

    wire = GeminiWire("http://127.0.0.1:9", "k", "GOOGLE_API_KEY")
    reply = wire.parse(
        "gemini-2.5-flash",
        {
            "candidates": [{"finishReason": "MAX_TOKENS", "index": 0}],
            "usageMetadata": {"promptTokenCount": 900, "thoughtsTokenCount": 1024},
        },
    )
    assert reply.finish == "length"
    assert reply.text == ""
    assert reply.usage.thinking_tokens == reply.usage.output_tokens == 1024


@needs_sdk("google")
async def test_a_gemini_429_waits_the_delay_its_body_gives(
    server: FakeProviderServer, transport: str
) -> None:
    server.inject(Fault.http(429, retry_after=45.8), model=model_id(GOOGLE))
    clock = FakeClock()
    vote = (await judge(panel(GOOGLE), clock)).votes[0]
    assert vote.status is VoteStatus.VALID
    # No retry-after header: google.rpc.RetryInfo in the body says 45.8 s.
    assert "retry-after" not in str(server.requests[0].headers)
    assert clock.sleeps[-1] >= 45.8


@needs_sdk()
@pytest.mark.parametrize("spec", [OPENAI, GOOGLE, ANTHROPIC])
async def test_a_quota_no_retry_clears_stops_the_run_at_once(
    server: FakeProviderServer, transport: str, spec: str
) -> None:
    # OpenAI insufficient_quota, a Gemini per-day QuotaFailure, Anthropic's spend limit: all
    # 429s, none of them a rate limit.
    server.inject(Fault.quota(), model=model_id(spec), times=None)
    with pytest.raises(QuotaExhaustedError) as caught:
        await judge(panel(spec))
    assert len(server.requests) == 1
    assert spec.partition("/")[0] in str(caught.value)


async def test_an_anthropic_cache_write_costs_more_than_plain_input(
    server: FakeProviderServer,
) -> None:
    model = resolve_model(ANTHROPIC)
    assert isinstance(model, WireModel)
    reply = model.wire.parse(
        "claude-haiku-5-5",
        {
            "content": [{"type": "text", "text": "{}"}],
            "model": "claude-haiku-5-5",
            "usage": {
                "input_tokens": 100,
                "output_tokens": 10,
                "cache_creation_input_tokens": 5000,
                "cache_read_input_tokens": 0,
            },
        },
    )
    assert reply.usage.cache_write_tokens == 5000
    assert reply.usage.input_tokens == 5100

    def cost(usage: Usage) -> float:
        found = model.price(JudgeReply(text="", model="claude-haiku-5-5", usage=usage))
        assert found is not None
        return float(found)

    input_rate = (cost(Usage(5100, 10)) - cost(Usage(100, 10))) / 5000
    # The 5,000 tokens written cost 1.25 times the input rate (genai-prices' rate).
    assert cost(reply.usage) - cost(Usage(5100, 10)) == pytest.approx(0.25 * input_rate * 5000)


@pytest.mark.timeout(60)
async def test_the_cli_stops_with_exit_2_naming_the_used_up_quota(
    server: FakeProviderServer, tmp_path: Path
) -> None:
    server.inject(Fault.quota(), times=None)
    code, output = await run_cli(server, tmp_path, f'jurors = ["{OPENAI}"]\nquorum = 1\n')
    assert code == 2, output
    assert "the account's quota is used up" in output
    assert "insufficient_quota" in output
    assert len(server.requests) == 1
