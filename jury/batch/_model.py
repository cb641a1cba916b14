"""Batch mode under the call layer: a judge model whose calls wait for a provider batch.

A batch run judges its cases in passes (``jury.batch._run``). In a pass a case runs through
the engine exactly as online: checks, prompts, votes, re-asks, validation, the decision. The
difference is below the call layer, in `BatchedModel.complete`:

- the call's reply is in the run's `BatchStore` (a batch brought it, or an online call made
  in an earlier pass): it is returned, and the call is counted and priced as it was made;
- it is not: the request is written into the model's next batch (`Batcher`), and the case is
  *deferred*: `Deferred` unwinds it, and it is judged again in a later pass, once the batch
  has ended. Its other jurors' calls have been written too by then, so one pass sends every
  first request of every case, and the next one every re-ask.
- it is larger alone than a batch of its provider may be (a case's big images: Gemini's
  inline batches hold 20 MB, where one online call takes 100 MB): no batch can carry it, so
  it is asked online at once and kept in the store as the online calls of a juror without a
  batch API are; its vote is the one the run online would have had, at the online price.

Nothing of a deferred case is held in memory between passes (a million cases wait in a file
and a database, not in coroutines), and nothing is lost: what a pass learnt is in the store.

`Deferred` is a `BaseException`, like cancellation: the vote layer never takes it for a
judge's failure. Before it unwinds a case, the case's calls still in flight online (a juror
without a batch API, or a retry under ``batch_fallback = "online"``) are waited for, so that
no paid reply is cut off (`CaseTicket`).
"""

from __future__ import annotations

import asyncio
import os
import time
from contextvars import ContextVar
from typing import IO

from .._errors import BatchFailedError, ProviderError
from ..adapters._account import ProviderLimits
from ..adapters._batch import BatchAPI
from ..adapters._endpoint import Endpoint
from ..adapters._model import JudgeModel
from ..adapters._request import CallCache, JudgeReply, JudgeRequest, call_key
from ..panel._batch_settings import BatchSettings
from ._store import BatchStore, custom_id, tokens_of

__all__ = [
    "BatchCallCache",
    "BatchFailedError",
    "BatchedModel",
    "Batcher",
    "CaseTicket",
    "Deferred",
    "case_ticket",
]


class Deferred(BaseException):
    """A call whose reply a batch will bring: the case is judged again in a later pass."""


class CaseTicket:
    """One case's calls in flight online, so that deferring it never cuts one off."""

    __slots__ = ("_idle", "online")

    def __init__(self) -> None:
        self.online = 0
        self._idle = asyncio.Event()
        self._idle.set()

    def started(self) -> None:
        self.online += 1
        self._idle.clear()

    def ended(self) -> None:
        self.online -= 1
        if not self.online:
            self._idle.set()

    async def settled(self) -> None:
        while self.online:
            await self._idle.wait()


#: The case the current task judges in a batch pass.
_TICKET: ContextVar[CaseTicket | None] = ContextVar("jury_case_ticket", default=None)


def case_ticket() -> ContextVar[CaseTicket | None]:
    return _TICKET


