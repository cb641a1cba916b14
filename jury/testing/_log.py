"""The fake server's request log: one `LoggedRequest` per call, credentials left out."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ._protocols import protocol_for
from ._wire import Provider

__all__ = ["REDACTED", "SECRET_HEADERS", "LoggedRequest", "redacted"]

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

    @property
    def schema(self) -> dict[str, Any] | None:
        """The JSON schema the request asked the reply to follow, wherever it put it."""
        return protocol_for(self.provider).requested_schema(self.body)
