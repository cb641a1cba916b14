"""Account limits: concurrency, even pacing under rpm and tpm, slowing down on 429s, and the
defaults the jury file overrides, which each adapter declares. All on a fake clock."""

from __future__ import annotations

import asyncio

import pytest

from jury import Case, Juror, Jury, Panel, ProviderLimits
from jury.adapters import JudgeModel, JudgeReply, JudgeRequest, Message
from jury.adapters._registry import resolve_model
from jury.engine._limits import _HEADROOM, AccountLimiter, limits_for
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


@pytest.fixture
def provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys and addresses enough to build every built-in adapter (nothing is called)."""
    for name, value in {
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "OPENAI_API_KEY": "sk-test",
        "GOOGLE_API_KEY": "AIza-test",
        "ACME_BASE_URL": "http://127.0.0.1:9/v1",
        "ACME_API_KEY": "acme-test",
    }.items():
        monkeypatch.setenv(name, value)


@pytest.mark.usefixtures("provider_env")
@pytest.mark.parametrize(
    ("spec", "concurrency"),
    [
        ("anthropic/claude-haiku-4-5-20251001", 16),
        ("openai/gpt-4.1-mini-2025-04-14", 32),
        ("google/gemini-2.5-flash", 16),
        ("openai-api/acme/llama-3", 16),
        ("ollama/llama3.2", 4),
        ("vllm/qwen2.5", 32),
        ("offline/reference", None),
    ],
)
def test_each_adapter_declares_its_accounts_default_limits(
    spec: str, concurrency: int | None
) -> None:
    model = resolve_model(spec)
    assert limits_for(model, {}) == ProviderLimits(concurrency=concurrency)


@pytest.mark.usefixtures("provider_env")
def test_the_jury_file_overrides_the_defaults_key_by_key() -> None:
    model = resolve_model("anthropic/claude-haiku-4-5-20251001")
    limits = limits_for(model, {"anthropic": ProviderLimits(rpm=50)})
    assert limits == ProviderLimits(concurrency=16, rpm=50)


@pytest.mark.usefixtures("provider_env")
def test_a_compatible_server_is_configured_by_account_then_service_then_prefix() -> None:
    model = resolve_model("openai-api/acme/llama-3")
    assert model.limit_names[1:] == ("openai-api/acme", "openai-api")
    every = {"openai-api": ProviderLimits(concurrency=8)}
    assert limits_for(model, every).concurrency == 8
    acme = {**every, "openai-api/acme": ProviderLimits(concurrency=2)}
    assert limits_for(model, acme).concurrency == 2
    this_account = {**acme, model.account: ProviderLimits(concurrency=1)}
    assert limits_for(model, this_account).concurrency == 1


def test_a_model_that_declares_nothing_is_not_limited_whatever_its_name() -> None:
    # The engine knows no provider by name: a model called "anthropic/..." that is not the
    # Anthropic adapter gets none of its defaults.
    model = ScriptedModel(["{}"], name="anthropic/claude-haiku-4-5-20251001")
    assert limits_for(model, {}) == ProviderLimits()
    assert model.limit_names == ("anthropic",)


class GatewayJudge(JudgeModel):
    """An outside adapter: one gateway account in front of many models."""

    name = "gateway/judge-large"
    default_limits = ProviderLimits(concurrency=1, rpm=600)
    limit_names = ("gateway-eu", "gateway")

    def __init__(self) -> None:
        self.in_flight = self.peak = 0

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        await asyncio.sleep(0.001)
        self.in_flight -= 1
        reply = '{"reason": "r", "pass": true}'
        return JudgeReply(text=reply, model=self.name)


def test_an_outside_models_default_limits_and_names_are_honoured() -> None:
    model = GatewayJudge()
    assert limits_for(model, {}) == ProviderLimits(concurrency=1, rpm=600)
    # Its names, not its account or prefix, pick the jury file's table.
    assert limits_for(model, {"gateway/judge-large": ProviderLimits(rpm=1)}).rpm == 600
    assert limits_for(model, {"gateway": ProviderLimits(rpm=60)}) == ProviderLimits(
        concurrency=1, rpm=60
    )
    both = {"gateway": ProviderLimits(rpm=60), "gateway-eu": ProviderLimits(rpm=30)}
    assert limits_for(model, both).rpm == 30


async def test_the_jury_holds_an_outside_model_to_its_declared_concurrency() -> None:
    model = GatewayJudge()
    model.default_limits = ProviderLimits(concurrency=1)  # no pacing: nothing sleeps long
    panel = Panel(jurors=(Juror(model=model),), rubric="grounded-answer", concurrency=8)
    cases = [Case(id=f"c{i}", question="Q?", answer="A.") for i in range(8)]
    async with Jury(panel) as jury:
        verdicts = [v async for v in jury.evaluate(cases)]
    assert len(verdicts) == 8
    assert model.peak == 1
