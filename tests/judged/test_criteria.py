"""Criteria per test, the way an agent harness writes them: run by `test_pytest_plugin.py`
with --jury under pytest-asyncio strict mode (the markers below), auto mode and anyio. A
plain `pytest` skips them: they are judged tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from jury import Jury
from jury.pytest_plugin import Judge, JudgeUnavailable, JuryAssertionError
from jury.testing import FakeClock

REPLY = "Yes: ORD-102 arrived 20 days ago, so it is within the 30-day return window."
SEEN: list[Jury] = []
HERE = Path(__file__).parent

pytestmark = [pytest.mark.asyncio, pytest.mark.jury(file=HERE / "jury.toml")]


async def test_the_reply_states_the_refund_window(judge: Judge) -> None:
    verdict = await judge.assert_criterion(REPLY, "states the refund window")
    assert verdict.verdict.value == "PASS"
    SEEN.append(judge.jury)


async def test_the_reply_promises_no_exception(judge: Judge) -> None:
    await judge.assert_criterion(REPLY, "promises an exception to the return policy", refute=True)
    SEEN.append(judge.jury)


async def test_a_reply_without_the_window_fails_its_criterion(judge: Judge) -> None:
    with pytest.raises(JuryAssertionError, match="expected the answer to meet the criterion"):
        await judge.assert_criterion("We value your custom.", "states the refund window")


async def test_a_refuted_criterion_that_holds_fails(judge: Judge) -> None:
    with pytest.raises(JuryAssertionError, match="expected the answer not to meet"):
        await judge.assert_criterion(
            "We can make an exception for you.",
            "promises an exception to the return policy",
            refute=True,
        )


async def test_the_session_shares_one_jury_and_its_cache(judge: Judge) -> None:
    # Each test ran on an event loop of its own; the jury is the same one all along.
    assert SEEN
    assert all(seen is judge.jury for seen in SEEN)
    # The same question a second time is answered from the session's cache.
    again = await judge.assert_criterion(REPLY, "states the refund window")
    assert again.votes[0].calls.cache_hits == 1


@pytest.mark.jury(file=HERE / "down.toml")
async def test_an_unavailable_judge_is_no_verdict(judge: Judge, clock: FakeClock) -> None:
    slept = sum(clock.sleeps)
    with pytest.raises(JudgeUnavailable, match="down/judge unavailable"):
        await judge.assert_criterion(REPLY, "states the refund window")
    # Three retries' backoff was slept on the fake clock, not waited for.
    assert len(clock.sleeps) >= 3
    assert sum(clock.sleeps) > slept
