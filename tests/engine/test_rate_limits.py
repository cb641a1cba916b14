"""429s never starve a run: rate limits cost time (within `retry.rate_limit_wait`), not the
attempts that failures use, and the account limiter learns the provider's rate from the
rate-limit headers of its replies, or from its first 429, when none is configured."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from conftest import case, panel_of, scores, scripted
from jury import Juror, Jury, Panel, ProviderLimits, RetrySettings, Vote, VoteStatus
from jury.adapters import RateLimitedError, TransientError
from jury.engine._limits import _HEADROOM, AccountLimiter, read_rate_limits
from jury.testing import FakeClock, FakeProviderServer, ScriptedModel

OPENAI_HEADERS = {
    "x-ratelimit-limit-requests": "600",
    "x-ratelimit-remaining-requests": "599",
    "x-ratelimit-reset-requests": "100ms",
}


async def vote_of(model: ScriptedModel, retry: RetrySettings, clock: FakeClock) -> Vote:
    panel = panel_of(model, retry=retry, quorum=1)
    async with Jury(panel, clock=clock, rng=random.Random(3), checks=None) as jury:
        return (await jury.judge(case())).votes[0]


async def test_429s_do_not_use_up_the_attempts_that_failures_get() -> None:
    # Six 429s in a row, then an answer: with two attempts for failures, the old rule (one
    # attempt a 429) gave up after the second.
    limited = {i: RateLimitedError("HTTP 429", retry_after=2.0) for i in range(6)}
    model = scripted([scores(5)], failures=limited)
    clock = FakeClock()
    vote = await vote_of(model, RetrySettings(attempts=2), clock)
    assert vote.status is VoteStatus.VALID
    assert vote.calls.attempts == 7
    assert sum(clock.sleeps) >= 12.0


async def test_failures_still_use_up_their_attempts_between_429s() -> None:
    failures: dict[int, Exception] = {
        0: RateLimitedError("HTTP 429", retry_after=1.0),
        1: TransientError("HTTP 503"),
        2: RateLimitedError("HTTP 429", retry_after=1.0),
        3: TransientError("HTTP 503"),
    }
    # One asking's attempts are counted: no second chance (tests/engine/test_second_chance.py).
    retry = RetrySettings(attempts=2, second_chance=False)
    vote = await vote_of(scripted([scores(5)], failures=failures), retry, FakeClock())
    assert vote.status is VoteStatus.UNAVAILABLE
    assert "503" in (vote.error or "")
    assert vote.calls.attempts == 4


async def test_a_call_rate_limited_past_its_wait_gives_up_and_says_why() -> None:
    always = {i: RateLimitedError("HTTP 429", retry_after=10.0) for i in range(100)}
    clock = FakeClock()
    retry = RetrySettings(attempts=4, rate_limit_wait=45, second_chance=False)
    vote = await vote_of(scripted([scores(5)], failures=always), retry, clock)
    assert vote.status is VoteStatus.UNAVAILABLE
    assert "rate_limit_wait is 45s" in (vote.error or "")
    # It waited out 429s for as long as it was allowed, and no longer.
    assert 30 <= sum(clock.sleeps) <= 45


def test_rate_limit_headers_are_read_whatever_the_providers_spelling() -> None:
    openai = read_rate_limits(OPENAI_HEADERS)
    assert openai is not None
    assert (openai.limit, openai.remaining) == (600, 599)
    assert openai.reset == pytest.approx(0.1)
    now = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
    anthropic = read_rate_limits(
        {
            "anthropic-ratelimit-requests-limit": "50",
            "anthropic-ratelimit-requests-remaining": "0",
            "anthropic-ratelimit-requests-reset": (now + timedelta(seconds=12)).isoformat(),
        },
        now=now.timestamp(),
    )
    assert anthropic is not None
    assert (anthropic.limit, anthropic.remaining, anthropic.reset) == (50, 0, 12.0)
    minutes = read_rate_limits({"x-ratelimit-reset-requests": "6m0s"})
    assert minutes is not None
    assert minutes.reset == 360
    # Out of tokens is out of requests until the tokens' window resets.
    tokens = read_rate_limits(
        {"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "1.5s"}
    )
    assert tokens is not None
    assert (tokens.remaining, tokens.reset) == (0, 1.5)
    assert read_rate_limits({"content-type": "application/json"}) is None


async def test_the_limiter_learns_the_rate_from_the_headers_and_paces_at_it() -> None:
    clock = FakeClock()
    limiter = AccountLimiter(ProviderLimits(), clock)
    unknown = limiter.rpm
    assert unknown is None
    limiter.learn(OPENAI_HEADERS)
    assert limiter.rpm == limiter.learned_rpm == 600
    starts = []
    for _ in range(5):
        async with limiter:
            starts.append(clock.monotonic())
    assert starts == pytest.approx([i * 0.1 / _HEADROOM for i in range(5)])


async def test_a_configured_rate_is_not_overridden_by_the_headers() -> None:
    limiter = AccountLimiter(ProviderLimits(rpm=60), FakeClock())
    limiter.learn(OPENAI_HEADERS)
    assert limiter.rpm == 60
    assert limiter.learned_rpm is None


async def test_nothing_left_in_the_window_pauses_the_account_until_it_resets() -> None:
    clock = FakeClock()
    limiter = AccountLimiter(ProviderLimits(), clock)
    limiter.learn({"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "7s"})
    async with limiter:
        pass
    assert clock.sleeps == [7.0]


async def test_without_headers_the_first_429_teaches_the_rate_the_server_took() -> None:
    clock = FakeClock()
    limiter = AccountLimiter(ProviderLimits(), clock)
    # The server took 120 calls over the last half minute, then refused one.
    for second in range(30):
        clock.now = float(second)
        for _ in range(4):
            async with limiter:
                pass
    async with limiter:
        pass
    limiter.rate_limited(2.0)
    assert limiter.learned_rpm == 120
    # From then on the account is paced at it, after the pause.
    starts = []
    for _ in range(3):
        async with limiter:
            starts.append(clock.monotonic())
    assert starts[0] >= 31.0
    assert starts[2] - starts[1] == pytest.approx(0.5 / _HEADROOM, rel=0.01)


async def test_calls_in_flight_at_the_first_429_are_not_counted_as_taken() -> None:
    clock = FakeClock()
    limiter = AccountLimiter(ProviderLimits(), clock)
    for _ in range(40):
        await limiter.acquire(0)
    for _ in range(30):
        limiter.release(ok=True)
    # Nine still out (the server may be refusing them too), one just refused.
    limiter.release(ok=False)
    limiter.rate_limited(None)
    assert limiter.learned_rpm == 40 - 9 - 1


async def test_a_429_after_a_handful_of_calls_teaches_no_rate() -> None:
    # A key shared with another program can meet its limit at once: no rate of 1 a minute.
    clock = FakeClock()
    limiter = AccountLimiter(ProviderLimits(), clock)
    async with limiter:
        pass
    limiter.rate_limited(3.0)
    assert limiter.rpm is None
    async with limiter:
        pass
    assert clock.sleeps == [3.0]


async def test_a_jury_learns_the_rate_from_the_fake_servers_headers(
    server: FakeProviderServer,
) -> None:
    server.rpm["openai"] = 120
    jury_panel = Panel(jurors=(Juror(model="openai/gpt-4.1-mini-2025-04-14"),), quorum=1)
    async with Jury(jury_panel, checks=None) as jury:
        verdict = await jury.judge(case())
        (model,) = jury.models
        limiter = jury._calls.limiter(model)
    assert verdict.votes[0].status is VoteStatus.VALID
    assert limiter.learned_rpm == 120


async def test_429s_while_paced_slow_the_pace_once_per_burst() -> None:
    clock = FakeClock()
    limiter = AccountLimiter(ProviderLimits(), clock)
    limiter.learn(OPENAI_HEADERS)
    for _ in range(3):
        limiter.rate_limited(1.0)
    assert limiter._pace == pytest.approx(0.8)
    assert limiter.rpm == 600


def test_the_jury_files_retry_table_takes_rate_limit_wait(tmp_path: object) -> None:
    from pathlib import Path

    from jury import load_panel

    path = Path(str(tmp_path)) / "jury.toml"
    path.write_text('jurors = ["offline/reference"]\n[retry]\nrate_limit_wait = 900\n')
    assert load_panel(path).retry.rate_limit_wait == 900
