"""The price of a seat: one code path, shared by `jury estimate` (tokens it expects) and
`jury calibrate --select --budget` (tokens the votes recorded, or the estimate's).

A seat's calls are priced by its model's price table (`jury.adapters.price`, genai-prices):
through the resolved model where its credential is set (its adapter's own `price`, the same
the engine pays by), else from its name (``openai/gpt-4.1-mini-...`` as OpenAI's model, a
bare ``gpt-4-0613`` as the model the table finds under that name). A model the table does
not know has no price (None): never a guessed zero. Offline jurors are free.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .._errors import MissingCredentialError
from ..adapters._model import JudgeModel
from ..adapters._prices import batch_price, price
from ..adapters._registry import resolve_model
from ..adapters._request import JudgeReply, Usage

__all__ = ["Pricing", "SeatPrice", "seat_price"]

#: USD for one call's tokens, or None when the price is unknown.
Pricing = Callable[[Usage], "float | None"]

#: The built-in providers' published batch price as a share of the online price, for a model
#: priced from its name where the price table has no batch rate (the adapters' own `discount`
#: for a resolved model): "50% cost discount compared to synchronous APIs"
#: (https://platform.openai.com/docs/guides/batch), "charged at 50% of the standard API
#: prices" (https://docs.anthropic.com/en/docs/build-with-claude/batch-processing#pricing),
#: "at 50% of the standard cost" (https://ai.google.dev/gemini-api/docs/batch-mode).
_PUBLISHED_BATCH_SHARE = {"anthropic": 0.5, "openai": 0.5, "google": 0.5}


@dataclass(frozen=True, slots=True)
class SeatPrice:
    """How one seat's calls are priced: its first-choice model, online and through the
    provider's batch API (a model without one is priced online)."""

    model: str
    offline: bool
    online: Pricing
    batch: Pricing

    def cost(self, usage: Usage, batched: float = 0.0) -> float | None:
        """USD for calls that used `usage`, the share `batched` (0 to 1) of them through the
        batch API; None when the price is unknown."""
        online = self.online(usage) if batched < 1 else 0.0
        through = self.batch(usage) if batched > 0 else 0.0
        if online is None or through is None:
            return None
        return online * (1 - batched) + through * batched


def _resolved(model: JudgeModel, *, batch: bool = False) -> Pricing:
    if model.offline:
        return lambda usage: 0.0
    # A model without a batch API is judged online in a batch run.
    priced = (model.batches() or model) if batch else model
    return lambda usage: priced.price(
        JudgeReply(text="", model=model.model_id, usage=usage, batch="" if batch else None)
    )


def _by_name(provider: str, name: str, *, batch: bool = False) -> Pricing:
    def pricing(usage: Usage) -> float | None:
        online = price(provider, name, usage)
        if not batch or online is None:
            return online
        priced = batch_price(provider, name, usage)
        share = _PUBLISHED_BATCH_SHARE.get(provider)
        if priced is None and share is not None:
            priced = online * share
        return priced

    return pricing


def seat_price(
    spec: str | JudgeModel, notes: list[str] | None = None, *, by_name: bool = False
) -> SeatPrice:
    """How calls of the model `spec` are priced: a `JudgeModel` by its own `price`; a
    ``provider/model`` resolved where its credential is set (nothing is ever sent), else
    priced from its name (said in `notes`); a bare model name from its name, under the
    provider the price table finds for it. `by_name`: never resolved (a model a record
    names, whose provider may be none this process knows)."""
    if not isinstance(spec, str):
        return SeatPrice(spec.name, spec.offline, _resolved(spec), _resolved(spec, batch=True))
    provider, slash, name = spec.partition("/")
    if not slash or by_name:
        provider, name = (provider, name) if slash else ("", spec)
        return SeatPrice(
            spec, False, _by_name(provider, name), _by_name(provider, name, batch=True)
        )
    try:
        model = resolve_model(spec)
    except MissingCredentialError as exc:
        _note(notes, f"{spec}: {exc.variable} is not set; priced from its name")
        seat = SeatPrice(
            spec, False, _by_name(provider, name), _by_name(provider, name, batch=True)
        )
    else:
        seat = SeatPrice(model.name, model.offline, _resolved(model), _resolved(model, batch=True))
    if provider == "openai-api" and seat.online(Usage(1000, 100)) is None:
        # A run prices a model runtime's calls $0 once its server says what it is; nothing is
        # asked here, so "unknown" alone would read as a paid service's missing price.
        _note(
            notes,
            f"{spec}: an OpenAI-compatible service is priced once its server says what it is "
            "(a model runtime such as llama.cpp, Ollama or vLLM: $0; `jury doctor` asks it); "
            "no call is made here",
        )
    return seat


def _note(notes: list[str] | None, said: str) -> None:
    if notes is not None and said not in notes:  # two seats of one model: said once
        notes.append(said)
