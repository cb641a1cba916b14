"""Every injected fault ends as docs/architecture.md says, through each real SDK and the direct
transport: transient faults are retried (the attempts are counted on the vote), retry-after
is honoured (on a fake clock: nothing really waits), requests that cannot work are not
retried, garbage replies are re-asked and end as invalid votes with the raw reply kept."""

from __future__ import annotations

import random

import pytest
from extras import needs_sdk
from provider_helpers import CASE, FIRST_PARTY, TRANSPORTS, judge, model_id, panel

from conftest import FAKE_KEY
from jury import AuthenticationError, JurorUnusable, Jury, RetrySettings, Verdict, VoteStatus
from jury.testing import FakeClock, FakeProviderServer, Fault, retry_after_date

# Through the SDK transport, each test needs its provider's SDK.
pytestmark = needs_sdk()


@pytest.fixture(params=TRANSPORTS)
def transport(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("JURY_TRANSPORT", request.param)
    return str(request.param)


@pytest.fixture(params=FIRST_PARTY)
def spec(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.mark.parametrize(
    "fault",
    [
        Fault.http(500),
        Fault.http(502),
        Fault.http(503),
        Fault.http(504),
        Fault.http(529),
        Fault.http(408),
        Fault.http(409),
        Fault.drop(),
        Fault.malformed(),
    ],
    ids=lambda f: f"{f.kind}-{f.status}" if f.status else f.kind,
)
async def test_a_transient_fault_is_retried_until_the_call_succeeds(
    server: FakeProviderServer, spec: str, transport: str, fault: Fault
) -> None:
    server.inject(fault, model=model_id(spec), times=2)
    clock = FakeClock()
    verdict = await judge(panel(spec), clock)
    vote = verdict.votes[0]
    assert vote.status is VoteStatus.VALID
    assert vote.calls.attempts == 3
    assert len(server.requests_for(model_id(spec))) == 3
    # Two backoffs, full jitter under base * 2**n.
    assert len(clock.sleeps) == 2
    assert 0 <= clock.sleeps[0] <= 1.0
    assert 0 <= clock.sleeps[1] <= 2.0


async def test_a_fault_that_persists_makes_the_vote_unavailable_not_a_fail(
    server: FakeProviderServer, spec: str, transport: str
) -> None:
    server.inject(Fault.http(503), model=model_id(spec), times=None)
    verdict = await judge(panel(spec))
    vote = verdict.votes[0]
    assert vote.status is VoteStatus.UNAVAILABLE
    assert vote.calls.attempts == 3
    assert "503" in (vote.error or "")
    assert verdict.verdict is Verdict.INCONCLUSIVE


@pytest.mark.parametrize("status", [400, 422])
async def test_an_invalid_request_is_not_retried(
    server: FakeProviderServer, spec: str, transport: str, status: int
) -> None:
    server.inject(Fault.http(status, message="bad request"), model=model_id(spec), times=None)
    vote = (await judge(panel(spec))).votes[0]
    assert vote.status is VoteStatus.UNAVAILABLE
    assert vote.calls.attempts == 1
    assert len(server.requests) == 1
    assert str(status) in (vote.error or "")


async def test_a_404_on_a_models_first_call_is_not_retried_and_stops_the_run(
    server: FakeProviderServer, spec: str, transport: str
) -> None:
    server.inject(Fault.http(404, message="no such model"), model=model_id(spec), times=None)
    with pytest.raises(JurorUnusable) as raised:
        await judge(panel(spec))
    assert raised.value.attempts == 1
    assert len(server.requests) == 1
    assert raised.value.error.status == 404


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry_after": 7}, 7.0),
        ({"retry_after_ms": 2500}, 2.5),
        # retry-after-ms is the more precise of the two when both come.
        ({"retry_after": 3, "retry_after_ms": 2750}, 2.75),
    ],
)
async def test_retry_after_is_honoured(
    server: FakeProviderServer,
    spec: str,
    transport: str,
    headers: dict[str, float],
    expected: float,
) -> None:
    server.inject(Fault.http(429, **headers), model=model_id(spec))  # type: ignore[arg-type]
    clock = FakeClock()
    vote = (await judge(panel(spec), clock)).votes[0]
    assert vote.status is VoteStatus.VALID
    assert vote.calls.attempts == 2
    # The engine waited at least what the server asked (backoff can only add to it).
    assert clock.sleeps
    assert clock.sleeps[-1] >= expected
    assert clock.sleeps[-1] <= max(expected, 1.0)


