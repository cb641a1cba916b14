"""One provider's wire protocol, as the fake server needs to know it: a small class each.

The server does what is the same for every provider (the request log, rate windows, scripts,
faults, the memory of the prompt cache). A `WireProtocol` owns the rest: the routes it answers,
where a request puts its model, its JSON schema and its prompt, what the provider caches, which
bodies it refuses, and how its success and error bodies look. A stricter rule or another route
for one provider is therefore a change to that provider's class alone.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

if TYPE_CHECKING:
    from ._log import LoggedRequest

__all__ = ["Provider", "Route", "Tokens", "WireProtocol", "estimate_tokens", "text_of"]

Provider = Literal["openai", "anthropic", "google"]


@dataclass(frozen=True, slots=True)
class Route:
    """A call a protocol answers: an HTTP method and an aiohttp path pattern, whose
    ``{name}`` parts reach `WireProtocol.model` as path parameters."""

    method: str
    path: str


@dataclass(frozen=True, slots=True)
class Tokens:
    """The token counts of one call, estimated; `cached` is the part of `input` that was read
    from the prompt cache."""

    input: int
    output: int
    cached: int


class WireProtocol(ABC):
    """How one provider's API reads a request and writes a reply. Instances hold no state:
    one object serves every call, from any number of servers."""

    #: The provider whose calls these are: the request log, rate limits and counts say it.
    provider: ClassVar[Provider]
    routes: ClassVar[tuple[Route, ...]]

    def model(self, path_params: Mapping[str, str], body: Any) -> str:
        """The model a request calls, from its path parameters or its body (any JSON, not
        always an object); most protocols name it in the body."""
        return str(body.get("model", "")) if isinstance(body, dict) else ""

    def refusal(self, body: dict[str, Any]) -> str | None:
        """Why the real API would answer this body 400, or None to answer it."""
        return None

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
