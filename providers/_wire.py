"""What every HTTP judge shares: the wire-mapping seam, the two transports, and the error
choke point.

An adapter is a `Wire` (the provider's protocol: request body from a `JudgeRequest`, reply
parsed into a `JudgeReply`, errors classified) carried by a `Transport`:

- `DirectTransport`: one aiohttp session POSTing the wire's JSON. The default: it costs a
  fraction of the CPU of an SDK call (see benchmarks/README.md).
- an `SdkTransport` per provider (official client, its aiohttp client, retries off): the
  reference the contract tests compare the direct transport against, and the way to reach
  what only the SDK does (Vertex credentials, for one).

``JURY_TRANSPORT=sdk`` (or ``direct``) picks the transport for every adapter; a provider's
``create(spec, transport=...)`` picks it for one model. A `WireModel` subclass names its
provider's SDK transport (`WireModel.sdk`), and the choice is made once, here.
"""

from __future__ import annotations

import contextlib
import email.utils
import hashlib
import json
import os
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from typing import Any, Literal, NamedTuple

from jury import (
    AuthenticationError,
    ConfigError,
    MissingCredentialError,
    ProviderError,
    ProviderLimits,
)
from jury.adapters import (
    BatchAPI,
    InvalidRequestError,
    JudgeModel,
    JudgeReply,
    JudgeRequest,
    RateLimitedError,
    TransientError,
    price,
)

__all__ = [
    "DirectTransport",
    "HttpStatusError",
    "MalformedReplyError",
    "Posted",
    "SdkTransport",
    "Transport",
    "TransportName",
    "Wire",
    "WireModel",
    "error_for_status",
    "parse_retry_after",
    "pick_transport",
    "rate_limit_headers",
    "read_key",
]

TransportName = Literal["direct", "sdk"]

#: Providers whose prices genai-prices keeps.
_PRICED = frozenset({"anthropic", "openai", "google"})

#: Statuses worth another attempt besides 5xx: request timeout, conflict, too early.
_TRANSIENT_STATUS = frozenset({408, 409, 425})


class HttpStatusError(Exception):
    """The direct transport's error for an HTTP status >= 400 (classified like the SDKs')."""

    def __init__(self, status: int, headers: Mapping[str, str], body: str) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status
        self.headers = headers
        self.body = body


class MalformedReplyError(Exception):
    """A 2xx reply whose body breaks the protocol (not JSON, or missing what it must carry)."""


class Posted(NamedTuple):
    """A reply as a transport got it: the JSON body, and its rate-limit headers (None when
    it had none)."""

    body: Mapping[str, Any]
    rate_limits: dict[str, str] | None = None


def json_object(raw: bytes) -> dict[str, Any]:
    """A reply body that must be one JSON object, or `MalformedReplyError` saying why not."""
    try:
        data = json.loads(raw)
    except ValueError:
        raise MalformedReplyError(f"reply body is not JSON ({len(raw)} bytes)") from None
    if not isinstance(data, dict):
        raise MalformedReplyError("reply body is not a JSON object")
    return data


def rate_limit_headers(headers: Iterable[tuple[str, str]] | None) -> dict[str, str] | None:
    """The rate-limit headers among `headers` (``x-ratelimit-*``, ``anthropic-ratelimit-*``),
    by lower-case name; None when there is none. The engine's account limiter learns the
    account's rate from them."""
    if headers is None:
        return None
    found = {k.lower(): v for k, v in headers if "ratelimit" in k.lower()}
    return found or None


def pick_transport(transport: str | None) -> TransportName:
    """The transport asked for (argument, else ``JURY_TRANSPORT``), defaulting to direct."""
    value = (transport or os.environ.get("JURY_TRANSPORT") or "direct").strip().lower()
    if value not in ("direct", "sdk"):
        raise ConfigError(f"JURY_TRANSPORT: expected 'direct' or 'sdk', got {value!r}")
    return value  # type: ignore[return-value]


def read_key(provider: str, *variables: str, env: Mapping[str, str] | None = None) -> str:
    """The first credential variable set, or `MissingCredentialError` naming the first."""
    env = os.environ if env is None else env
    for variable in variables:
        value = env.get(variable)
        if value:
            return value
    raise MissingCredentialError(provider, " or ".join(variables))


def key_fingerprint(key: str) -> str:
    """A short hash of a key: enough to tell two accounts apart, useless to an attacker."""
    return hashlib.sha256(key.encode()).hexdigest()[:8]


