"""What an adapter declares about its provider account and its models: the account's limits
(`ProviderLimits`) and each model's lifecycle (`ModelStatus`). Seam types: the judge model,
the engine's limiter and the panel's lifecycle policy all read them from here."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["ModelStatus", "ProviderLimits", "State"]


class ProviderLimits(BaseModel):
    """Limits of one provider account, shared by every juror on it (the jury file's
    ``[providers.<name>]`` tables, and each judge model's `default_limits`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    concurrency: int | None = Field(default=None, ge=1)
    rpm: float | None = Field(default=None, gt=0)
    tpm: float | None = Field(default=None, gt=0)


State = Literal["active", "deprecated", "retired"]


@dataclass(frozen=True, slots=True)
class ModelStatus:
    """What a provider has announced about one model.

    `state` is "active" (no retirement announced), "deprecated" (a retirement date is set:
    `retires`) or "retired" (that date has passed: calls fail or are served by another
    model). `source` says where the adapter read it (an SDK file, a provider's page and the
    day it was read); `pinned` whether the ID names one fixed model rather than an alias that
    may move (None: not known).
    """

    model: str
    state: State
    source: str
    retires: date | None = None
    replacement: str | None = None
    pinned: bool | None = None

    def describe(self) -> str:
        """One sentence a person can act on."""
        if self.state == "active":
            return f"{self.model} is current (no retirement announced; {self.source})"
        when = f" on {self.retires.isoformat()}" if self.retires else ""
        verb = "was retired" if self.state == "retired" else "is deprecated and retires"
        instead = f"; use {self.replacement} instead" if self.replacement else ""
        return f"{self.model} {verb}{when}{instead} ({self.source})"
