"""Where a judge model's calls go and how they are sent (`Endpoint`), and the header by which
`jury.testing`'s fake provider server says that it is one (`FAKE_HEADER`).

A reply is reused from the call cache only for a call to the same endpoint: the same server
(scheme, host, port, path prefix) spoken to in the same way (API surface, response format,
every setting that shapes the request body or how its reply is read). The call key hashes
both (`jury.adapters._request.call_key`), so that a jury pointed at another server, or told to
ask for another response format, asks again instead of replaying the first server's replies.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = ["FAKE_HEADER", "Endpoint"]

#: A response header `jury.testing.FakeProviderServer` sends with every response: an adapter
#: that finds it marks its reply `JudgeReply.fake` (priced $0, labelled FAKE in every output,
#: never served from the cache to a server that does not send it too).
FAKE_HEADER = "x-jury-fake"


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where a model's calls go (`url`) and how (`wire`): `jury.adapters.JudgeModel.endpoint`.

    `url` is the server and path prefix the calls are sent under, as a person would recognise
    it (``https://api.openai.com/v1``, ``http://127.0.0.1:8088/v1``); a model whose calls
    leave no process says so with a scheme of its own (``adapter:package.Class``,
    ``vertex:project/location``). `wire` names the API surface and every setting that shapes
    the request body or the reading of its reply (``chat/completions response_format=
    json_schema tokens=max_tokens``), in words, so that two endpoints that differ say how.
    ``str(endpoint)`` is the `url`, for messages.
    """

    url: str
    wire: str = ""
    #: The variable that sets `url`, when one does (``LOCAL_BASE_URL``): named in the fix
    #: for a server that cannot be reached. Not part of the cache key: where the calls go is.
    variable: str | None = None

    def __str__(self) -> str:
        return self.url

    @property
    def origin(self) -> str:
        """The server alone (``scheme://host:port``): one process answers everything under
        it. A `url` that names no host (``adapter:...``) is its own origin."""
        parts = urlsplit(self.url)
        if not parts.scheme or not parts.netloc:
            return self.url
        return f"{parts.scheme}://{parts.netloc}"