def parse_retry_after(headers: Mapping[str, str] | None, now: float | None = None) -> float | None:
    """The server's requested delay in seconds: ``retry-after-ms``, else ``retry-after`` as
    seconds or as an HTTP date. None when absent or unreadable."""
    if not headers:
        return None
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(float(ms) / 1000.0, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - (time.time() if now is None else now), 0.0)


def _headers_of(response: Any) -> Mapping[str, str] | None:
    headers = getattr(response, "headers", None)
    return headers if isinstance(headers, Mapping) or hasattr(headers, "get") else None


def error_for_status(
    status: int,
    message: str,
    *,
    headers: Mapping[str, str] | None = None,
    variable: str | None = None,
) -> ProviderError:
    """The project error for an HTTP status (DESIGN.md): 429 rate-limited with its delay;
    408, 409, 425, 5xx (and 529 overloaded) transient; 401 and 403 authentication; every
    other 4xx an invalid request that is never retried."""
    text = f"HTTP {status}: {message}" if message else f"HTTP {status}"
    if status == 429:
        return RateLimitedError(
            text,
            retry_after=parse_retry_after(headers),
            status=status,
            rate_limits=rate_limit_headers(headers.items()) if headers else None,
        )
    if status in _TRANSIENT_STATUS or status >= 500:
        return TransientError(text, status=status)
    if status in (401, 403):
        return AuthenticationError(text, variable=variable, status=status)
    return InvalidRequestError(text, status=status)


def error_message(body: Any, limit: int = 300) -> str:
    """The human part of a provider's error body (``error.message``, else the text)."""
    if isinstance(body, (bytes, str)):
        text = body.decode(errors="replace") if isinstance(body, bytes) else body
        try:
            body = json.loads(text)
        except ValueError:
            return text.strip()[:limit]
    if isinstance(body, Mapping):
        error = body.get("error", body)
        if isinstance(error, Mapping) and isinstance(error.get("message"), str):
            return str(error["message"])[:limit]
        if isinstance(error, str):
            return error[:limit]
    return str(body)[:limit] if body is not None else ""


class Wire(ABC):
    """One provider's protocol, independent of how the bytes travel."""

    #: The provider prefix ("openai", "anthropic", "google", "openai-api/<service>"...).
    provider: str
    #: The variable that holds the key, named in authentication errors.
    key_variable: str

    @abstractmethod
    def url(self, model: str) -> str:
        """Where the direct transport POSTs a request for `model`."""

    @abstractmethod
    def headers(self) -> dict[str, str]:
        """The direct transport's headers, the credential included."""

    @abstractmethod
    def body(self, model: str, request: JudgeRequest) -> dict[str, Any]:
        """The JSON body of one call: exactly what the SDK transport sends too."""

    @abstractmethod
    def parse(self, model: str, data: Mapping[str, Any]) -> JudgeReply:
        """Read a reply body; raise `MalformedReplyError` when it breaks the protocol."""

    def error(
        self, status: int, body: Any, headers: Mapping[str, str] | None
    ) -> ProviderError | None:
        """The project error for an error reply this provider words in its own way (a quota
        that no retry clears, a delay given in the body); None for the usual mapping of
        `error_for_status`. `body` is the reply's JSON, or its text."""
        return None


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
            self.wire.url(model), data=payload, headers=self._headers
        ) as response:
            raw = await response.read()
            if response.status >= 400:
                headers = {k.lower(): v for k, v in response.headers.items()}
                raise HttpStatusError(response.status, headers, raw.decode(errors="replace"))
            rate_limits = rate_limit_headers(response.headers.items())
        return Posted(json_object(raw), rate_limits)

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


