"""OpenAI's own word on a model's shutdown (``GET /v1/models/{model}``, ``shutdown_date``) is
read once before the model's first call and said in the run's notes, with what the project's
lifecycle table said, so that a date announced after the table was written is never missed."""

from __future__ import annotations

import random

import pytest
from provider_helpers import CASE, panel

from jury import Juror, Jury, VoteStatus
from jury.testing import FakeClock, FakeProviderServer


async def learned(spec: str, transport: str = "direct") -> tuple[tuple[str, ...], VoteStatus]:
    from jury.providers.openai import create

    model = create(spec, transport=transport)
    async with Jury(panel(Juror(model=model)), clock=FakeClock(), rng=random.Random(1)) as jury:
        verdict = await jury.judge(CASE)
        return jury.learned, verdict.votes[0].status


@pytest.mark.parametrize("transport", ["direct", "sdk"])
async def test_a_shutdown_date_the_table_does_not_know_is_said(
    server: FakeProviderServer, transport: str
) -> None:
    server.shutdowns["gpt-6-luna"] = "2027-09-30"
    said, status = await learned("openai/gpt-6-luna", transport)
    assert status is VoteStatus.VALID
    assert said == (
        "openai/gpt-6-luna: OpenAI says gpt-6-luna shuts down on 2027-09-30 (GET /v1/models "
        "shutdown_date); the lifecycle table announced no date",
    )


async def test_a_date_that_differs_from_the_tables_is_said_with_both(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JURY_TODAY", "2026-12-04")
    server.shutdowns["gpt-5.1"] = "2027-05-01"  # the table: 2027-04-01 (openai SDK 3.60)
    said, _ = await learned("openai/gpt-5.1")
    assert said == (
        "openai/gpt-5.1: OpenAI says gpt-5.1 shuts down on 2027-05-01 (GET /v1/models "
        "shutdown_date); the lifecycle table said 2027-04-01",
    )


async def test_a_date_gone_by_is_said_as_past(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JURY_TODAY", "2027-10-01")
    server.shutdowns["gpt-6-luna"] = "2027-09-30"
    said, _ = await learned("openai/gpt-6-luna")
    assert "OpenAI says gpt-6-luna shut down on 2027-09-30" in said[0]


async def test_no_date_announced_says_nothing(server: FakeProviderServer) -> None:
    said, status = await learned("openai/gpt-6-luna")
    assert status is VoteStatus.VALID
    assert said == ()
