"""Batches at their providers: sending them, polling them, collecting their results.

The `Dispatcher` moves each batch of the run's `BatchStore` through its life (see
``jury.batch._store``): a sealed batch is created at its provider (at most ``in_flight`` a
model; a 429 leaves it sealed for the next round), one whose creation may have reached the
provider is looked for before anything is sent again, a batch in flight is polled, and an
ended one's results are written into the store in one transaction. Every call to a batch API
goes through the engine's retries, its errors classified by the model's own `classify_error`,
reading results included (no HTTP error leaves the run). A batch refused or failed for its
size alone is sent again later in halves; the batches of one model in flight keep to its
token budget; results the provider no longer has are "lost", which the requests' calls read
as the run's ``batch_fallback`` says (`jury.batch._model`). An account stop (`AccountError`:
a key refused, no credit, a spend limit), at any call or as a request's error inside a
batch, stops the run (exit 2) as it does online, once what was answered is stored: the run
resumed after the fix sends again only what the account refused.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import replace
from functools import partial
from typing import TypeVar

from .._clock import Clock
from .._errors import AccountError, ProviderError, RateLimitedError, TransientError
from ..adapters._batch import BatchAPI, BatchStatus
from ..adapters._model import JudgeModel
from ..adapters._request import JudgeReply
from ..engine._calls import _backoff
from ..panel._batch_settings import BatchSettings
from ..panel._panel import RetrySettings
from ._model import Batcher
from ._store import BatchRow, BatchStore, tokens_of

__all__ = ["OPEN", "Dispatcher", "eta"]

T = TypeVar("T")

#: One request's result as the store keeps it: custom ID, state, reply, error, retryable.
Outcome = tuple[str, str, JudgeReply | None, str | None, bool]

#: States of a batch that is not over yet.
OPEN = ("sealed", "creating", "submitted")


class Dispatcher:
    """Sends, polls and collects the batches of one run."""

    def __init__(
        self,
        store: BatchStore,
        batchers: Mapping[str, Batcher],
        models: Mapping[str, JudgeModel],
        *,
        settings: BatchSettings,
        retry: RetrySettings,
        clock: Clock,
        notify: Callable[[str], None],
    ) -> None:
        self._store = store
        self._batchers = batchers
        self._models = models
        self._settings = settings
        self._retry = retry
        self._clock = clock
        self._notify = notify
        self._rng = random.Random()
        self._sending: asyncio.Task[None] | None = None
        #: When each model's provider, having refused a batch with a 429, takes one again.
        self._not_before: dict[str, float] = {}
        #: Batches whose results were written into the store by this process.
        self.collected = 0

    def pending(self) -> list[BatchRow]:
        return self._store.batches(OPEN)

    def send_due(self) -> None:
        """Seal the batches that have collected long enough, and send them meanwhile."""
        for batcher in self._batchers.values():
            if batcher.due():
                batcher.seal()
        if self._sending is None or self._sending.done():
            self._sending = asyncio.create_task(self.submit_sealed())

    async def seal_all(self) -> None:
        """Seal every batch being collected, once what is being sent meanwhile is sent."""
        for batcher in self._batchers.values():
            batcher.seal()
        if self._sending is not None:
            await self._sending
            self._sending = None

    async def recover(self) -> None:
        """Settle what a killed run left half done (see `jury.batch._store`): a batch still
        being written is dropped (nothing of it was sent); one being created is looked for."""
        for row in self._store.batches(("preparing",)):
            self._store.drop(row.label)
        await self._reconcile()

    async def _reconcile(self) -> None:
        """Adopt each batch whose creation may have reached its provider, or send it again
        only when the provider does not have it."""
        for row in self._store.batches(("creating",)):
            api = self._api(row)
            # Its provider may list a batch a little before our clock says it was made.
            look = partial(api.find, row.label, row.requests, row.changed - 300)
            try:
                found = await self._call(row, look)
            except AccountError:
                raise  # no call on the account can work: the run stops (exit 2), as online
            except ProviderError as exc:
                self._notify(f"batch {row.label} ({row.model}): cannot look for it yet: {exc}")
                continue
            if found is None:
                self._store.update(row.label, "sealed")
            else:
                submitted(self._store, self._notify, row, found)

    async def drain(self, *, wait: bool) -> None:
        """Send sealed batches, poll the ones in flight and collect those that ended; with
        `wait`, until none is left."""
        while True:
            await self._reconcile()
            await self.submit_sealed()
            for row in self._store.batches(("submitted",)):
                await self._poll(row)
            if not wait or not self._store.batches(OPEN):
                return
            await self._clock.sleep(self._pause())

    def _pause(self) -> float:
        """How long to wait for the next round: a poll interval, or, when the only batches
        left wait for a provider that refused them, until it said to come back."""
        if self._store.batches(("creating", "submitted")) or not self._not_before:
            return self._settings.poll
        left = min(self._not_before.values()) - self._clock.monotonic()
        return max(self._settings.poll, left)

    async def submit_sealed(self) -> None:
        for row in self._store.batches(("sealed",)):
            if self._clock.monotonic() < self._not_before.get(row.model, 0.0):
                continue
            flying = [
                r for r in self._store.batches(("creating", "submitted")) if r.model == row.model
            ]
            if len(flying) >= self._settings.in_flight:
                continue
            # The provider's enqueued-token limit counts every batch of the model in flight:
            # one more waits until those end (a lone batch always goes).
            budget = self._batchers[row.model].tokens
            if (
                flying
                and budget is not None
                and sum(r.tokens for r in flying) + row.tokens > budget
            ):
                continue
            await self._create(row)

    async def _create(self, row: BatchRow) -> None:
        api = self._api(row)
        path = self._store.input(row.label)
        self._store.update(row.label, "creating")
        try:
            status = await self._call(
                row, lambda: api.create(path, row.requests, row.label), created=True
            )
        except RateLimitedError as exc:
            # Refused for now (too much queued at the provider): sent again once it says.
            wait = exc.retry_after if exc.retry_after is not None else self._settings.poll
            self._not_before[row.model] = self._clock.monotonic() + wait
            self._store.update(row.label, "sealed", error=str(exc))
            self._notify(f"batch {row.label} ({row.model}): not sent yet: {exc}")
            return
        except AccountError as exc:
            # Refused for the account (a key, no credit, a spend limit): the run stops (exit 2)
            # as online; the batch, never created, waits sealed for the run resumed.
            self._store.update(row.label, "sealed", error=str(exc))
            raise
        except TransientError as exc:
            # The provider may hold it: the next round looks for it before creating it.
            self._store.update(row.label, "creating", error=str(exc))
            self._notify(f"batch {row.label} ({row.model}): creating it failed for now: {exc}")
            return
        except ProviderError as exc:
            if api.too_large(exc) and row.requests > 1:
                self._store.update(row.label, "sealed", error=str(exc))
                self._split(row, f"refused for its size: {exc}")
                return
            self._store.update(row.label, "submitted", error=str(exc))
            self._store.collect(row.label, (), ("errored", f"the batch was refused: {exc}", False))
            # Its requests have their outcome now: the next pass reads them (a run whose
            # only batch was refused would otherwise see no progress, and stop).
            self.collected += 1
            self._notify(f"batch {row.label} ({row.model}): refused: {exc}")
            return
        # Its input file is kept until its results are in: a batch the provider fails for
        # its size is sent again, cut in two, from it.
        submitted(self._store, self._notify, row, status)

    def _split(self, row: BatchRow, why: str) -> None:
        """Send a sealed batch's requests again as two batches (see `BatchStore.split`)."""
        made = split_in_two(self._store, row)
        self._notify(
            f"batch {row.label} ({row.model}): {why}; its {row.requests} requests go again "
            f"as {' and '.join(made)}"
        )

    async def _poll(self, row: BatchRow) -> None:
        api = self._api(row)
        batch_id = row.provider_id or ""
        try:
            status = await self._call(row, lambda: api.retrieve(batch_id))
        except AccountError:
            raise
        except ProviderError as exc:
            self._notify(f"batch {row.label} ({row.model}, {batch_id}): no status: {exc}")
            return
        self._store.update(row.label, "submitted", status=status.state, counts=dict(status.counts))
        counts = ", ".join(f"{name} {n}" for name, n in status.counts.items())
        self._notify(f"batch {row.label} ({row.model}, {batch_id}): {status.state} · {counts}")
        if status.ended and status.too_large:
            self._again_smaller(row, status)
        elif status.ended:
            await self._collect(row, api, status)

    def _again_smaller(self, row: BatchRow, status: BatchStatus) -> None:
        """A batch its provider failed for its size alone (OpenAI's enqueued-token limit):
        nothing of it ran, so it is sent again later, in halves, and the model's next
        batches are smaller too; never turned into unavailable votes."""
        self._not_before[row.model] = self._clock.monotonic() + self._settings.poll
        why = f"failed for its size ({status.failure})"
        path = self._store.input(row.label)
        if not path.exists():
            # Written before input files were kept: its requests are asked again.
            self._store.collect(row.label, (), ("expired", f"the batch {why}", True))
            self.collected += 1
            return
        lines = path.read_bytes().splitlines(keepends=True)
        self._batchers[row.model].smaller(row.tokens or sum(map(tokens_of, lines)))
        self._store.update(row.label, "sealed", provider_id=None, error=status.failure)
        if row.requests > 1:
            self._split(row, why)
            return
        flying = [r for r in self._store.batches(("creating", "submitted")) if r.model == row.model]
        if flying:
            self._notify(f"batch {row.label} ({row.model}): {why}; sent again later")
            return
        # One request, alone in flight, is over the limit: no smaller batch will pass.
        self._store.update(row.label, "submitted")
        self._store.collect(row.label, (), ("errored", f"the batch {why}", False))
        self.collected += 1

    async def _collect(self, row: BatchRow, api: BatchAPI, status: BatchStatus) -> None:
        outcomes: list[Outcome] = []
        stop: AccountError | None = None
        if status.gone is None:
            try:
                # Reading results is free, and is read whole before anything is written:
                # read again after a transient error, with the engine's backoff.
                outcomes, stop = await self._call(row, partial(read_results, api, status))
            except TransientError as exc:
                self._notify(
                    f"batch {row.label} ({row.model}, {status.id}): results not read yet: {exc}"
                )
                return
            except ProviderError as exc:
                if exc.status is None or isinstance(exc, AccountError):
                    raise  # a bug, not to be hidden; or the run stops, as online
                # The provider refuses them for good (404, 410...): gone.
                status = replace(status, gone=f"they cannot be read: {exc}")
        missing = missing_for(status)
        self._store.collect(row.label, outcomes, missing)
        self._store.input(row.label).unlink(missing_ok=True)
        self.collected += 1
        if status.gone is not None:
            self._notify(f"batch {row.label} ({row.model}, {status.id}): {missing[1]}")
        self._notify(
            f"batch {row.label} ({row.model}, {status.id}): collected: "
            f"{tally(row, outcomes, missing)}"
        )
        if stop is not None:
            # An account stop inside the batch (no credit, a quota): the run stops once its
            # answers are kept; the refused requests go again when the run is resumed.
            raise stop

    def _api(self, row: BatchRow) -> BatchAPI:
        return self._batchers[row.model].api

    async def _call(
        self, row: BatchRow, make: Callable[[], Awaitable[T]], *, created: bool = False
    ) -> T:
        model = self._models[row.model]
        return await retried(model, self._retry, self._rng, self._clock, make, created=created)


