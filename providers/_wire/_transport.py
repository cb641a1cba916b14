"""How a wire's JSON travels: the direct transport (one aiohttp session) and the SDK transport
every provider's official client plugs into, and the choice between them."""

from __future__ import annotations

import io
import json
import os
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from typing import Any, Literal, NamedTuple

from jury import ConfigError
from jury.adapters import FAKE_HEADER

from ._errors import HttpStatusError, MalformedReplyError, rate_limit_headers
from ._protocol import Wire

__all__ = [
    "DirectTransport",
    "Posted",
    "SdkTransport",
    "Transport",
    "TransportName",
    "json_object",
    "pick_transport",
    "posted",
    "sendable",
]

#: Bodies above this many bytes are handed to aiohttp as a stream: it warns (ResourceWarning,
#: "Sending a large body directly with raw bytes might lock the event loop") for raw bytes
#: over 1 MiB (aiohttp/payload.py TOO_LARGE_BYTES_BODY), which a case's images easily pass.
LARGE_BODY = 2**20


def sendable(payload: bytes) -> bytes | io.BytesIO:
    """`payload` as aiohttp is to send it: the bytes themselves, or over `LARGE_BODY` a
    `BytesIO` (written in chunks, with its Content-Length all the same)."""
    return io.BytesIO(payload) if len(payload) > LARGE_BODY else payload


TransportName = Literal["direct", "sdk"]


class Posted(NamedTuple):
    """A reply as a transport got it: the JSON body, its rate-limit headers (None when it had
    none), and whether `jury.testing`'s fake sent it (its `FAKE_HEADER`)."""

    body: Mapping[str, Any]
    rate_limits: dict[str, str] | None = None
    fake: bool = False


def posted(body: Mapping[str, Any], headers: Iterable[tuple[str, str]] | None) -> Posted:
    """A reply body with what its response headers say: the rate limits, and the fake's mark."""
    items = list(headers or ())
    fake = any(name.lower() == FAKE_HEADER for name, _ in items)
    return Posted(body, rate_limit_headers(items), fake)


def json_object(raw: bytes) -> dict[str, Any]:
    """A reply body that must be one JSON object, or `MalformedReplyError` saying why not."""
    try:
        data = json.loads(raw)
    except ValueError:
        raise MalformedReplyError(f"reply body is not JSON ({len(raw)} bytes)") from None
    if not isinstance(data, dict):
        raise MalformedReplyError("reply body is not a JSON object")
    return data


def pick_transport(transport: str | None) -> TransportName:
    """The transport asked for (argument, else ``JURY_TRANSPORT``), defaulting to direct."""
    value = (transport or os.environ.get("JURY_TRANSPORT") or "direct").strip().lower()
    if value not in ("direct", "sdk"):
        raise ConfigError(f"JURY_TRANSPORT: expected 'direct' or 'sdk', got {value!r}")
    return value  # type: ignore[return-value]


class Transport(ABC):
    """How a request body reaches the provider and the reply body comes back."""

    name: TransportName

    @abstractmethod
    async def post(self, model: str, body: dict[str, Any]) -> Posted:
        """POST `body` and return the reply's JSON with its rate-limit headers; raise on any
        failure (never retry)."""

    async def send(self, model: str, body: dict[str, Any]) -> Mapping[str, Any]:
        """POST `body` and return the reply's JSON."""
        return (await self.post(model, body)).body

    async def aclose(self) -> None:  # noqa: B027 - most transports hold nothing
        """Close connections."""


class DirectTransport(Transport):
    """The wire protocol over one aiohttp session, created on first use (inside the loop)."""

    name: TransportName = "direct"

    def __init__(self, wire: Wire) -> None:
        self.wire = wire
        self._headers = {"content-type": "application/json", **wire.headers()}
        self._session: Any = None

    async def post(self, model: str, body: dict[str, Any]) -> Posted:
        if self._session is None:
            import aiohttp

            # No total timeout: the engine bounds each attempt (`panel.timeout`). No
            # connection cap either: the account limiter decides how many calls are in flight.
            self._session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=None),
                connector=aiohttp.TCPConnector(limit=0),
            )
        payload = json.dumps(body, ensure_ascii=False).encode()
        async with self._session.post(
            self.wire.url(model), data=sendable(payload), headers=self._headers
        ) as response:
            raw = await response.read()
            if response.status >= 400:
                headers = {k.lower(): v for k, v in response.headers.items()}
                raise HttpStatusError(response.status, headers, raw.decode(errors="replace"))
            headers_seen = response.headers.items()
        return posted(json_object(raw), headers_seen)

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


class SdkTransport(Transport):
    """A provider's official SDK client: built on first use (inside the event loop; the SDK is
    imported only then), its own retries off, closed with the model."""

    name: TransportName = "sdk"

    def __init__(self, base_url: str | None, key: str | None) -> None:
        self.base_url = base_url
        self._key = key
        self._client: Any = None

    @abstractmethod
    def connect(self) -> Any:
        """A new client of the SDK, retries off."""

    @abstractmethod
    async def call(
        self, client: Any, model: str, body: dict[str, Any]
    ) -> Posted | Mapping[str, Any]:
        """Send the wire's `body` through the client; return the reply as the wire's JSON,
        with the response's rate-limit headers where the SDK shows them (`Posted`)."""

    async def disconnect(self, client: Any) -> None:
        await client.close()

    def client(self) -> Any:
        """The SDK client, built on first use (without awaiting: concurrent first calls
        cannot build two); batch APIs share it."""
        if self._client is None:
            self._client = self.connect()
        return self._client

    async def post(self, model: str, body: dict[str, Any]) -> Posted:
        reply = await self.call(self.client(), model, body)
        return reply if isinstance(reply, Posted) else Posted(reply)

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await self.disconnect(client)