@pytest.mark.parametrize("spec", [FIRST_PARTY[1]])
async def test_retry_after_as_an_http_date_is_honoured(
    server: FakeProviderServer, spec: str, transport: str
) -> None:
    server.inject(Fault.http(429, retry_after=retry_after_date(30)), model=model_id(spec))
    clock = FakeClock()
    vote = (await judge(panel(spec), clock)).votes[0]
    assert vote.calls.attempts == 2
    # An HTTP date has one-second resolution.
    assert 28.0 <= clock.sleeps[-1] <= 31.0


async def test_a_retry_after_beyond_the_cap_gives_up_at_once(
    server: FakeProviderServer, spec: str, transport: str
) -> None:
    server.inject(Fault.http(429, retry_after=3600), model=model_id(spec), times=None)
    clock = FakeClock()
    p = panel(spec, retry=RetrySettings(attempts=5, retry_after_cap=120, second_chance=False))
    vote = (await judge(p, clock)).votes[0]
    assert vote.status is VoteStatus.UNAVAILABLE
    assert vote.calls.attempts == 1
    assert "429" in (vote.error or "")
    # Nothing was slept for: the run does not stall an hour on one juror.
    assert sum(clock.sleeps) < 3600


async def test_a_hung_call_times_out_and_is_retried(
    server: FakeProviderServer, spec: str, transport: str
) -> None:
    # 1 s, not less: on a loaded CI machine a good call through the SDK transport took over
    # 0.3 s, and the test measured the machine rather than the retry.
    p = panel(spec, timeout=1.0)
    async with Jury(p, clock=FakeClock(), rng=random.Random(7)) as jury:
        # A first call opens the connections and imports the SDK, so that the timeout below
        # measures the hang, not a cold start (which may itself time out on a busy machine:
        # only the requests after the fault is injected are counted).
        assert (await jury.judge(CASE)).votes[0].status is VoteStatus.VALID
        warm = len(server.requests)
        server.inject(Fault.hang(), model=model_id(spec))
        vote = (await jury.judge(CASE)).votes[0]
    assert vote.status is VoteStatus.VALID
    assert vote.calls.attempts == 2
    assert [r.fault for r in server.requests[warm:]] == ["hang", None]


async def test_latency_is_waited_for_and_measured(
    server: FakeProviderServer, spec: str, transport: str
) -> None:
    server.inject(Fault.latency(0.05), model=model_id(spec))
    vote = (await judge(panel(spec))).votes[0]
    assert vote.status is VoteStatus.VALID
    assert vote.calls.latency_s >= 0.05


@pytest.mark.parametrize(
    "fault", [Fault.truncated(), Fault.out_of_range(), Fault.missing()], ids=lambda f: f.kind
)
async def test_a_bad_reply_is_asked_again(
    server: FakeProviderServer, spec: str, transport: str, fault: Fault
) -> None:
    server.inject(fault, model=model_id(spec))
    vote = (await judge(panel(spec))).votes[0]
    assert vote.status is VoteStatus.VALID
    assert vote.calls.reasks == 1
    assert vote.calls.attempts == 2
    # The re-ask carries the bad reply and says what was wrong with it.
    second = server.requests[1].body
    assert "could not be used" in str(second)


@pytest.mark.parametrize("fault", [Fault.out_of_range(), Fault.missing()], ids=lambda f: f.kind)
async def test_a_reply_bad_every_time_is_an_invalid_vote_with_the_raw_reply_kept(
    server: FakeProviderServer, spec: str, transport: str, fault: Fault
) -> None:
    server.inject(fault, model=model_id(spec), times=None)
    verdict = await judge(panel(spec, reasks=2))
    vote = verdict.votes[0]
    assert vote.status is VoteStatus.INVALID
    assert vote.calls.reasks == 2
    assert vote.raw is not None
    if fault.kind == "out_of_range":
        assert '"relevance": 10' in vote.raw
    else:
        assert "relevance" not in vote.raw
    # Never clamped, never defaulted: an invalid vote is not a FAIL.
    assert verdict.verdict is Verdict.INCONCLUSIVE


@pytest.mark.parametrize("status", [401, 403])
async def test_authentication_failure_stops_the_run_naming_the_variable(
    server: FakeProviderServer, spec: str, transport: str, status: int
) -> None:
    # The server echoes the key, as some do: it must still appear nowhere.
    server.inject(Fault.http(status, message=f"bad key {FAKE_KEY}"), times=None)
    with pytest.raises(AuthenticationError) as caught:
        await judge(panel(spec))
    expected = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
    assert caught.value.variable == expected.get(spec.partition("/")[0], "GOOGLE_API_KEY")
    assert caught.value.status == status
    assert FAKE_KEY not in str(caught.value)
    assert len(server.requests) == 1
