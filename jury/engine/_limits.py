"""Limits per provider account, shared by every juror on that account.

Three limits, each optional: calls in flight (`concurrency`), requests per minute (`rpm`) and
tokens per minute (`tpm`). Requests are spaced evenly (a generic cell-rate limiter), at 98% of
the rate, rather than let through in bursts: a provider that counts requests over a sliding
minute then never sees more than its limit, which a bucket that starts full cannot promise.

The rate need not be configured: the limiter learns it. A reply's rate-limit headers
(``x-ratelimit-limit-requests``, ``anthropic-ratelimit-requests-limit``...) give it outright,
and a remaining count of zero pauses the account until the window resets. A provider that
sends no such header (Gemini) is measured instead: at the first 429, the requests the server
accepted in the minute before it are the rate, and the account is paced at it from then on.

When a 429 arrives the account pauses for the server's retry-after (one second when it gave
none) and, when it is paced, the pace drops by a fifth; each successful call wins back half a
percent. Every wait goes through the injectable `Clock`, so tests never really sleep.
(aiolimiter, the usual choice, reads the event loop's clock and sleeps on it directly, so a
fake clock cannot drive it; the pacing here is a dozen lines.)
"""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import Mapping
from datetime import datetime
from types import TracebackType
from typing import TYPE_CHECKING

from .._clock import Clock
from ..adapters._account import ProviderLimits
from ._deadline import waiting

if TYPE_CHECKING:
    from ..adapters._model import JudgeModel
    from ..adapters._request import JudgeRequest

__all__ = ["AccountLimiter", "ProviderLimits", "limits_for", "read_rate_limits"]


#: How much a 429 slows the pace, the slowest pace allowed, and what each success wins back.
_SLOWDOWN = 0.8
_SLOWEST = 0.1
_RECOVERY = 0.005
#: The share of a configured rate actually used: a little under it, so that network jitter
#: cannot put one request too many into the server's sliding minute.
_HEADROOM = 0.98
#: The pause after a 429 that came without retry-after.
_DEFAULT_PAUSE = 1.0
#: The window over which providers count requests: rate limits are per minute.
_WINDOW = 60
#: The fewest calls taken in the minute before a first 429 from which a rate is learned.
_FEWEST_TO_LEARN = 10


class RateLimitHeaders:
    """What a reply's rate-limit headers say about the request budget, whatever the provider's
    spelling: ``x-ratelimit-limit-requests`` (OpenAI) and ``anthropic-ratelimit-requests-limit``
    (Anthropic) both name the requests and the field."""

    __slots__ = ("limit", "remaining", "reset")

    def __init__(self) -> None:
        #: Requests per minute the account may make, when a header said.
        self.limit: float | None = None
        #: Requests (or tokens) left in the window, and seconds until it resets.
        self.remaining: float | None = None
        self.reset: float | None = None


_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNIT = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def _seconds(value: str, now: float | None) -> float | None:
    """A reset time as seconds from now: a number of seconds, a duration ("6m0s", "20ms",
    OpenAI's form) or an RFC 3339 time (Anthropic's)."""
    value = value.strip()
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    parts = _DURATION.findall(value)
    if parts and "".join(n + u for n, u in parts) == value:
        return sum(float(n) * _UNIT[u] for n, u in parts)
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if now is None:
        now = datetime.now(when.tzinfo).timestamp()
    return max(when.timestamp() - now, 0.0)


def read_rate_limits(
    headers: Mapping[str, str] | None, now: float | None = None
) -> RateLimitHeaders | None:
    """The request budget the headers give (`now`: the wall time, for tests), or None when
    they give none. A remaining count of tokens at zero counts as no request left."""
    if not headers:
        return None
    found = RateLimitHeaders()
    seen = False
    for name, value in headers.items():
        if "ratelimit" not in name:
            continue
        words = name.split("-")
        if "requests" in words:
            if "limit" in words:
                found.limit = _number(value)
            elif "remaining" in words:
                found.remaining = _least(found.remaining, _number(value))
            elif "reset" in words:
                found.reset = _most(found.reset, _seconds(value, now))
            else:
                continue
            seen = True
        elif "tokens" in words and "remaining" in words and _number(value) == 0:
            # Out of tokens is out of requests until the tokens' window resets.
            reset_name = name.replace("remaining", "reset")
            reset = headers.get(reset_name)
            found.remaining = 0
            found.reset = _most(found.reset, _seconds(reset, now) if reset else None)
            seen = True
    return found if seen else None


def _number(value: str) -> float | None:
    try:
        return float(value)
    except ValueError:
        return None


