"""Which servers a jury's calls go to are `jury.testing`'s fake provider server.

The fake marks every response (`jury.adapters.FAKE_HEADER`) and its replies are kept apart in
the call cache (`jury.adapters._request.fake_key`). A reply of the fake is served from the
cache only to a call whose server is the fake now: one URL can be the fake in one run and a
real server in the next (a fixed port reused), and the call key, which names the URL, cannot
tell them apart. A live reply says which it is (`JudgeReply.fake`); before any has come back,
one request asks the server (`probe`: a GET of the endpoint's URL, which the fake answers with
its mark, as it answers everything, and a real server without it). It is made only when a
reply of the fake was found in the cache for that server, and it judges nothing.
"""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

from ..adapters._endpoint import FAKE_HEADER, Endpoint

__all__ = ["PROBE_TIMEOUT", "FakeServers", "probe"]

#: Seconds a probe waits for an answer; a server that does not answer is taken not to be
#: the fake (its replies are not served: the calls are made, and fail as the server does).
PROBE_TIMEOUT = 2.0


async def probe(endpoint: Endpoint) -> bool:
    """Whether the server at `endpoint` says it is the fake (any status, with its mark)."""
    if urlsplit(endpoint.url).scheme not in ("http", "https"):
        return False  # the fake is reached over HTTP only
    import aiohttp

    timeout = aiohttp.ClientTimeout(total=PROBE_TIMEOUT)
    try:
        async with (
            aiohttp.ClientSession(timeout=timeout) as session,
            session.get(endpoint.url, allow_redirects=False) as response,
        ):
            return FAKE_HEADER in response.headers
    except (aiohttp.ClientError, TimeoutError, ValueError):
        return False


class FakeServers:
    """What a jury knows of the servers its calls go to, by origin (``scheme://host:port``,
    one process): whether each is the fake. A live reply teaches it (`learn`); `is_fake` asks
    the server once (`probe`) when nothing has yet, the other calls that need it waiting."""

    __slots__ = ("_known", "_probing")

    def __init__(self) -> None:
        self._known: dict[str, bool] = {}
        self._probing: dict[str, asyncio.Event] = {}

    def known(self, endpoint: Endpoint) -> bool | None:
        """True: the fake; False: another server; None: not known yet."""
        return self._known.get(endpoint.origin)

    def learn(self, endpoint: Endpoint, fake: bool) -> None:
        """What a live reply from `endpoint` said (it outranks a probe)."""
        self._known[endpoint.origin] = fake

    async def is_fake(self, endpoint: Endpoint) -> bool:
        origin = endpoint.origin
        while (known := self._known.get(origin)) is None:
            waiting = self._probing.get(origin)
            if waiting is not None:
                await waiting.wait()
                continue
            event = self._probing[origin] = asyncio.Event()
            try:
                found = await probe(endpoint)
                self._known.setdefault(origin, found)
            finally:
                del self._probing[origin]
                event.set()
        return known
