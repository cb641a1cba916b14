"""The wire protocols the fake server speaks, one object each."""

from __future__ import annotations

from ._anthropic import AnthropicMessages
from ._google import GeminiGenerateContent
from ._openai import OpenAIChatCompletions, OpenAIModerations
from ._wire import Provider, WireProtocol

__all__ = ["PROTOCOLS", "protocol_for"]

PROTOCOLS: tuple[WireProtocol, ...] = (
    OpenAIChatCompletions(),
    AnthropicMessages(),
    GeminiGenerateContent(),
    OpenAIModerations(),
)

# A logged request names its provider, not its protocol: its judge protocol, the first listed
# for it, reads the schema a request asks for. OpenAI's moderations ask for none, and a chat
# protocol reading a moderation body finds none either.
_BY_PROVIDER: dict[Provider, WireProtocol] = {}
for _protocol in PROTOCOLS:
    _BY_PROVIDER.setdefault(_protocol.provider, _protocol)


def protocol_for(provider: Provider) -> WireProtocol:
    """The protocol in which `provider`'s calls are made."""
    return _BY_PROVIDER[provider]
