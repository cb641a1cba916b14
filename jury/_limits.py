"""Limits per provider account, shared by every juror on that account."""

from __future__ import annotations

import asyncio
from types import TracebackType

from ._clock import Clock
from ._panel import ProviderLimits

__all__ = ["AccountLimiter"]


class AccountLimiter:
    """Bounds the calls in flight on one account. Used as ``async with limiter:``."""

    __slots__ = ("_clock", "_semaphore", "limits")

    def __init__(self, limits: ProviderLimits | None, clock: Clock) -> None:
        self.limits = limits or ProviderLimits()
        self._clock = clock
        self._semaphore = (
            asyncio.Semaphore(self.limits.concurrency) if self.limits.concurrency else None
        )

    async def __aenter__(self) -> None:
        if self._semaphore is not None:
            await self._semaphore.acquire()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._semaphore is not None:
            self._semaphore.release()

    def rate_limited(self, retry_after: float | None) -> None:
        """A 429 arrived on this account: callers should slow down."""