class Batcher:
    """Collects one model's requests into batch input files, sealing a batch when it is full
    or has collected for ``settings.collect`` seconds."""

    def __init__(
        self, model: str, index: int, api: BatchAPI, store: BatchStore, settings: BatchSettings
    ) -> None:
        self.model = model
        self.api = api
        self._index = index
        self._store = store
        self._collect = settings.collect
        self._size = min(settings.size or api.limits.requests, api.limits.requests)
        self._bytes = api.limits.bytes
        #: The most input tokens (estimated) in one batch: the run's setting, else the
        #: provider's enqueued-token limit; lowered when the provider refuses a batch for
        #: its tokens (`smaller`).
        self.tokens = settings.tokens or api.limits.tokens
        self._tokens = 0
        self._label: str | None = None
        self._file: IO[bytes] | None = None
        self._count = 0
        self._written = 0
        self._opened = 0.0

    def add(self, key: str, tries: int, case_id: str, request: JudgeRequest) -> bool:
        """Write the request into the batch being collected; False, writing nothing, for a
        request larger alone than a batch of the provider may be (a case's images: Gemini's
        inline batches take 20 MB, its online calls 100 MB), which no batch can carry."""
        line = self.api.entry(custom_id(key, tries), request) + b"\n"
        if len(line) > self._bytes:
            return False
        tokens = tokens_of(line)
        if self._file is not None and (
            self._count >= self._size
            or self._written + len(line) > self._bytes
            or (self.tokens is not None and self._tokens + tokens > self.tokens)
        ):
            self.seal()
        if self._file is None:
            self._label = self._store.next_label(self._index)
            path = self._store.open_batch(self._label, self.model)
            self._file = open(path, "wb")  # noqa: SIM115 - open until the batch is sealed
            self._count = self._written = self._tokens = 0
            self._opened = time.monotonic()
        assert self._label is not None
        self._store.queue(key, tries, self.model, case_id, self._label)
        self._file.write(line)
        self._count += 1
        self._written += len(line)
        self._tokens += tokens
        return True

    def due(self) -> bool:
        """Whether the batch being collected has waited long enough to be sent."""
        return self._file is not None and time.monotonic() - self._opened >= self._collect

    def seal(self) -> str | None:
        """Close the batch being collected: its file on disk, its rows committed."""
        if self._file is None or self._label is None:
            return None
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        label, self._label, self._file = self._label, None, None
        self._store.update(
            label, "sealed", requests=self._count, bytes=self._written, tokens=self._tokens
        )
        return label

    def smaller(self, tokens: int) -> None:
        """A batch of `tokens` was refused for its tokens: batches from now on hold at most
        half as many."""
        half = max(1, tokens // 2)
        self.tokens = half if self.tokens is None else min(self.tokens, half)


class BatchedModel(JudgeModel):
    """A juror's model in a batch run: its replies come from batches (or, without a batch
    API, from online calls kept in the run's store). See the module's docstring."""

    def __init__(
        self,
        inner: JudgeModel,
        store: BatchStore,
        batcher: Batcher | None,
        *,
        retries: int,
        fallback_online: bool,
    ) -> None:
        self.inner = inner
        # Its calls go where the inner model's do: the same call keys as an online run.
        self._endpoint = inner.endpoint
        self.name = inner.name
        self.family = inner.family
        self.offline = inner.offline
        self.batcher = batcher
        self._store = store
        self._retries = retries
        self._fallback_online = fallback_online
        # A batch has its own limits, not the online account's: the call layer's limiter
        # must not pace requests that only go into a file.
        self.default_limits = inner.default_limits if batcher is None else ProviderLimits()

    @property
    def account(self) -> str:
        return self.inner.account if self.batcher is None else f"batch:{self.inner.account}"

    @property
    def limit_names(self) -> tuple[str, ...]:
        return self.inner.limit_names if self.batcher is None else (self.account,)

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def endpoint(self) -> Endpoint:
        return self._endpoint

    def classify_error(self, exc: Exception) -> ProviderError:
        return self.inner.classify_error(exc)

    def price(self, reply: JudgeReply) -> float | None:
        if reply.batch is not None and self.batcher is not None:
            return self.batcher.api.price(reply)
        return self.inner.price(reply)

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        key = call_key(self.name, request, request.sample, endpoint=self._endpoint)
        case_id = request.case.id if request.case is not None else ""
        row = self._store.lookup(key)
        if row is None:
            if self.batcher is None or not self.batcher.add(key, 1, case_id, request):
                # No batch can carry it (`Batcher.add`): asked online, at the online price,
                # so that its vote is the one the same run online would have.
                return await self._online(request, key, 1, case_id)
            return await self._defer()
        if row.reply is not None:
            row.reply.sends = row.tries
            if row.state == "online":
                return row.reply
            row.reply.batch = row.batch
            return row.reply
        if row.state == "queued":
            return await self._defer()
        if row.state == "lost":
            # Answered in its batch, but its results are gone (archived, unreadable): asked
            # online under ``batch_fallback = "online"`` (paid again), else an unavailable
            # vote that says why (and the case INCONCLUSIVE if the quorum needs it).
            if self._fallback_online or self.batcher is None:
                return await self._online(request, key, row.tries + 1, case_id)
            raise BatchFailedError(
                f"batch: {row.error or 'the results are gone'} ({sent(row.tries)})",
                sends=row.tries,
            )
        # Errored, expired or canceled in its batch.
        if not row.retryable or row.tries > self._retries:
            # Its error, when it says more than its state ("expired"); and how often it was
            # sent, which the call's attempts count too (`CallLayer`).
            why = f": {row.error}" if row.error and row.error != row.state else ""
            raise BatchFailedError(
                f"batch: the request {row.state} in {row.tries} batch"
                f"{'es' if row.tries != 1 else ''} ({sent(row.tries)}){why}",
                sends=row.tries,
            )
        if self._fallback_online or self.batcher is None:
            return await self._online(request, key, row.tries + 1, case_id)
        if not self.batcher.add(key, row.tries + 1, case_id, request):
            return await self._online(request, key, row.tries + 1, case_id)
        return await self._defer()

    async def _online(
        self, request: JudgeRequest, key: str, tries: int, case_id: str
    ) -> JudgeReply:
        ticket = _TICKET.get()
        if ticket is not None:
            ticket.started()
        try:
            reply = await self.inner.complete(request)
            self._store.online(key, tries, self.name, case_id, reply)
            reply.sends = tries
        finally:
            if ticket is not None:
                ticket.ended()
        return reply

    async def _defer(self) -> JudgeReply:
        ticket = _TICKET.get()
        if ticket is not None:
            await ticket.settled()
        raise Deferred


def sent(times: int) -> str:
    """How often a request was sent, in words."""
    return {1: "sent once", 2: "sent twice"}.get(times, f"sent {times} times")


class BatchCallCache:
    """The call cache as a batch run sees it: a call this run has already asked (in a batch
    or online) is the store's business, so that it is counted as made, not as a cache hit;
    every other call is looked up in the cache, and replies are stored without waiting for
    the commit (the store already holds them), so that a pass never stops between calls."""

    def __init__(self, cache: CallCache, store: BatchStore) -> None:
        self._cache = cache
        self._store = store

    async def get(self, key: str) -> JudgeReply | None:
        if self._store.lookup(key) is not None:
            return None
        return await self._cache.get(key)

    async def put(self, key: str, model: str, request: JudgeRequest, reply: JudgeReply) -> None:
        later = getattr(self._cache, "put_later", None)
        if later is not None:
            later(key, model, request, reply)
        else:
            await self._cache.put(key, model, request, reply)
