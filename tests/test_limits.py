"""Account limits: concurrency, even pacing under rpm and tpm, slowing down on 429s, and the
defaults the jury file overrides. All on a fake clock."""

from __future__ import annotations

import asyncio

import pytest

from jury import JudgeRequest, Message, ProviderLimits
from jury._limits import _HEADROOM, DEFAULT_LIMITS, AccountLimiter, limits_for
from jury.testing import FakeClock, ScriptedModel


async def take_turns(limiter: AccountLimiter, clock: FakeClock, calls: int) -> list[float]:
    """When each of `calls` concurrent callers got its turn, on the fake clock."""
    started: list[float] = []

    async def call() -> None:
        async with limiter:
            started.append(clock.monotonic())

    async with asyncio.TaskGroup() as group:
        for _ in range(calls):
            group.create_task(call())
    return sorted(started)


async def test_rpm_spaces_requests_evenly() -> None:
    clock = FakeClock()
    limiter = AccountLimiter(ProviderLimits(rpm=600), clock)
    starts = []
    for _ in range(10):
        async with limiter:
            starts.append(clock.monotonic())
    assert starts == pytest.approx([i * 0.1 / _HEADROOM for i in range(10)])


async def test_rpm_spaces_concurrent_callers_too() -> None:
    clock = FakeClock()
    limiter = AccountLimiter(ProviderLimits(rpm=600), clock)
    await take_turns(limiter, clock, 10)
    # Each waiter after the first was given the next tenth of a second (a FakeClock adds up
    # every sleeper's sleep, so the sleeps are the schedule).
    assert clock.sleeps == [pytest.approx(0.1 / _HEADROOM)] * 9


async def test_without_limits_nothing_waits() -> None:
    clock = FakeClock()
    starts = await take_turns(AccountLimiter(None, clock), clock, 20)
    assert clock.sleeps == []
    assert starts == [0.0] * 20


async def test_concurrency_bounds_calls_in_flight() -> None:
    limiter = AccountLimiter(ProviderLimits(concurrency=3), FakeClock())
    in_flight = peak = 0

    async def call() -> None:
        nonlocal in_flight, peak
        async with limiter:
            in_flight += 1
            peak = max(peak, in_flight)
            await asyncio.sleep(0.001)
            in_flight -= 1

    async with asyncio.TaskGroup() as group:
        for _ in range(12):
            group.create_task(call())
    assert peak == 3


async def test_a_429_pauses_the_account_for_its_retry_after() -> None:
    clock = FakeClock()
    limiter = AccountLimiter(ProviderLimits(), clock)
    limiter.rate_limited(5.0)
    async with limiter:
        pass
    assert clock.sleeps == [5.0]
    assert limiter.throttled == 1


async def test_a_429_without_retry_after_still_pauses() -> None:
    clock = FakeClock()
    limiter = AccountLimiter(ProviderLimits(), clock)
    limiter.rate_limited(None)
    async with limiter:
        pass
    assert clock.sleeps == [1.0]


async def test_429s_slow_the_pace_once_per_burst_and_successes_win_it_back() -> None:
    clock = FakeClock()
    limiter = AccountLimiter(ProviderLimits(rpm=60), clock)
    # Three calls of one burst hit the limit together: one slowdown, not three.
    for _ in range(3):
        limiter.rate_limited(2.0)
    assert limiter._pace == pytest.approx(0.8)
    starts = []
    for _ in range(3):
        async with limiter:
            starts.append(clock.monotonic())
    assert starts[0] == pytest.approx(2.0)
    # Slower than the configured one a second: 1 / 0.8 (regaining half a percent a call).
    assert starts[1] - starts[0] == pytest.approx(1.25 / _HEADROOM)
    assert 1.2 < starts[2] - starts[1] < 1.25 / _HEADROOM
    for _ in range(100):
        async with limiter:
            pass
    assert limiter._pace == 1.0


async def test_tpm_paces_by_the_size_of_each_request() -> None:
    clock = FakeClock()
    limiter = AccountLimiter(ProviderLimits(tpm=6000), clock)
    # 400 characters (~100 tokens) and 100 reply tokens: 200 tokens, two seconds at 100/s.
    request = JudgeRequest(
        system="s" * 200, messages=(Message("user", "u" * 200),), schema={}, max_tokens=100
    )
    for _ in range(3):
        async with limiter.slot(request):
            pass
    assert clock.sleeps == [pytest.approx(2.0 / _HEADROOM)] * 2


def test_the_jury_file_overrides_the_defaults_key_by_key() -> None:
    model = ScriptedModel(["{}"], name="anthropic/claude-haiku-4-5-20251001")
    assert limits_for(model, {}) == DEFAULT_LIMITS["anthropic"]
    configured = {"anthropic": ProviderLimits(rpm=50)}
    limits = limits_for(model, configured)
    assert limits.rpm == 50
    assert limits.concurrency == DEFAULT_LIMITS["anthropic"].concurrency
    service = ScriptedModel(["{}"], name="openai-api/acme/llama-3")
    limits = limits_for(service, {"openai-api/acme": ProviderLimits(concurrency=2)})
    assert limits.concurrency == 2
