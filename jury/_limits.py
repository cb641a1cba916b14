"""Limits per provider account, shared by every juror on that account.

Three limits, each optional: calls in flight (`concurrency`), requests per minute (`rpm`) and
tokens per minute (`tpm`). Requests are spaced evenly (a generic cell-rate limiter), at 98% of
the configured rate, rather than let through in bursts: a provider that counts requests over
a sliding minute then never sees more than its limit, which a bucket that starts full cannot
promise.

When a 429 arrives the account pauses for the server's retry-after (one second when it gave
none) and, when an `rpm` is set, the pace drops by a fifth; each successful call wins back
half a percent. Every wait goes through the injectable `Clock`, so tests never really sleep.
(aiolimiter, the usual choice, reads the event loop's clock and sleeps on it directly, so a
fake clock cannot drive it; the pacing here is a dozen lines.)
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping
from types import TracebackType
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from ._clock import Clock

if TYPE_CHECKING:
    # Annotations only: the judge model imports `ProviderLimits` from here.
    from ._model import JudgeModel, JudgeRequest

__all__ = ["AccountLimiter", "ProviderLimits", "limits_for"]


class ProviderLimits(BaseModel):
    """Limits of one provider account, shared by every juror on it (the jury file's
    ``[providers.<name>]`` tables, and each judge model's `default_limits`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    concurrency: int | None = Field(default=None, ge=1)
    rpm: float | None = Field(default=None, gt=0)
    tpm: float | None = Field(default=None, gt=0)


#: How much a 429 slows the pace, the slowest pace allowed, and what each success wins back.
_SLOWDOWN = 0.8
_SLOWEST = 0.1
_RECOVERY = 0.005
#: The share of a configured rate actually used: a little under it, so that network jitter
#: cannot put one request too many into the server's sliding minute.
_HEADROOM = 0.98
#: The pause after a 429 that came without retry-after.
_DEFAULT_PAUSE = 1.0


def limits_for(model: JudgeModel, configured: Mapping[str, ProviderLimits]) -> ProviderLimits:
    """The limits of `model`'s account: the jury file's ``[providers.<name>]`` for the first
    of the model's `limit_names` it configures, over the model's `default_limits`, key by key.

    Both come from the adapter, so that the engine knows no provider by name.
    """
    default = model.default_limits
    for name in model.limit_names:
        chosen = configured.get(name)
        if chosen is not None:
            return default.model_copy(update=chosen.model_dump(exclude_unset=True))
    return default


class AccountLimiter:
    """Paces the calls of one account. ``async with limiter.slot(request):`` (or plain
    ``async with limiter:``) waits for a turn; `rate_limited` reports a 429."""

    __slots__ = (
        "_clock",
        "_next_request",
        "_next_tokens",
        "_pace",
        "_paced",
        "_paused_until",
        "_semaphore",
        "limits",
        "throttled",
    )

    def __init__(self, limits: ProviderLimits | None, clock: Clock) -> None:
        self.limits = limits or ProviderLimits()
        self._clock = clock
        self._semaphore = (
            asyncio.Semaphore(self.limits.concurrency) if self.limits.concurrency else None
        )
        self._next_request = -math.inf
        self._next_tokens = -math.inf
        self._paused_until = -math.inf
        #: The share of `rpm` currently used (lowered by 429s, regained by successes).
        self._pace = 1.0
        self._paced = bool(self.limits.rpm or self.limits.tpm)
        #: 429s reported on this account.
        self.throttled = 0

    def slot(self, request: JudgeRequest | None = None) -> _Slot | AccountLimiter:
        """A turn for one call; `request` sizes it when a `tpm` is set."""
        tokens = 0
        if not self.limits.tpm:
            return self
        if request is not None:
            # About four characters a token, plus the reply it may write.
            sent = len(request.system) + sum(len(m.content) for m in request.messages)
            tokens = sent // 4 + request.max_tokens
        return _Slot(self, tokens)

    async def __aenter__(self) -> None:
        await self.acquire(0)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release(ok=exc_type is None)

    async def acquire(self, tokens: int) -> None:
        if self._semaphore is not None:
            await self._semaphore.acquire()
        if not self._paced and self._clock.monotonic() >= self._paused_until:
            return  # no rate to keep and no pause: the common case costs nothing more
        try:
            await self._wait_turn(tokens)
        except BaseException:
            if self._semaphore is not None:
                self._semaphore.release()
            raise

    def release(self, *, ok: bool) -> None:
        if self._semaphore is not None:
            self._semaphore.release()
        if ok and self._pace < 1.0:
            self._pace = min(1.0, self._pace + _RECOVERY)

    async def _wait_turn(self, tokens: int) -> None:
        # The concurrency slot is held while waiting, so that the pace is measured at the
        # moment calls leave, not when they queued.
        while True:
            now = self._clock.monotonic()
            turn = max(now, self._paused_until)
            if self.limits.rpm:
                turn = max(turn, self._next_request)
                self._next_request = turn + 60.0 / (self.limits.rpm * _HEADROOM * self._pace)
            if self.limits.tpm and tokens:
                # A call may start once the tokens of the calls before it are paid off.
                turn = max(turn, self._next_tokens)
                self._next_tokens = turn + tokens * 60.0 / (self.limits.tpm * _HEADROOM)
            if turn <= now:
                return
            await self._clock.sleep(turn - now)
            if self._clock.monotonic() >= self._paused_until:
                return

    def rate_limited(self, retry_after: float | None) -> None:
        """A 429 arrived on this account: pause every caller, and slow the pace."""
        self.throttled += 1
        now = self._clock.monotonic()
        already_paused = now < self._paused_until
        pause = retry_after if retry_after is not None else _DEFAULT_PAUSE
        self._paused_until = max(self._paused_until, now + pause)
        # Calls in flight together meet the same limit: one slowdown per pause, not one per
        # 429 of the same burst.
        if self.limits.rpm and not already_paused:
            self._pace = max(_SLOWEST, self._pace * _SLOWDOWN)


class _Slot:
    __slots__ = ("_limiter", "_tokens")

    def __init__(self, limiter: AccountLimiter, tokens: int) -> None:
        self._limiter = limiter
        self._tokens = tokens

    async def __aenter__(self) -> None:
        await self._limiter.acquire(self._tokens)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._limiter.release(ok=exc_type is None)
