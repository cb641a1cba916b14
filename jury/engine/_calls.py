"""The call layer: one request to one model, and what it cost.

A `Caller` owns everything between the vote layer and an adapter for one model, in this
order: cache -> budget -> account limiter -> timeout -> retry (honouring ``retry-after``) ->
price. It returns the reply and adds the call's accounting to a `CallStats`, the one type in
which calls are counted everywhere (a vote's calls, a juror's over a run, a run's).

Failures and rate limits are retried on two different budgets: a failure (5xx, timeout, a
broken body) uses up one of `retry.attempts`; a 429 does not, it only costs time, and a call
keeps waiting out 429s for up to `retry.rate_limit_wait` seconds. A busy account therefore
slows a run down without turning its cases INCONCLUSIVE. An account that cannot serve at all
(a rejected key, a quota no retry clears) stops the run.

The cache is keyed by the model's endpoint as well as the request (`call_key`), so a reply is
reused only for the same server spoken to the same way; a reply of `jury.testing`'s fake is
kept under its own key and served only while that server is the fake (`FakeServers`), costs
$0, and is counted (`CallStats.fake`, `CallStats.cached_from`) so that every output says so.

`CallLayer` builds the callers of one `Jury`: a caller per model, one limiter per provider
account (shared by every juror on it), and one budget for the run. The shape is Inspect AI's
`Model` over `ModelAPI`: adapters never retry, sleep or cache; this module does, once.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace

from .._clock import Clock
from .._errors import (
    AccountError,
    BatchFailedError,
    CallFailed,
    InvalidRequestError,
    JurorUnusable,
    OverBudget,
    ProviderError,
    RateLimitedError,
    SettingRefusedError,
    TransientError,
    UnreachableError,
)
from .._verdict import CallStats
from ..adapters._model import JudgeModel
from ..adapters._request import CallCache, JudgeReply, JudgeRequest, call_key, fake_key
from ..panel._panel import Panel, RetrySettings
from ._fake_servers import FakeServers
from ._limits import AccountLimiter, limits_for

__all__ = [
    "Budget",
    "CallFailed",
    "CallLayer",
    "Caller",
    "OverBudget",
    "StopSignal",
    "stop_calls",
]


class Budget:
    """The most a run may spend (USD), and what it has spent on calls with a known price.

    A reply of `jury.testing`'s fake costs nothing, but with a `limit` it is counted here at
    the price the real API would charge for it (`fake`: how much of `spent` that is), so that
    ``--max-cost`` tried against the fake stops the run where a real one would stop."""

    __slots__ = ("fake", "limit", "spent")

    def __init__(self, limit: float | None) -> None:
        self.limit = limit
        self.spent = 0.0
        self.fake = 0.0

    @property
    def exhausted(self) -> bool:
        return self.limit is not None and self.spent >= self.limit


class StopSignal:
    """Set when the stream of verdicts that started a call is left."""

    __slots__ = ("stopped",)

    def __init__(self) -> None:
        self.stopped = False


#: The stop signal of the stream of verdicts the current task judges for, if any: a consumer
#: that leaves the stream sets it, and no call of that stream starts afterwards, even in a
#: task whose cancellation has not been delivered yet.
_STOP: ContextVar[StopSignal | None] = ContextVar("jury_stop", default=None)


@contextmanager
def stop_calls() -> Iterator[StopSignal]:
    """A stop signal for the calls made in this context (and the tasks it starts)."""
    stop = StopSignal()
    token = _STOP.set(stop)
    try:
        yield stop
    finally:
        _STOP.reset(token)


def _backoff(
    retry: RetrySettings, rng: random.Random, attempt: int, error: ProviderError
) -> float | None:
    """Seconds to wait before the next attempt, or None to give up.

    Exponential backoff with full jitter; a server's retry-after is a floor, and one beyond
    the cap means the call gives up rather than stall the run.
    """
    backoff = rng.uniform(0, min(retry.max_delay, retry.base_delay * 2 ** (attempt - 1)))
    if isinstance(error, RateLimitedError) and error.retry_after is not None:
        if error.retry_after > retry.retry_after_cap:
            return None
        return max(error.retry_after, backoff)
    return backoff


def _out_of_time(error: RateLimitedError, waited: float, retry: RetrySettings) -> ProviderError:
    return RateLimitedError(
        f"{error} (still rate-limited after {waited:.0f}s of waiting; "
        f"retry.rate_limit_wait is {retry.rate_limit_wait:g}s)",
        retry_after=error.retry_after,
        status=error.status,
    )


class Caller:
    """One model behind the engine's rules. `call` sends one request and returns its reply;
    it raises `CallFailed` when the model fails for good, `JurorUnusable` when it does so
    before any call of it has worked (a configuration that cannot work), `AccountError` when
    the account cannot serve (a rejected key, no quota), `OverBudget` when the run may spend
    no more."""

    __slots__ = (
        "_budget",
        "_cache",
        "_clock",
        "_endpoint",
        "_limiter",
        "_limiter_of",
        "_prepared",
        "_preparing",
        "_retry",
        "_rng",
        "_served",
        "_servers",
        "_sources",
        "_stopped",
        "_timeout",
        "_worked",
        "model",
    )

    def __init__(
        self,
        model: JudgeModel,
        limiter: Callable[[JudgeModel], AccountLimiter],
        *,
        cache: CallCache | None,
        budget: Budget,
        clock: Clock,
        retry: RetrySettings,
        timeout: float,
        rng: random.Random,
        servers: FakeServers | None = None,
    ) -> None:
        self.model = model
        self._servers = servers if servers is not None else FakeServers()
        self._endpoint = model.endpoint
        self._sources: dict[bool, str] = {}
        # The account's limiter is taken once the model is prepared (`JudgeModel.prepare`):
        # a server may say how many calls it serves at once.
        self._limiter_of = limiter
        self._limiter: AccountLimiter | None = None
        self._prepared = False
        self._preparing = asyncio.Lock()
        # Offline jurors and replays cost nothing and answer the same way: not worth a row.
        self._cache = cache if not model.offline else None
        self._budget = budget
        self._clock = clock
        self._retry = retry
        self._timeout = timeout
        self._rng = rng
        # `served_by` of a vote that one model served, built once per model: one tuple less
        # for the garbage collector to track on every call.
        self._served: dict[str, tuple[str, ...]] = {}
        # Whether a live call of this model has worked in this run: until one has, a failure
        # for good is a configuration that cannot work, and stops the run (`JurorUnusable`).
        self._worked = False
        self._stopped: JurorUnusable | None = None

    async def _prepare(self) -> AccountLimiter:
        """Prepare the model once (its first callers wait for it): then its endpoint, which
        keys its replies, and its account's limiter are what the server said."""
        async with self._preparing:
            if not self._prepared:
                await self.model.prepare()
                self._endpoint = self.model.endpoint
                # Where a cached reply came from, as `CallStats.cached_from` says it: a real
                # reply was made at this endpoint (it is in its key), a fake one by the fake.
                url = self._endpoint.url
                self._sources = {False: url, True: f"FAKE {url}"}
                self._limiter = self._limiter_of(self.model)
                self._prepared = True
        assert self._limiter is not None
        return self._limiter

    async def call(self, request: JudgeRequest, sample: int, stats: CallStats) -> JudgeReply:
        if not self._prepared:
            await self._prepare()
        cache = self._cache
        if cache is None:
            return await self._live(request, stats, None)
        key = call_key(self.model.name, request, sample, endpoint=self._endpoint)
        cached = await cache.get(key)
        if cached is None and self._servers.known(self._endpoint) is not False:
            # A reply of the fake, served only while the fake is the server there now.
            cached = await cache.get(fake_key(key))
            if cached is not None and not await self._servers.is_fake(self._endpoint):
                cached = None
        if cached is None:
            return await self._live(request, stats, key)
        stats.cache_hits += 1
        stats.cached(self._sources[cached.fake])
        self._count(cached, stats)
        return cached

    async def _live(self, request: JudgeRequest, stats: CallStats, key: str | None) -> JudgeReply:
        """Ask the model (no cache), count and price the reply, and keep it under `key`."""
        reply = await self._attempts(request, stats)
        # A batch run's request sent before (in batches that expired or errored): each send
        # was an attempt at the provider, as the request's story says.
        stats.attempts += reply.sends - 1
        if reply.batch is None:
            self._servers.learn(self._endpoint, reply.fake)
        # Offline jurors (reference heuristics, replayed records) and the fake cost nothing.
        cost = 0.0 if self.model.offline or reply.fake else self.model.price(reply)
        self._spend(reply, cost)
        stats.paid(cost)
        if reply.batch is not None:
            stats.batched += 1
            # The same reply priced as an online call: what the batch saved.
            online = self.model.price(replace(reply, batch=None))
            stats.saved(None if online is None or cost is None else online - cost)
        self._count(reply, stats)
        if key is not None and self._cache is not None:
            where = fake_key(key) if reply.fake else key
            await self._cache.put(where, self.model.name, request, reply)
        return reply

    def _spend(self, reply: JudgeReply, cost: float | None) -> None:
        """Count a reply against the run's budget: the fake's at the real API's price (see
        `Budget`), though it is paid and reported as $0."""
        if reply.fake and not self.model.offline and self._budget.limit is not None:
            # The adapter prices a reply of the fake at $0: priced here as the real API's (only
            # for a budget: the price table costs a run 7 MB, which nothing else here needs).
            cost = self.model.price(replace(reply, fake=False))
            self._budget.fake += cost or 0.0
        if cost is not None:
            self._budget.spent += cost

    def _unusable(self, error: ProviderError, attempts: int) -> JurorUnusable:
        """The run's stop for a model whose first calls failed for good; every other call of
        it in flight raises the same at its next attempt."""
        if self._stopped is None:
            model = self.model
            self._stopped = JurorUnusable(
                model.name, model.endpoint.url, error, model.fix_for(error), attempts=attempts
            )
        return self._stopped

    def _count(self, reply: JudgeReply, stats: CallStats) -> None:
        usage = reply.usage
        stats.input_tokens += usage.input_tokens
        stats.output_tokens += usage.output_tokens
        stats.cached_tokens += usage.cached_tokens
        stats.thinking_tokens += usage.thinking_tokens
        if reply.fake:
            stats.fake += 1
        served = reply.model or self.model.name
        if not stats.served_by:
            one = self._served.get(served)
            if one is None:
                one = self._served[served] = (served,)
            stats.served_by = one
        else:
            stats.served(served)

    async def _attempts(self, request: JudgeRequest, stats: CallStats) -> JudgeReply:
        model, retry = self.model, self._retry
        limiter = self._limiter or await self._prepare()
        stop = _STOP.get()
        attempt = failures = throttles = 0
        limited_since: float | None = None
        # What each failed attempt said, while no call of this model has worked yet.
        said: set[str] = set()
        while True:
            if stop is not None and stop.stopped:
                raise asyncio.CancelledError
            if self._stopped is not None:  # another call found the model unusable
                raise self._stopped
            if self._budget.exhausted:
                raise OverBudget
            attempt += 1
            stats.attempts += 1
            started = time.perf_counter()
            try:
                # The slot is sized by the request so that a tokens-per-minute limit can
                # pace it; waiting for it counts neither against the attempt's timeout nor
                # in the call's latency.
                async with limiter.slot(request):
                    started = time.perf_counter()
                    async with asyncio.timeout(self._timeout):
                        reply = await model.complete(request)
            except TimeoutError:
                error: ProviderError = TransientError(f"no reply within {self._timeout:g}s")
            except Exception as exc:  # every foreign error goes through the classifier
                error = model.classify_error(exc)
            else:
                stats.latency_s += time.perf_counter() - started
                if reply.rate_limits:
                    limiter.learn(reply.rate_limits)
                self._worked = True
                return reply
            stats.latency_s += time.perf_counter() - started
            if isinstance(error, BatchFailedError) and error.sends > 1:
                # Asked once here, but sent in that many batches: each was an attempt at the
                # provider, counted so that the attempts agree with what its error says.
                stats.attempts += error.sends - 1
                attempt += error.sends - 1
            if isinstance(error, AccountError):
                raise error
            if not self._worked and _permanent(error):
                raise self._unusable(error, attempt)
            if isinstance(error, RateLimitedError):
                # A 429 costs time, not an attempt: wait it out within the call's budget.
                limiter.rate_limited(error.retry_after, error.rate_limits)
                throttles += 1
                now = self._clock.monotonic()
                limited_since = now if limited_since is None else limited_since
                delay = _backoff(retry, self._rng, throttles, error)
                if delay is None:
                    raise CallFailed(model.name, error, attempt)
                if now + delay - limited_since > retry.rate_limit_wait:
                    waited = now - limited_since
                    raise CallFailed(model.name, _out_of_time(error, waited, retry), attempt)
                await self._clock.sleep(delay)
                continue
            failures += 1
            if not self._worked:
                said.add(str(error))
            if not isinstance(error, TransientError) or failures >= retry.attempts:
                if not self._worked and _never_served(error, said, failures):
                    raise self._unusable(error, failures)
                raise CallFailed(model.name, error, attempt)
            delay = _backoff(retry, self._rng, failures, error)
            if delay is None:
                raise CallFailed(model.name, error, attempt)
            await self._clock.sleep(delay)


