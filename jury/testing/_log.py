"""The fake server's request log: one `LoggedRequest` per call, credentials left out."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["REDACTED", "SECRET_HEADERS", "LoggedRequest", "Provider", "redacted"]

#: The providers whose wire protocols the fake server speaks.
Provider = Literal["openai", "anthropic", "google"]

#: Headers whose values are credentials: the request log keeps their presence, not values.
SECRET_HEADERS = frozenset(
    {"authorization", "x-api-key", "x-goog-api-key", "api-key", "proxy-authorization", "cookie"}
)
REDACTED = "[redacted]"


def redacted(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Headers by lower-case name, each credential's value replaced by `REDACTED`."""
    return {k.lower(): REDACTED if k.lower() in SECRET_HEADERS else v for k, v in headers}


@dataclass(slots=True)
class LoggedRequest:
    """One request the server received. Credential headers keep their names, not values."""

    index: int
    provider: Provider
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    model: str
    #: What the server answered: an HTTP status, or 0 for a dropped or hung connection.
    status: int = 0
    fault: str | None = None
    received: float = 0.0
    #: Reads the schema a body asks for, in the protocol the request was made in: set by
    #: whoever logged it (the server knows the protocol; the log does not look it up).
    schema_of: Callable[[Any], dict[str, Any] | None] | None = field(
        default=None, repr=False, compare=False
    )
    #: The judge's odds for its reply's values, when the script gave them
    #: (`jury.testing.Confident`): served as token log-probabilities to a call that asks.
    odds: dict[str, dict[str, float]] | None = field(default=None, repr=False, compare=False)

    @property
    def schema(self) -> dict[str, Any] | None:
        """The JSON schema the request asked the reply to follow, wherever it put it."""
        return None if self.schema_of is None else self.schema_of(self.body)
