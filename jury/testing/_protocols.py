"""The wire protocols the fake server speaks, one object each."""

from __future__ import annotations

from ._anthropic import AnthropicMessages
from ._google import GeminiGenerateContent
from ._openai import OpenAIChatCompletions
from ._wire import Provider, WireProtocol

__all__ = ["PROTOCOLS", "protocol_for"]

PROTOCOLS: tuple[WireProtocol, ...] = (
    OpenAIChatCompletions(),
    AnthropicMessages(),
    GeminiGenerateContent(),
)

# A logged request names its provider, not its protocol: enough while each provider speaks
# one protocol here. A second one for a provider would need the log to carry its protocol.
_BY_PROVIDER: dict[Provider, WireProtocol] = {p.provider: p for p in PROTOCOLS}


def protocol_for(provider: Provider) -> WireProtocol:
    """The protocol in which `provider`'s calls are made."""
    return _BY_PROVIDER[provider]