async def retried(
    model: JudgeModel,
    settings: RetrySettings,
    rng: random.Random,
    clock: Clock,
    make: Callable[[], Awaitable[T]],
    *,
    created: bool = False,
) -> T:
    """One call of a batch API, with the engine's retries; a provider's error comes out
    classified. A call that `created` something is retried only after a 429 (a refusal):
    after any other failure the batch may exist, and is looked for before it is sent."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return await make()
        except Exception as exc:
            error = model.classify_error(exc)
        if isinstance(error, AccountError):
            raise error
        retry = isinstance(error, RateLimitedError if created else TransientError)
        if not retry or attempt >= settings.attempts:
            raise error
        delay = _backoff(settings, rng, attempt, error)
        if delay is None:
            raise error
        await clock.sleep(delay)


def submitted(
    store: BatchStore, notify: Callable[[str], None], row: BatchRow, status: BatchStatus
) -> None:
    """A batch its provider holds: its ID, state and counts recorded, and said."""
    store.update(
        row.label,
        "submitted",
        provider_id=status.id,
        status=status.state,
        counts=dict(status.counts),
        expires=status.expires,
        error=None,
    )
    notify(f"batch {row.label} ({row.model}): sent {row.requests} requests as {status.id}")


def split_in_two(store: BatchStore, row: BatchRow) -> list[str]:
    """A sealed batch cut in two, under new labels of its model's (`BatchStore.split`)."""
    index = int(row.label.rsplit("-m", 1)[1].split("-", 1)[0])
    return store.split(row.label, [store.next_label(index) for _ in range(2)])


