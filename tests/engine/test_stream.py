"""Streaming verdicts is structured: leaving the stream stops every call it started."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from conftest import case
from jury import Juror, Jury, Panel, evaluate
from jury.testing import FakeProviderServer

#: Long enough that a call started after the break would arrive well after it.
LATENCY = 0.3
MODEL = "gpt-4.1-mini-2025-04-14"


def _jury_tasks() -> set[asyncio.Task[Any]]:
    return {t for t in asyncio.all_tasks() if t.get_name().startswith("jury-")}


def _panel(concurrency: int = 8) -> Panel:
    return Panel(jurors=(Juror(model=f"openai/{MODEL}"),), concurrency=concurrency)


async def test_breaking_out_after_5_of_500_cases_starts_no_call_and_leaves_no_task(
    server: FakeProviderServer,
) -> None:
    server.latency = LATENCY
    seen = 0
    async with Jury(_panel(), checks=None) as jury:
        async for _verdict in jury.evaluate(case(f"c{i}") for i in range(500)):
            seen += 1
            if seen == 5:
                break
        left_at = server.elapsed
        sent_by_then = len(server.requests)
        await asyncio.sleep(3 * LATENCY)
        assert _jury_tasks() == set()
    late = [r.received - left_at for r in server.requests if r.received > left_at]
    # A call in flight at the break may still be read by the server a moment later; a call
    # started after it could only follow a reply, which takes LATENCY.
    assert all(delay < LATENCY / 2 for delay in late), late
    assert len(server.requests) <= sent_by_then + 8  # at most the calls in flight
    assert len(server.requests) < 5 + 2 * 8


async def test_an_exception_in_the_loop_body_stops_the_stream(server: FakeProviderServer) -> None:
    server.latency = LATENCY
    async with Jury(_panel(), checks=None) as jury:

        async def consume() -> None:
            async for _verdict in jury.evaluate(case(f"c{i}") for i in range(500)):
                raise RuntimeError("harness bug")

        with pytest.raises(RuntimeError, match="harness bug"):
            await consume()
        count = len(server.requests)
        await asyncio.sleep(3 * LATENCY)
        assert _jury_tasks() == set()
        assert len(server.requests) <= count + 8


async def test_cancelling_the_consumer_stops_the_stream(server: FakeProviderServer) -> None:
    server.latency = LATENCY
    async with Jury(_panel(), checks=None) as jury:

        async def consume() -> None:
            async for _verdict in jury.evaluate(case(f"c{i}") for i in range(500)):
                pass

        consumer = asyncio.create_task(consume())
        await asyncio.sleep(2.5 * LATENCY)
        consumer.cancel()
        with pytest.raises(asyncio.CancelledError):
            await consumer
        count = len(server.requests)
        await asyncio.sleep(3 * LATENCY)
        assert _jury_tasks() == set()
        assert len(server.requests) <= count + 8
    assert len(server.requests) < 500


async def test_async_with_makes_the_end_explicit(server: FakeProviderServer) -> None:
    server.latency = LATENCY
    async with Jury(_panel(), checks=None) as jury:
        async with jury.evaluate(case(f"c{i}") for i in range(500)) as verdicts:
            first = await anext(verdicts)
        assert first.case_id.startswith("c")
        assert _jury_tasks() == set()
        count = len(server.requests)
        await asyncio.sleep(2 * LATENCY)
        assert len(server.requests) == count
        # A stream that was left yields nothing more.
        assert [v async for v in verdicts] == []


async def test_the_convenience_stream_closes_its_own_jury(server: FakeProviderServer) -> None:
    verdicts = [v async for v in evaluate([case("a"), case("b")], _panel(), checks=None)]
    assert sorted(v.case_id for v in verdicts) == ["a", "b"]
    assert _jury_tasks() == set()