class WireModel(JudgeModel):
    """A judge reached over HTTP: a `Wire` carried by a `Transport`.

    `classify_error` is the adapter's one choke point: the direct transport's errors, aiohttp
    errors and (through `classify_sdk_error`) the provider SDK's, mapped to the project's
    tree. Messages never carry the key: it is scrubbed from every error text.

    `transport` is a `Transport`, or the name of one ("direct", "sdk"; None: as
    ``JURY_TRANSPORT`` says): the SDK transport is the class's `sdk`.
    """

    #: The provider's SDK transport, built with the base URL and the key.
    sdk: type[SdkTransport] | None = None

    def __init__(
        self,
        *,
        name: str,
        model: str,
        family: str,
        wire: Wire,
        key: str,
        base_url: str,
        transport: Transport | str | None = None,
        limits: ProviderLimits | None = None,
    ) -> None:
        self.name = name
        self.model = model
        self.family = family
        self.wire = wire
        self.transport = self._carrier(transport, wire, base_url, key)
        self._key = key
        self.base_url = base_url
        self._batches: BatchAPI | None = None
        self._account = f"{wire.provider}@{base_url}"
        if key:
            self._account += f"#{key_fingerprint(key)}"
        if limits is not None:
            self.default_limits = limits

    def _carrier(
        self, transport: Transport | str | None, wire: Wire, base_url: str, key: str
    ) -> Transport:
        if isinstance(transport, Transport):
            return transport
        if pick_transport(transport) == "direct":
            return DirectTransport(wire)
        if self.sdk is None:
            raise ConfigError(f"{wire.provider}: no SDK transport; use the direct one")
        return self.sdk(base_url, key)

    @property
    def account(self) -> str:
        """Provider, base URL and a hash of the key: models sharing one rate limit."""
        return self._account

    @property
    def limit_names(self) -> tuple[str, ...]:
        """The account, then the wire's provider (``openai-api/<service>`` names one
        compatible server), then the prefix of the model's name."""
        names = (self._account, self.wire.provider, self.name.split("/", 1)[0])
        return tuple(dict.fromkeys(names))

    @property
    def model_id(self) -> str:
        return self.model

    def price(self, reply: JudgeReply) -> float | None:
        """USD from the genai-prices table, for the model that served; None (unknown) for
        compatible servers, whose prices the table cannot know."""
        if self.wire.provider not in _PRICED:
            return None
        return price(self.wire.provider, reply.model or self.model, reply.usage)

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        data, rate_limits = await self.transport.post(
            self.model, self.wire.body(self.model, request)
        )
        reply = self.wire.parse(self.model, data)
        if rate_limits:
            reply.rate_limits = rate_limits
        return reply

    def batches(self) -> BatchAPI | None:
        """The provider's batch API over the same transport and credentials, built once."""
        if self._batches is None:
            self._batches = self.batch_api()
        return self._batches

    def batch_api(self) -> BatchAPI | None:
        """A new batch API for this model (see `providers._batch`); None: it has none."""
        return None

    @property
    def key(self) -> str:
        return self._key

    def classify_error(self, exc: Exception) -> ProviderError:
        error = self._classify(exc)
        if self._key and self._key in str(error):
            # A server may echo the key back in its error message (some do, partly masked).
            error.args = (str(error).replace(self._key, "[redacted]"),)
        return error

    def _classify(self, exc: Exception) -> ProviderError:
        if isinstance(exc, ProviderError):
            return exc
        if isinstance(exc, HttpStatusError):
            return self.status_error(exc.status, error_message(exc.body), exc.headers, exc.body)
        if isinstance(exc, MalformedReplyError):
            # A broken body is the server's glitch, not the judge's answer: try again.
            return TransientError(f"malformed reply: {exc}")
        if isinstance(exc, json.JSONDecodeError):
            return TransientError(f"malformed reply: {exc.msg}")
        sdk = self.classify_sdk_error(exc)
        if sdk is not None:
            return sdk
        aiohttp_error = _classify_aiohttp(exc)
        if aiohttp_error is not None:
            return aiohttp_error
        return super().classify_error(exc)

    def classify_sdk_error(self, exc: Exception) -> ProviderError | None:
        """The provider SDK's exceptions; None for anything that is not the SDK's."""
        return None

    def status_error(
        self, status: int, message: str, response: Any, body: Any = None
    ) -> ProviderError:
        """The error for an HTTP status: the wire's own reading of its error `body` first,
        else `error_for_status` with the response's headers and this adapter's key variable.
        `response` is the headers, or a response object that has them."""
        headers = response if isinstance(response, Mapping) else _headers_of(response)
        if isinstance(body, (str, bytes)):
            with contextlib.suppress(ValueError):
                body = json.loads(body)
        special = self.wire.error(status, body, headers)
        if special is not None:
            return special
        return error_for_status(status, message, headers=headers, variable=self.wire.key_variable)

    async def aclose(self) -> None:
        if self._batches is not None:
            await self._batches.aclose()
        await self.transport.aclose()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} via {self.transport.name}>"


def _classify_aiohttp(exc: Exception) -> ProviderError | None:
    import sys

    aiohttp = sys.modules.get("aiohttp")
    if aiohttp is None:
        return None
    if isinstance(exc, aiohttp.ClientResponseError):
        return error_for_status(exc.status, exc.message or "", headers=exc.headers)
    if isinstance(exc, aiohttp.ClientPayloadError):
        return TransientError(f"reply cut off: {exc}")
    if isinstance(exc, aiohttp.ClientError):
        return TransientError(f"{type(exc).__name__}: {exc}".rstrip(": "))
    return None
