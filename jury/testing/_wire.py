"""One provider's wire protocol, as the fake server needs to know it: a small class each.

The server does what is the same for every provider (the request log, rate windows, scripts,
faults, the memory of the prompt cache). A `WireProtocol` owns the rest: the routes it answers,
where a request puts its model, its JSON schema and its prompt, what the provider caches, which
bodies it refuses, and how its success and error bodies look. A stricter rule or another route
for one provider is therefore a change to that provider's class alone.

Strict mode (the server's default) holds a request to what the real API accepts and answers it
the way the real API answers its awkward cases; each protocol keeps its own rules, each citing
where it comes from: `strict_refusal` (body keys its SDK's request types do not have, empty
messages, sampling settings its models refuse...), `thinking_tokens` and `output_limit`
(thinking that eats the output budget), `cache_minimum` (no cache below a prompt length),
`limit_headers`, `rate_limited`, `quota_exhausted` and `overloaded` (how it says "slow down",
"no quota" and "busy").
"""

from __future__ import annotations

import importlib
import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar, Literal

from ._log import LoggedRequest, Provider

__all__ = [
    "Ending",
    "Provider",
    "Refusal",
    "Route",
    "Tokens",
    "WireProtocol",
    "estimate_tokens",
    "request_keys",
    "text_of",
]

#: How a reply ends: finished, cut at the output limit, refused by the model, filtered.
Ending = Literal["stop", "length", "refusal", "filtered"]
#: Thinking tokens a model spends at each effort level, in this fake: invented, but in the
#: order of magnitude the providers document, so that a request that leaves a thinking model
#: at its default effort with a judge's output budget gets a reply cut at the limit.
THINKING = {
    "none": 0,
    "minimal": 32,
    "low": 256,
    "medium": 1024,
    "high": 4096,
    "xhigh": 8192,
    "max": 16384,
}


@dataclass(frozen=True, slots=True)
class Route:
    """A call a protocol answers: an HTTP method and an aiohttp path pattern, whose
    ``{name}`` parts reach `WireProtocol.model` as path parameters."""

    method: str
    path: str


@dataclass(frozen=True, slots=True)
class Tokens:
    """The token counts of one call, estimated; `cached` is the part of `input` that was read
    from the prompt cache, `written` the part written to it; `thinking` is the part of
    `output` spent thinking."""

    input: int
    output: int
    cached: int
    written: int = 0
    thinking: int = 0


@dataclass(frozen=True, slots=True)
class Refusal:
    """A request the real API refuses: the status, the message, and for protocols that say
    more (OpenAI), the parameter and the code."""

    message: str
    status: int = 400
    param: str | None = None
    code: str | None = None


@cache
def request_keys(module: str, name: str) -> tuple[frozenset[str], frozenset[str]] | None:
    """The keys an SDK's request type (``module.name``, a TypedDict) allows, and those it
    requires (``Required[...]``), read from the type itself so that they follow SDK upgrades.
    None when the SDK, an optional extra, is not installed: then no key is checked."""
    from typing import Required, get_origin, get_type_hints

    try:
        typed_dict = getattr(importlib.import_module(module), name)
    except ImportError:
        return None
    hints = get_type_hints(typed_dict, include_extras=True)
    required = frozenset(k for k, v in hints.items() if get_origin(v) is Required)
    return frozenset(hints), required


