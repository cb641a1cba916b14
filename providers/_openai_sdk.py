"""The openai SDK as a transport of the OpenAI wire (`jury.providers.openai`), and the words of
its errors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._wire import Posted, SdkTransport, posted

__all__ = ["OpenAISdkTransport", "sdk_message"]


class OpenAISdkTransport(SdkTransport):
    """The official SDK over its aiohttp client, retries off."""

    def connect(self) -> Any:
        import openai

        return openai.AsyncOpenAI(
            # Local servers take no key, but the SDK insists on one.
            api_key=self._key or "no-key",
            base_url=self.base_url,
            max_retries=0,
            http_client=openai.DefaultAioHttpClient(),
        )

    async def call(self, client: Any, model: str, body: dict[str, Any]) -> Posted:
        # The legacy raw response of the openai SDK parses synchronously.
        raw = await client.chat.completions.with_raw_response.create(**body)
        data: dict[str, Any] = raw.parse().model_dump(mode="json")
        return posted(data, raw.headers.items())


def sdk_message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, Mapping) and isinstance(body.get("message"), str):
        return str(body["message"])
    return str(getattr(exc, "message", "") or "")
