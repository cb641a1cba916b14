"""The error choke point's parts: the direct transport's HTTP errors, HTTP statuses mapped to
the project's error tree (docs/architecture.md), the server's requested delay, and aiohttp's
errors."""

from __future__ import annotations

import email.utils
import json
import re
import socket
import sys
import time
from collections.abc import Iterable, Mapping
from typing import Any

from jury import AuthenticationError, ProviderError, QuotaExhaustedError
from jury.adapters import (
    InvalidRequestError,
    RateLimitedError,
    TransientError,
    UnreachableError,
)

__all__ = [
    "HttpStatusError",
    "MalformedReplyError",
    "classify_aiohttp",
    "error_for_status",
    "error_message",
    "headers_of",
    "named_setting",
    "parse_retry_after",
    "rate_limit_headers",
    "unreachable",
]

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


def rate_limit_headers(headers: Iterable[tuple[str, str]] | None) -> dict[str, str] | None:
    """The rate-limit headers among `headers` (``x-ratelimit-*``, ``anthropic-ratelimit-*``),
    by lower-case name; None when there is none. The engine's account limiter learns the
    account's rate from them."""
    if headers is None:
        return None
    found = {k.lower(): v for k, v in headers if "ratelimit" in k.lower()}
    return found or None


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


def headers_of(response: Any) -> Mapping[str, str] | None:
    headers = getattr(response, "headers", None)
    return headers if isinstance(headers, Mapping) or hasattr(headers, "get") else None


def error_for_status(
    status: int,
    message: str,
    *,
    headers: Mapping[str, str] | None = None,
    variable: str | None = None,
) -> ProviderError:
    """The project error for an HTTP status (docs/architecture.md): 429 rate-limited with its delay;
    408, 409, 425, 5xx (and 529 overloaded) transient; 401 and 403 authentication; 402 a
    quota used up; every other 4xx an invalid request that is never retried."""
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
    if status == 402:
        # "Payment Required" (RFC 9110 15.5.3): the account cannot pay for any call, whoever
        # serves it (Anthropic's billing_error, Gemini's prepaid credits used up, a gateway
        # out of credit): no retry clears it, the run stops.
        return QuotaExhaustedError(f"{text} (the account cannot pay: add credit)", status=402)
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


#: The request fields a server may refuse by name that a setting of aiojury's controls (the
#: request's shape, not a case's content): a refusal that names one is a configuration error.
SETTINGS = (
    "response_format",
    "top_logprobs",
    "logprobs",
    "max_completion_tokens",
    "max_tokens",
    "reasoning_effort",
    "seed",
    "temperature",
)
_SETTING_WORDS = re.compile(r"(?<![\w.])(" + "|".join(SETTINGS) + r")(?![\w])")


def named_setting(body: Any, message: str) -> str | None:
    """The request setting an error body names, if any: OpenAI's ``error.param`` (its error
    object, https://platform.openai.com/docs/guides/error-codes), else the first of
    `SETTINGS` named in the message, as a validation error's location does
    (llama-cpp-python's server: ``'loc': ('body', 'response_format', 'type')``)."""
    error = body.get("error", body) if isinstance(body, Mapping) else None
    param = error.get("param") if isinstance(error, Mapping) else None
    if isinstance(param, str):
        head = re.split(r"[.\[]", param, maxsplit=1)[0]
        if head in SETTINGS:
            return head
        if param:
            return None  # a field of the case's own content (messages[0]...): not a setting
    found = _SETTING_WORDS.search(message)
    return found[1] if found else None


#: Exceptions, by class name, that mean no connection was made: aiohttp's and httpx's (the
#: SDKs' transports), under whatever an SDK wraps them in.
_NO_CONNECTION = frozenset({"ClientConnectorError", "ClientConnectorDNSError", "ConnectError"})


def unreachable(exc: BaseException) -> bool:
    """Whether `exc` (or what it wraps) is a connection never made: refused, a host that does
    not resolve. A timeout or a connection dropped mid-reply is not."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ConnectionRefusedError | socket.gaierror):
            return True
        if any(kind.__name__ in _NO_CONNECTION for kind in type(current).__mro__):
            return True
        current = current.__cause__ or current.__context__
    return False


def classify_aiohttp(exc: Exception) -> ProviderError | None:
    """aiohttp's errors, when aiohttp is loaded (a transport that never imported it raises
    none of them); None for any other exception."""
    aiohttp = sys.modules.get("aiohttp")
    if aiohttp is None:
        return None
    if isinstance(exc, aiohttp.ClientConnectorError):
        return UnreachableError(f"{type(exc).__name__}: {exc}".rstrip(": "))
    if isinstance(exc, aiohttp.ClientResponseError):
        return error_for_status(exc.status, exc.message or "", headers=exc.headers)
    if isinstance(exc, aiohttp.ClientPayloadError):
        return TransientError(f"reply cut off: {exc}")
    if isinstance(exc, aiohttp.ClientError):
        return TransientError(f"{type(exc).__name__}: {exc}".rstrip(": "))
    return None
