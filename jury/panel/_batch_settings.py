"""The jury file's ``[batch]`` table: how calls are collected into provider batches."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["BatchSettings"]


class BatchSettings(BaseModel):
    """Batch mode's settings. A ``[batch]`` table (or ``jury run --batch``) sends every juror
    whose provider has a batch API through it; ``batch = false`` on a juror keeps it online."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: The most requests in one batch (default: the provider's own limit).
    size: int | None = Field(default=None, ge=1)
    #: Seconds a batch collects requests before it is sent, even when not full.
    collect: float = Field(default=60.0, ge=0)
    #: Seconds between two looks at a batch in flight.
    poll: float = Field(default=30.0, gt=0)
    #: The most batches of one model in flight at once; the next wait until one ends.
    in_flight: int = Field(default=8, ge=1)
    #: The most input tokens (estimated at 4 characters a token) in one batch, and in the
    #: batches of one model in flight at once (default: the provider's enqueued-token
    #: limit where it has one: OpenAI's, see ``jury.providers._openai_batch``).
    tokens: int | None = Field(default=None, ge=1)
    #: Times a request that errored or expired inside a batch is tried again before its vote
    #: is unavailable (in the next batch, or online under ``batch_fallback = "online"``).
    retries: int = Field(default=1, ge=0)
