"""Time, injectable: the engine sleeps and reads the time only through a `Clock`, so tests of
retries and rate limits never really wait."""

from __future__ import annotations

import asyncio
import time

__all__ = ["Clock", "FakeClock"]


class Clock:
    """The real clock."""

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class FakeClock(Clock):
    """A clock whose sleeps return at once and advance its time; it records every sleep."""

    def __init__(self, start: float = 0.0) -> None:
        self.now = start
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += max(seconds, 0.0)
        # Yield once, as a real sleep would, so other tasks get their turn.
        await asyncio.sleep(0)
