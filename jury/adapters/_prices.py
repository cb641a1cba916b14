"""Prices of judge calls, from the genai-prices package's offline price table.

A price is known or it is None ("unknown"): never a guessed zero. Looking a model up in
genai-prices costs a few hundred microseconds, so each model's per-token rates are read once
from small probe calls and cached; calls big enough to reach a tiered price (some models
charge more past a prompt size) are priced by genai-prices directly.

Batch prices come from the same table where it carries them (a price variant for
``processing = batch``); `batch_price` is None where it does not, and the adapter then applies
its provider's published batch discount.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ._request import Usage

__all__ = ["batch_price", "price"]

#: Calls with more input tokens than this are priced exactly, not from the cached rates:
#: below it no model in the table changes tier.
_LINEAR_UP_TO = 100_000
_PROBE = 1_000


@dataclass(frozen=True, slots=True)
class _Rates:
    input: float
    cached: float
    #: Writing to a prompt cache costs more than plain input where a provider charges for it
    #: (Anthropic: 1.25 times the input rate for the five-minute cache).
    written: float
    output: float


#: The price context under which genai-prices gives a model's batch rates.
_BATCH = {"processing": "batch"}


def _calc(provider: str, model: str, batch: bool = False, **tokens: int) -> Any:
    from genai_prices import Usage as PriceUsage
    from genai_prices import calc_price

    context = _BATCH if batch else None
    # No provider (""): genai-prices finds it from the model's name (a replayed record's).
    return calc_price(
        PriceUsage(**tokens), model, provider_id=provider or None, price_context=context
    ).total_price


def _has_batch_rates(provider: str, model: str) -> bool:
    from datetime import UTC, datetime

    from genai_prices import Usage as PriceUsage
    from genai_prices import calc_price

    info = calc_price(PriceUsage(input_tokens=1), model, provider_id=provider or None).model
    now = datetime.now(tz=UTC)
    return any(
        variant.when == _BATCH and (variant.constraint is None or variant.constraint.active(now))
        for variant in info.price_variants or ()
    )


@lru_cache(maxsize=256)
def _rates(provider: str, model: str, batch: bool = False) -> _Rates | None:
    try:
        if batch and not _has_batch_rates(provider, model):
            return None
        uncached = float(_calc(provider, model, batch, input_tokens=_PROBE))
        output = float(_calc(provider, model, batch, output_tokens=_PROBE))
        cached = float(_calc(provider, model, batch, input_tokens=_PROBE, cache_read_tokens=_PROBE))
        written = float(
            _calc(provider, model, batch, input_tokens=_PROBE, cache_write_tokens=_PROBE)
        )
    except (LookupError, ValueError):
        return None
    return _Rates(uncached / _PROBE, cached / _PROBE, written / _PROBE, output / _PROBE)


def price(provider: str, model: str, usage: Usage) -> float | None:
    """USD for one call of `model` on `provider` ("anthropic", "openai", "google"...; "": the
    provider its name tells), or None when the table does not know the model.
    `usage.cached_tokens` (read from a prompt cache) and `usage.cache_write_tokens` (written
    to it) are part of `usage.input_tokens`."""
    return _priced(provider, model, usage, batch=False)


def batch_price(provider: str, model: str, usage: Usage) -> float | None:
    """USD for one call of `model` served through the provider's batch API, from the table's
    batch rates; None when the table carries no batch rate for the model."""
    return _priced(provider, model, usage, batch=True)


def _priced(provider: str, model: str, usage: Usage, *, batch: bool) -> float | None:
    rates = _rates(provider, model, batch)
    if rates is None:
        return None
    if usage.input_tokens > _LINEAR_UP_TO:
        return float(
            _calc(
                provider,
                model,
                batch,
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                cache_read_tokens=usage.cached_tokens,
                cache_write_tokens=usage.cache_write_tokens,
            )
        )
    fresh = usage.input_tokens - usage.cached_tokens - usage.cache_write_tokens
    return (
        fresh * rates.input
        + usage.cached_tokens * rates.cached
        + usage.cache_write_tokens * rates.written
        + usage.output_tokens * rates.output
    )