async def read_results(
    api: BatchAPI, status: BatchStatus
) -> tuple[list[Outcome], AccountError | None]:
    """Every request of an ended batch, as the store keeps it, and the first account stop
    among their errors (those requests are retryable: nothing was wrong with them)."""
    found: list[Outcome] = []
    stop: AccountError | None = None
    async for outcome in api.results(status):
        if isinstance(outcome.error, AccountError) and stop is None:
            stop = outcome.error
        retryable = outcome.kind in ("expired", "canceled") or isinstance(
            outcome.error, TransientError | AccountError
        )
        error = str(outcome.error) if outcome.error is not None else None
        found.append((outcome.custom_id, outcome.kind, outcome.reply, error, retryable))
    return found, stop


def missing_for(status: BatchStatus) -> tuple[str, str, bool]:
    """What the requests of an ended batch without a result get: state, error, retryable."""
    if status.gone is not None:
        return ("lost", f"the batch's results are gone: {status.gone}", True)
    if status.failure is not None:
        return ("errored", f"the batch failed: {status.failure}", False)
    return ("expired", f"not answered before the batch ended ({status.state})", True)


def tally(row: BatchRow, outcomes: list[Outcome], missing: tuple[str, str, bool]) -> str:
    kinds = Counter(kind for _, kind, *_rest in outcomes)
    if row.requests > len(outcomes):
        kinds[missing[0]] += row.requests - len(outcomes)
    return ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items()))


def eta(pending: Iterable[BatchRow], in_flight: int) -> str:
    """When to come back, from the providers' own deadlines and the batches not sent yet: a
    model's next `in_flight` batches go out only as its batches in flight end, so each round
    of them waits for the one before."""
    rows = list(pending)
    deadlines = [row.expires for row in rows if row.expires]
    unsent = Counter(row.model for row in rows if row.state == "sealed")
    rounds = 1 + max((-(-n // in_flight) for n in unsent.values()), default=0)
    if not deadlines:
        said = "batches usually end within an hour, and within 24 hours at the latest"
    else:
        latest = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(max(deadlines)))
        said = f"batches usually end within an hour; the providers give up on them by {latest}"
    if rounds == 1:
        return said
    return (
        f"{said}; with those not sent yet, {rounds} rounds of batches one after another: "
        f"usually about {rounds} hours in all, at most {rounds * 24} hours"
    )
