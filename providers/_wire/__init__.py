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

This module is the model (`WireModel`: account, price, the error choke point) and the
credentials; its parts live beside it: `_protocol` (the `Wire` seam), `_transport` (the two
transports and the choice) and `_errors` (HTTP statuses and aiohttp's errors mapped to the
project's tree). Adapters import them all from here.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
from collections.abc import Mapping
from typing import Any

from jury import AccountError, ConfigError, MissingCredentialError, ProviderError, ProviderLimits
from jury.adapters import (
    BatchAPI,
    Endpoint,
    JudgeModel,
    JudgeReply,
    JudgeRequest,
    RateLimitedError,
    SettingRefusedError,
    TransientError,
    UnreachableError,
    price,
)

from .._hints import honour_should_retry
from ._errors import (
    HttpStatusError,
    MalformedReplyError,
    classify_aiohttp,
    error_for_status,
    error_message,
    headers_of,
    named_setting,
    parse_retry_after,
    rate_limit_headers,
    unreachable,
)
from ._protocol import Wire
from ._transport import (
    DirectTransport,
    Posted,
    SdkTransport,
    Transport,
    TransportName,
    json_object,
    pick_transport,
    posted,
    sendable,
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
    "error_message",
    "json_object",
    "parse_retry_after",
    "pick_transport",
    "posted",
    "rate_limit_headers",
    "read_key",
    "sendable",
]

#: Providers whose prices genai-prices keeps.
_PRICED = frozenset({"anthropic", "openai", "google"})


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

    @property
    def endpoint(self) -> Endpoint:
        """The wire's endpoint for this model (`Wire.endpoint`): its URL and settings, and
        the variable that sets the URL."""
        found = self.wire.endpoint(self.model)
        if found.variable is None and self.wire.url_variable is not None:
            found = dataclasses.replace(found, variable=self.wire.url_variable)
        return found

    def price(self, reply: JudgeReply) -> float | None:
        """USD from the genai-prices table, for the model that served; None (unknown) for
        compatible servers, whose prices the table cannot know; $0 for a reply from
        `jury.testing`'s fake, which no one is billed for."""
        if reply.fake:
            return 0.0
        if self.wire.provider not in _PRICED:
            return None
        return price(self.wire.provider, reply.model or self.model, reply.usage)

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        data, rate_limits, fake = await self.transport.post(
            self.model, self.wire.body(self.model, request)
        )
        reply = self.wire.parse(self.model, data)
        if rate_limits:
            reply.rate_limits = rate_limits
        if fake:
            reply.fake = True
        return reply

    def batches(self) -> BatchAPI | None:
        """The batch API the provider's profile names (`jury.providers.BUILTIN`), over the
        model's transport and credentials: built once, and closed with the model."""
        if self._batches is None:
            self._batches = super().batches()
        return self._batches

    @property
    def key(self) -> str:
        return self._key

    def classify_error(self, exc: Exception) -> ProviderError:
        error = self._classify(exc)
        if len(self._key) >= 8 and self._key in str(error):
            # A server may echo the key back in its error message (some do, partly masked).
            # A key shorter than any real one (a local server's "x") is no secret, and
            # replacing it would garble every word that holds its letters.
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
            if type(sdk) is TransientError and unreachable(exc):
                # The SDK's connection error over a connection never made (refused, no such
                # host): said apart from a timeout, since a juror that never connects
                # cannot work (`jury.JurorUnusable`).
                return UnreachableError(str(sdk))
            return sdk
        aiohttp_error = classify_aiohttp(exc)
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
        headers = response if isinstance(response, Mapping) else headers_of(response)
        if isinstance(body, (str, bytes)):
            with contextlib.suppress(ValueError):
                body = json.loads(body)
        found = self.wire.error(status, body, headers) or error_for_status(
            status, message, headers=headers, variable=self.wire.key_variable
        )
        if not isinstance(found, AccountError | RateLimitedError):
            setting = named_setting(body, message)
            if setting is not None:
                # The same request is refused the same way every time, whatever the status
                # (llama-cpp-python answers a refused response_format with a 500).
                return SettingRefusedError(
                    str(found), setting=setting, fix=self.wire.fix(setting), status=status
                )
        return honour_should_retry(found, headers) if self.wire.retry_hints else found

    async def aclose(self) -> None:
        if self._batches is not None:
            await self._batches.aclose()
        await self.transport.aclose()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} via {self.transport.name}>"
