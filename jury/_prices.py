"""Prices of judge calls, from the genai-prices package's offline price table.

A price is known or it is None ("unknown"): never a guessed zero. Looking a model up in
genai-prices costs a few hundred microseconds, so each model's per-token rates are read once
from small probe calls and cached; calls big enough to reach a tiered price (some models
charge more past a prompt size) are priced by genai-prices directly.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ._model import Usage

__all__ = ["price"]

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


def _calc(provider: str, model: str, **tokens: int) -> Any:
    from genai_prices import Usage as PriceUsage
    from genai_prices import calc_price

    return calc_price(PriceUsage(**tokens), model, provider_id=provider).total_price


@lru_cache(maxsize=256)
def _rates(provider: str, model: str) -> _Rates | None:
    try:
        uncached = float(_calc(provider, model, input_tokens=_PROBE))
        output = float(_calc(provider, model, output_tokens=_PROBE))
        cached = float(_calc(provider, model, input_tokens=_PROBE, cache_read_tokens=_PROBE))
        written = float(_calc(provider, model, input_tokens=_PROBE, cache_write_tokens=_PROBE))
    except (LookupError, ValueError):
        return None
    return _Rates(uncached / _PROBE, cached / _PROBE, written / _PROBE, output / _PROBE)


def price(provider: str, model: str, usage: Usage) -> float | None:
    """USD for one call of `model` on `provider` ("anthropic", "openai", "google"...), or None
    when the table does not know the model. `usage.cached_tokens` (read from a prompt cache)
    and `usage.cache_write_tokens` (written to it) are part of `usage.input_tokens`."""
    rates = _rates(provider, model)
    if rates is None:
        return None
    if usage.input_tokens > _LINEAR_UP_TO:
        return float(
            _calc(
                provider,
                model,
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