class WireProtocol(ABC):
    """How one provider's API reads a request and writes a reply. Instances hold no state:
    one object serves every call, from any number of servers."""

    #: The provider whose calls these are: the request log, rate limits and counts say it.
    provider: ClassVar[Provider]
    routes: ClassVar[tuple[Route, ...]]
    #: Whether a reply says how many tokens were written to the prompt cache (Anthropic's
    #: ``cache_creation_input_tokens``); the others cache without saying so.
    reports_cache_writes: ClassVar[bool] = False

    def model(self, path_params: Mapping[str, str], body: Any) -> str:
        """The model a request calls, from its path parameters or its body (any JSON, not
        always an object); most protocols name it in the body."""
        return str(body.get("model", "")) if isinstance(body, dict) else ""

    def refusal(self, body: dict[str, Any]) -> str | None:
        """Why the real API would answer this body 400 even in lenient mode, or None."""
        return None

    def strict_refusal(self, logged: LoggedRequest) -> Refusal | None:
        """Why the real API would refuse this request (strict mode), or None to answer it."""
        return None

    def thinking_tokens(self, logged: LoggedRequest) -> int:
        """The tokens the model thinks before replying, which count against its output
        limit (strict mode). None of them by default."""
        return 0

    def output_limit(self, body: dict[str, Any]) -> int | None:
        """The output token limit the request sets, thinking included (None: none)."""
        return None

    def cache_minimum(self, model: str) -> int:
        """The shortest prefix, in tokens, the provider caches for `model` (strict mode)."""
        return 0

    def cache_increment(self) -> int:
        """The steps, in tokens, in which a cached prefix is read (OpenAI's 128): a prefix is
        cached up to the last whole step."""
        return 1

    def limit_headers(self, limit: float, remaining: int, reset: float) -> dict[str, str]:
        """The rate-limit headers of a reply on an account limited to `limit` requests per
        minute (strict mode); none by default."""
        return {}

    def rate_limited(self, message: str, delay: float) -> tuple[dict[str, Any], dict[str, str]]:
        """A 429's body and headers, asking the client to wait `delay` seconds. By default
        the delay travels in ``retry-after`` headers."""
        headers = {"retry-after": f"{math.ceil(delay)}", "retry-after-ms": f"{delay * 1000:g}"}
        return self.error_body(429, message), headers

    def refused_body(self, refusal: Refusal) -> dict[str, Any]:
        """The body of a refused request (strict mode)."""
        return self.error_body(refusal.status, refusal.message)

    def quota_exhausted(self, message: str) -> tuple[int, dict[str, Any]]:
        """The status and body of an error that says the account's quota is used up (a plain
        429 unless the protocol says more)."""
        return 429, self.error_body(429, message or "quota exceeded")

    def overloaded(self) -> tuple[int, dict[str, Any]]:
        """The status and body of an error that says the service is busy for everyone (a
        plain 503 unless the protocol says more)."""
        return 503, self.error_body(503, "overloaded")

    def account_stop(self, which: str, message: str) -> tuple[int, dict[str, Any]]:
        """The status and body of an account-level stop named `which` (Anthropic's user-set
        usage limit, billing, contract spend limit); a used-up quota unless the protocol
        says more."""
        return self.quota_exhausted(message)

    def credential(self, headers: Mapping[str, str]) -> str | None:
        """The API key the request carries where this protocol carries it (None: none)."""
        return None

    def header_refusal(self, headers: Mapping[str, str], model: str) -> Refusal | None:
        """Why the real API would refuse the request's credential or version headers
        (strict mode), or None."""
        return None

    def model_not_found(self, model: str) -> Refusal:
        """How the API answers a model it does not serve (`FakeProviderServer.models`)."""
        return Refusal(f"model {model} not found", status=404)

    def rejected_key(self) -> tuple[int, dict[str, Any]]:
        """The status and body of the answer to a key the API does not accept."""
        return 401, self.error_body(401, "Invalid API key.")

    def requested_schema(self, body: Any) -> dict[str, Any] | None:
        """The JSON schema the request asks the reply to follow, or None when it asks none."""
        if not isinstance(body, dict):
            return None
        found = self.schema_in(body)
        return found if isinstance(found, dict) else None

    @abstractmethod
    def schema_in(self, body: dict[str, Any]) -> object:
        """Whatever the request put where this protocol carries the reply's schema."""

    @abstractmethod
    def prompt_parts(self, body: dict[str, Any]) -> tuple[str, str]:
        """The system text and the rest of the prompt, to count tokens and model caching."""

    def cached_prefix(self, body: dict[str, Any]) -> str:
        """The prompt text the provider caches by itself, so that sending it again reads it
        from the cache ("" for none): the system text, unless a protocol says otherwise."""
        return self.prompt_parts(body)[0]

    @abstractmethod
    def reply_body(
        self, logged: LoggedRequest, text: str, tokens: Tokens, *, truncated: bool
    ) -> dict[str, Any]:
        """A 200 body whose reply text is `text`; `truncated` says it was cut at the limit."""

    def ended_body(
        self, logged: LoggedRequest, text: str, tokens: Tokens, ending: Ending
    ) -> dict[str, Any]:
        """A 200 body ended as `ending` says. By default a whole reply or one cut at the
        limit; a protocol whose API says more (a refusal, a filter) renders that too."""
        return self.reply_body(logged, text, tokens, truncated=ending == "length")

    @abstractmethod
    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """The body the provider sends with an error `status`."""


def estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4)


def text_of(content: Any) -> str:
    """The text of a message's content, whether a string or a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def bearer(headers: Mapping[str, str]) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or None."""
    scheme, _, token = str(headers.get("authorization") or "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def gate(
    protocol: WireProtocol,
    headers: Mapping[str, str],
    model: str,
    strict: bool,
    rejected: frozenset[str] | set[str],
    models: frozenset[str] | set[str] | None = None,
) -> tuple[int, dict[str, Any]] | None:
    """What the API answers before it reads the body: the credential and version headers
    checked (strict mode), then a key the account was set to refuse (`rejected_keys`), then a
    model the server does not serve (`models`, when it names them)."""
    refusal = protocol.header_refusal(headers, model) if strict else None
    if refusal is None and models is not None and model not in models:
        refusal = protocol.model_not_found(model)
    if refusal is not None:
        return refusal.status, protocol.refused_body(refusal)
    key = protocol.credential(headers)
    if key is not None and key in rejected:
        return protocol.rejected_key()
    return None