def _permanent(error: ProviderError) -> bool:
    """A failure no later call of the model escapes: a setting refused by name, or a model or
    path the server does not have."""
    if isinstance(error, SettingRefusedError):
        return True
    return isinstance(error, InvalidRequestError) and error.status in (404, 405)


def _never_served(error: ProviderError, said: set[str], failures: int) -> bool:
    """Whether a call's failure for good, before any call of its model worked, says the
    model cannot work: nothing answered at all, or the server gave the same internal error
    (500, 501) to every attempt, as a server answers a request it cannot handle (a model
    that failed to load, a request its code cannot take). 502, 503, 504 and 529 say "busy"
    or "down for now": an outage at the start of a run is not a configuration error, and its
    votes get their second chance."""
    if isinstance(error, UnreachableError):
        return True
    return failures > 1 and len(said) == 1 and error.status in (500, 501)


class CallLayer:
    """The callers of one jury: one per model, sharing a limiter per account and a budget."""

    def __init__(
        self,
        panel: Panel,
        *,
        clock: Clock,
        rng: random.Random,
        cache: CallCache | None,
        max_cost: float | None,
    ) -> None:
        self.panel = panel
        self.clock = clock
        self.cache = cache
        self.budget = Budget(max_cost)
        self._rng = rng
        self._limiters: dict[str, AccountLimiter] = {}
        self._callers: dict[int, Caller] = {}
        self.servers = FakeServers()

    def caller(self, model: JudgeModel) -> Caller:
        caller = self._callers.get(id(model))
        if caller is None:
            caller = self._callers[id(model)] = Caller(
                model,
                self.limiter,
                cache=self.cache,
                budget=self.budget,
                clock=self.clock,
                retry=self.panel.retry,
                timeout=self.panel.timeout,
                rng=self._rng,
                servers=self.servers,
            )
        return caller

    def limiter(self, model: JudgeModel) -> AccountLimiter:
        limiter = self._limiters.get(model.account)
        if limiter is None:
            limits = limits_for(model, self.panel.providers)
            limiter = self._limiters[model.account] = AccountLimiter(limits, self.clock)
        return limiter

    async def aclose(self) -> None:
        for caller in self._callers.values():
            await caller.model.aclose()
