"""Account stops end the run the first time they are seen, naming what to fix (issue 22):
a Gemini key Google refuses (400 INVALID_ARGUMENT, API_KEY_INVALID, not a 401), and
Anthropic's spend limit set by the user (400), billing (402) and contract spend limit (429,
not a rate limit). Each through both transports, against the strict fake's renderings."""

from __future__ import annotations

from pathlib import Path

import pytest
from extras import needs_sdk
from provider_helpers import ANTHROPIC, GOOGLE, judge, model_id, panel, run_cli

from conftest import FAKE_KEY
from jury import AuthenticationError, QuotaExhaustedError
from jury.testing import FakeProviderServer, Fault


@pytest.fixture(params=["sdk", "direct"])
def transport(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("JURY_TRANSPORT", request.param)
    return str(request.param)


@needs_sdk("google")
async def test_a_gemini_key_google_refuses_stops_the_run_naming_google_api_key(
    server: FakeProviderServer, transport: str
) -> None:
    server.rejected_keys.add(FAKE_KEY)
    with pytest.raises(AuthenticationError) as caught:
        await judge(panel(GOOGLE))
    assert caught.value.variable == "GOOGLE_API_KEY"
    assert "API_KEY_INVALID" in str(caught.value)
    assert "GOOGLE_API_KEY" in str(caught.value)
    # Asked once: a refused key is not an invalid request to retry or to skip past.
    assert [r.status for r in server.requests] == [400]


@needs_sdk("google")
async def test_a_refused_key_read_from_gemini_api_key_names_that_variable(
    server: FakeProviderServer, transport: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GOOGLE_API_KEY")
    monkeypatch.setenv("GEMINI_API_KEY", FAKE_KEY)
    server.rejected_keys.add(FAKE_KEY)
    with pytest.raises(AuthenticationError) as caught:
        await judge(panel(GOOGLE))
    assert caught.value.variable == "GEMINI_API_KEY"


@needs_sdk("anthropic")
@pytest.mark.parametrize(
    ("which", "status", "words"),
    [
        ("usage_limits", 400, "Settings > Limits"),
        ("billing", 402, "Settings > Billing"),
        ("contract_spend_limit", 429, "contract"),
    ],
)
async def test_an_anthropic_account_stop_ends_the_run_at_the_first_call(
    server: FakeProviderServer, transport: str, which: str, status: int, words: str
) -> None:
    server.inject(Fault.account(which), model=model_id(ANTHROPIC), times=None)
    with pytest.raises(QuotaExhaustedError) as caught:
        await judge(panel(ANTHROPIC))
    assert caught.value.status == status
    assert words in str(caught.value)
    # Not retried: a 429 contract limit is no rate limit, a 400 usage limit no bad request.
    assert [r.status for r in server.requests] == [status]


@pytest.mark.timeout(60)
async def test_a_refused_gemini_key_stops_the_cli_with_exit_2_the_first_time(
    server: FakeProviderServer, tmp_path: Path
) -> None:
    server.rejected_keys.add(FAKE_KEY)
    code, output = await run_cli(server, tmp_path, f'jurors = ["{GOOGLE}"]\n')
    assert code == 2, output
    assert "GOOGLE_API_KEY" in output
    assert "authentication failed" in output
    assert FAKE_KEY not in output
    assert len(server.requests) == 1
