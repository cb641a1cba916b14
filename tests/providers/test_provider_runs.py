"""Whole runs through real adapters: failover to another family, the CLI stopping on a bad
key, credentials that never leak."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import structlog
from provider_helpers import ANTHROPIC, GOOGLE, OPENAI, judge, model_id, panel, run_cli

from conftest import FAKE_KEY
from jury import Juror, JurorUnusable, MissingCredentialError, Verdict, VoteStatus
from jury._logging import configure_logging
from jury.testing import FakeProviderServer, Fault

ROOT = Path(__file__).resolve().parents[2]


async def test_a_provider_that_is_down_fails_over_to_another_family(
    server: FakeProviderServer,
) -> None:
    server.inject(Fault.http(503), model=model_id(ANTHROPIC), times=None)
    juror = Juror(model=ANTHROPIC, fallbacks=(OPENAI,))
    verdict = await judge(panel(juror, GOOGLE, quorum=2))
    first, second = verdict.votes
    assert first.juror == ANTHROPIC
    assert first.status is VoteStatus.VALID
    # The vote says who served it: the fallback, of another family.
    assert first.served_by == model_id(OPENAI)
    # Three attempts on the model that was down, one on the fallback.
    assert first.calls.attempts == 4
    assert [r.provider for r in server.requests].count("anthropic") == 3
    assert second.served_by == model_id(GOOGLE)
    assert verdict.verdict is Verdict.PASS


async def test_first_party_votes_are_priced_and_compatible_servers_are_unknown(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Replies as a real server sends them (the fake's own are priced $0: test_fake_replies.py).
    server.mark = False
    monkeypatch.setenv("ACME_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("ACME_API_KEY", "acme-key-0123456789")
    compatible = "openai-api/acme/llama-3.1-8b-instruct"
    verdict = await judge(panel(ANTHROPIC, OPENAI, GOOGLE, compatible))
    costs = {vote.juror: vote.calls.cost for vote in verdict.votes}
    for spec in (ANTHROPIC, OPENAI, GOOGLE):
        cost = costs[spec]
        assert cost is not None
        assert 0 < cost < 0.01
    # Unknown, never zero.
    assert costs[compatible] is None


async def test_when_every_alternate_fails_the_vote_is_unavailable_with_every_error(
    server: FakeProviderServer,
) -> None:
    server.inject(Fault.http(503), model=model_id(ANTHROPIC), times=None)
    server.inject(Fault.http(400, message="bad schema"), model=model_id(OPENAI), times=None)
    verdict = await judge(panel(Juror(model=ANTHROPIC, fallbacks=(OPENAI,))))
    vote = verdict.votes[0]
    assert vote.status is VoteStatus.UNAVAILABLE
    assert "503" in (vote.error or "")
    assert "400" in (vote.error or "")
    assert vote.calls.attempts == 4
    assert verdict.verdict is Verdict.INCONCLUSIVE


def test_a_missing_key_is_a_configuration_error_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from jury import Jury

    for variable in ("ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(variable, raising=False)
    with pytest.raises(MissingCredentialError, match="ANTHROPIC_API_KEY") as caught:
        Jury(panel(ANTHROPIC))
    assert caught.value.variable == "ANTHROPIC_API_KEY"
    with pytest.raises(MissingCredentialError, match="GOOGLE_API_KEY or GEMINI_API_KEY"):
        Jury(panel(GOOGLE))


@pytest.mark.timeout(60)
async def test_a_rejected_key_stops_the_cli_with_exit_2_naming_the_variable(
    server: FakeProviderServer, tmp_path: Path
) -> None:
    server.inject(Fault.http(401, message=f"invalid x-api-key {FAKE_KEY}"), times=None)
    code, output = await run_cli(
        server, tmp_path, f'jurors = ["{ANTHROPIC}", "{OPENAI}"]\nconcurrency = 1\n'
    )
    assert code == 2, output
    assert "ANTHROPIC_API_KEY" in output or "OPENAI_API_KEY" in output
    assert "authentication failed" in output
    assert FAKE_KEY not in output
    # The run stopped: no retries of a rejected key, no case after it.
    assert len(server.requests) <= 2


@pytest.mark.timeout(60)
async def test_the_cli_judges_with_real_adapters_and_logs_no_key(
    server: FakeProviderServer, tmp_path: Path
) -> None:
    code, output = await run_cli(
        server, tmp_path, f'jurors = ["{ANTHROPIC}", "{OPENAI}", "{GOOGLE}"]\n'
    )
    assert code == 0, output
    assert len(server.requests) == 3
    assert FAKE_KEY not in output


async def test_no_log_line_or_vote_carries_the_key(server: FakeProviderServer) -> None:
    stream = io.StringIO()
    configure_logging(2, json=True, stream=stream)
    try:
        server.inject(Fault.http(503, message=f"upstream said {FAKE_KEY}"), times=None)
        verdict = await judge(panel(OPENAI))
        # The same error on every attempt of a first call stops the run: its message too.
        server.clear()
        server.inject(Fault.http(500, message=f"upstream said {FAKE_KEY}"), times=None)
        with pytest.raises(JurorUnusable) as stopped:
            await judge(panel(OPENAI))
    finally:
        structlog.reset_defaults()
    assert verdict.votes[0].status is VoteStatus.UNAVAILABLE
    assert FAKE_KEY not in verdict.model_dump_json()
    assert "upstream said" in str(stopped.value)
    assert FAKE_KEY not in str(stopped.value)
    assert FAKE_KEY not in stream.getvalue()
    assert FAKE_KEY not in json.dumps([r.headers for r in server.requests])
