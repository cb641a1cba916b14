"""The batch seam: a provider's batch API for one model, as the engine drives it.

OpenAI Batch, Anthropic Message Batches and Gemini batch mode share one life cycle: many
requests, each under an ID of the caller's choosing, go in at once; the batch runs for minutes
to hours; every request then comes back succeeded, errored or expired. A `BatchAPI` maps that
onto one provider's wire protocol; the engine (``jury.batch._model``, ``jury.batch._run``) keeps
the run directory's record of what was sent, polls, and reads the results back into the very
replies an online call would have given, so that votes, re-asks and decisions do not change.

An adapter offers one through `JudgeModel.batches` (None: the model has no batch API and is
judged online). Every method may raise the provider's own errors: the engine classifies them
with the model's `classify_error`, exactly as it does for online calls.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from .._errors import ProviderError
from ._request import JudgeReply, JudgeRequest

__all__ = ["BatchAPI", "BatchLimits", "BatchOutcome", "BatchStatus"]


@dataclass(frozen=True, slots=True)
class BatchLimits:
    """The most one batch may hold: requests, and bytes of input; and `tokens`, the input
    tokens (estimated) the provider takes enqueued at once for one model, when it limits
    them (None: it does not)."""

    requests: int
    bytes: int
    tokens: int | None = None


@dataclass(frozen=True, slots=True)
class BatchStatus:
    """A batch as the provider last described it.

    `state` is the provider's own word for it ("in_progress", "BATCH_STATE_RUNNING"...), shown
    as it is; `ended` says that no request in it will change any more, so that its results can
    be read; `counts` are the provider's tallies, by its own names. `failure` says why a batch
    failed as a whole (its input was refused), when it did: then it has no results.
    """

    id: str
    state: str
    ended: bool
    counts: Mapping[str, int] = field(default_factory=dict)
    #: When it was created and when the provider will give up on it (UNIX seconds), if known.
    created: float | None = None
    expires: float | None = None
    failure: str | None = None
    #: The batch failed as a whole for its size only (too many tokens enqueued, too many
    #: bytes): the same requests, sent again later in smaller batches, may well pass.
    too_large: bool = False
    #: Why the results of an ended batch can no longer be read (Anthropic archives a batch's
    #: results: ``archived_at``), when they cannot.
    gone: str | None = None
    #: Where the provider keeps the results of an ended batch (file IDs, a URL): what
    #: `BatchAPI.results` reads.
    results: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class BatchOutcome:
    """One request of an ended batch: the reply it got, or why it got none.

    `kind` is "succeeded" (with `reply`), "errored" (with `error`, classified like an online
    call's: a `TransientError` is worth another try, an `InvalidRequestError` is not), or
    "expired" and "canceled" (the provider never ran it; another try may succeed).
    """

    custom_id: str
    kind: Literal["succeeded", "errored", "expired", "canceled"]
    reply: JudgeReply | None = None
    error: ProviderError | None = None


class BatchAPI(ABC):
    """One model's batch API. Methods are called from the engine's event loop."""

    #: The most one batch may hold (the provider's documented limits).
    limits: BatchLimits

    @abstractmethod
    def entry(self, custom_id: str, request: JudgeRequest) -> bytes:
        """One request as this provider's batch input carries it: one JSON line, without its
        newline, whose body is exactly what the online call would send."""

    @abstractmethod
    async def create(self, entries: Path, count: int, label: str) -> BatchStatus:
        """Submit the `count` lines of the file `entries` as one batch, marked with `label`
        where the provider keeps a mark (so that `find` can recognise it after a crash)."""

    @abstractmethod
    async def find(self, label: str, count: int, since: float) -> BatchStatus | None:
        """The batch this account created with `label` (`count` requests, no earlier than
        `since`), or None when there is none: what a run killed while creating one asks."""

    @abstractmethod
    async def retrieve(self, batch_id: str) -> BatchStatus:
        """The batch's status now."""

    @abstractmethod
    def results(self, status: BatchStatus) -> AsyncIterator[BatchOutcome]:
        """Every request of an ended batch, in any order."""

    @abstractmethod
    async def cancel(self, batch_id: str) -> BatchStatus:
        """Ask the provider to stop the batch; requests not yet run end canceled."""

    @abstractmethod
    def price(self, reply: JudgeReply) -> float | None:
        """USD for one reply served through a batch, or None when unknown."""

    def too_large(self, error: ProviderError) -> bool:
        """Whether a create refused with `error` was refused for the batch's size only, so
        that its halves are sent instead (HTTP 413, "Content Too Large", RFC 9110 15.5.14)."""
        return error.status == 413

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Release connections."""