def _least(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else min(a, b)


def _most(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else max(a, b)


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
    ``async with limiter:``) waits for a turn; `rate_limited` reports a 429, `learn` the
    rate-limit headers of a reply."""

    __slots__ = (
        "_buckets",
        "_clock",
        "_in_flight",
        "_next_request",
        "_next_tokens",
        "_pace",
        "_paced",
        "_paused_until",
        "_rpm",
        "_second",
        "_semaphore",
        "learned_rpm",
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
        #: The share of the rate currently used (lowered by 429s, regained by successes).
        self._pace = 1.0
        #: The rate kept: the configured one, else the one learned (None: not known yet).
        self._rpm = self.limits.rpm
        self._paced = bool(self.limits.rpm or self.limits.tpm)
        #: The requests per minute learned from headers or 429s, when none is configured.
        self.learned_rpm: float | None = None
        #: Calls started per second over the last minute (while the rate is unknown), and
        #: calls not answered yet: what the server accepted before a first 429.
        self._buckets = [0] * _WINDOW
        self._second: int | None = None
        self._in_flight = 0
        #: 429s reported on this account.
        self.throttled = 0

    @property
    def rpm(self) -> float | None:
        """The requests per minute the account is paced at (configured or learned)."""
        return self._rpm

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
            if self._semaphore.locked():
                # A wait for a turn: the case's deadline does not run meanwhile.
                with waiting():
                    await self._semaphore.acquire()
            else:
                await self._semaphore.acquire()
        if not self._paced:
            now = self._clock.monotonic()
            if now >= self._paused_until:
                # No rate to keep and no pause: the common case only counts the call (inline:
                # this runs for every call of an account whose rate is not known).
                self._in_flight += 1
                second = int(now)
                if second == self._second:
                    self._buckets[second % _WINDOW] += 1
                else:
                    self._count_from(second)
                return
        try:
            with waiting():
                await self._wait_turn(tokens)
        except BaseException:
            if self._semaphore is not None:
                self._semaphore.release()
            raise

    def release(self, *, ok: bool) -> None:
        if self._semaphore is not None:
            self._semaphore.release()
        self._in_flight -= 1
        if ok and self._pace < 1.0:
            self._pace = min(1.0, self._pace + _RECOVERY)

    def _started(self, now: float) -> None:
        self._in_flight += 1
        if not self._paced:
            self._count_from(int(now))

    def _count_from(self, second: int) -> None:
        """Count a call started in `second`, clearing the seconds that passed since the last."""
        last = self._second
        if last != second:
            if last is None or second - last >= _WINDOW:
                self._buckets = [0] * _WINDOW
            else:
                for gone in range(last + 1, second + 1):
                    self._buckets[gone % _WINDOW] = 0
            self._second = second
        self._buckets[second % _WINDOW] += 1

    async def _wait_turn(self, tokens: int) -> None:
        # The concurrency slot is held while waiting, so that the pace is measured at the
        # moment calls leave, not when they queued.
        while True:
            now = self._clock.monotonic()
            turn = max(now, self._paused_until)
            rpm = self._rpm
            if rpm:
                turn = max(turn, self._next_request)
                self._next_request = turn + 60.0 / (rpm * _HEADROOM * self._pace)
            if self.limits.tpm and tokens:
                # A call may start once the tokens of the calls before it are paid off.
                turn = max(turn, self._next_tokens)
                self._next_tokens = turn + tokens * 60.0 / (self.limits.tpm * _HEADROOM)
            if turn <= now:
                self._started(now)
                return
            await self._clock.sleep(turn - now)
            if self._clock.monotonic() >= self._paused_until:
                self._started(self._clock.monotonic())
                return

    def rate_limited(
        self, retry_after: float | None, rate_limits: Mapping[str, str] | None = None
    ) -> None:
        """A 429 arrived on this account: pause every caller, learn the rate when it is not
        known, and slow the pace."""
        self.throttled += 1
        now = self._clock.monotonic()
        already_paused = now < self._paused_until
        pause = retry_after if retry_after is not None else _DEFAULT_PAUSE
        self._paused_until = max(self._paused_until, now + pause)
        if rate_limits:
            self.learn(rate_limits)
        if self._rpm is None:
            # What the server took in the minute before its first refusal is its rate: every
            # call started then, less this one and the ones still unanswered, which it may be
            # refusing too. A handful is no measure (a key shared with another program meets
            # its limit early): the pause alone answers it.
            accepted = sum(self._buckets) - self._in_flight - 1
            if accepted >= _FEWEST_TO_LEARN:
                self._set_rate(float(accepted))
            return
        # Calls in flight together meet the same limit: one slowdown per pause, not one per
        # 429 of the same burst.
        if not already_paused:
            self._pace = max(_SLOWEST, self._pace * _SLOWDOWN)

    def learn(self, rate_limits: Mapping[str, str]) -> None:
        """Rate-limit headers of a reply: the account's rate when none is configured, and a
        pause until the window resets when nothing is left of it."""
        found = read_rate_limits(rate_limits)
        if found is None:
            return
        if found.limit and not self.limits.rpm and found.limit != self.learned_rpm:
            self._set_rate(found.limit)
        if found.remaining is not None and found.remaining <= 0 and found.reset:
            self._paused_until = max(self._paused_until, self._clock.monotonic() + found.reset)

    def _set_rate(self, rpm: float) -> None:
        self.learned_rpm = self._rpm = rpm
        self._paced = True


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
