"""``x-should-retry``: the anthropic and openai SDKs obey it before any rule of their own
(``_base_client.py``, ``_should_retry``: "If the server explicitly says whether or not to
retry, obey"). Their adapters do the same on both transports; an account stop still stops."""

from __future__ import annotations

import pytest
from extras import needs_sdk
from provider_helpers import ANTHROPIC, GOOGLE, OPENAI, judge, model_id, panel

from jury import AuthenticationError, VoteStatus
from jury.testing import FakeClock, FakeProviderServer, Fault


@pytest.fixture(params=["sdk", "direct"])
def transport(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("JURY_TRANSPORT", request.param)
    return str(request.param)


@needs_sdk()
@pytest.mark.parametrize("spec", [ANTHROPIC, OPENAI])
async def test_a_server_error_the_server_says_not_to_retry_is_asked_once(
    server: FakeProviderServer, transport: str, spec: str
) -> None:
    server.inject(Fault.http(500, should_retry=False), model=model_id(spec), times=None)
    vote = (await judge(panel(spec), FakeClock())).votes[0]
    assert vote.status is VoteStatus.UNAVAILABLE
    assert vote.calls.attempts == 1
    assert "x-should-retry: false" in str(vote.error)


@needs_sdk()
@pytest.mark.parametrize("spec", [ANTHROPIC, OPENAI])
async def test_a_refusal_the_server_says_to_retry_is_asked_again(
    server: FakeProviderServer, transport: str, spec: str
) -> None:
    server.inject(Fault.http(400, should_retry=True), model=model_id(spec))
    vote = (await judge(panel(spec), FakeClock())).votes[0]
    assert vote.status is VoteStatus.VALID, vote.error
    assert [r.status for r in server.requests] == [400, 200]


@needs_sdk("google")
async def test_gemini_whose_sdk_reads_no_such_header_retries_by_status(
    server: FakeProviderServer, transport: str
) -> None:
    server.inject(Fault.http(503, should_retry=False), model=model_id(GOOGLE), times=None)
    vote = (await judge(panel(GOOGLE), FakeClock())).votes[0]
    assert vote.calls.attempts == 3


@needs_sdk("anthropic")
async def test_a_rejected_key_stops_the_run_even_when_the_server_says_to_retry(
    server: FakeProviderServer, transport: str
) -> None:
    server.inject(Fault.http(401, should_retry=True), model=model_id(ANTHROPIC), times=None)
    with pytest.raises(AuthenticationError):
        await judge(panel(ANTHROPIC), FakeClock())
    assert len(server.requests) == 1
