"""What the providers' batch APIs share: the `BatchAPI` of a `WireModel`, and the direct HTTP
client its calls travel over.

A provider's batch API is two halves, like its online calls: the mapping (each request as a
line of the batch input, whose body is exactly the online call's; the provider's batch and
result JSON read into a `BatchStatus` and `BatchOutcome` objects, a succeeded reply parsed by
the online wire) and the transport, a `BatchClient` per transport that returns the provider's
JSON: the direct one over aiohttp, the SDK one through the official client's batch resources
(the reference the tests compare against). ``JURY_TRANSPORT`` picks it, as for online calls.
"""

from __future__ import annotations

import asyncio
import json
from abc import ABC
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from contextlib import aclosing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jury import ProviderError
from jury.adapters import FAKE_HEADER, BatchAPI, JudgeReply, batch_price

from ._wire import HttpStatusError, MalformedReplyError, json_object, sendable

if TYPE_CHECKING:
    from ._wire import WireModel

__all__ = [
    "BatchClient",
    "Http",
    "WireBatches",
    "file_chunks",
    "file_lines",
    "json_list",
    "jsonl",
    "newest_first",
    "probe_fake",
    "seconds",
]

#: Bytes read from a batch input file at a time when it is streamed to the provider.
CHUNK = 1 << 20


class BatchClient(ABC):  # noqa: B024 - each provider's client declares its calls
    """How one provider's batch calls travel. Methods return the provider's JSON.

    `fake`: whether the server that answered the last call that read results is
    `jury.testing`'s fake (it marks every response with `FAKE_HEADER`, batch routes included):
    the replies read from it are then marked `JudgeReply.fake`, priced $0 and labelled FAKE,
    as its online replies are. The direct client reads the mark off each response; the SDK
    clients, whose batch resources keep no headers, ask the server (`probe_fake`)."""

    fake: bool = False

    async def aclose(self) -> None:  # noqa: B027 - the SDK's client belongs to the transport
        """Close connections."""


class WireBatches(BatchAPI):
    """A `WireModel`'s batch API: its model (to parse replies, classify errors and price),
    its client, and the provider's published discount where the price table has no batch
    rate."""

    #: The provider's published batch price, as a share of the online price (each subclass
    #: cites its source).
    discount: float = 0.5

    def __init__(self, model: WireModel, client: BatchClient) -> None:
        self.model = model
        self.client = client

    def price(self, reply: JudgeReply) -> float | None:
        if reply.fake:
            return 0.0  # no one is billed for the fake's replies, batched or not
        served = reply.model or self.model.model
        priced = batch_price(self.model.wire.provider, served, reply.usage)
        if priced is not None:
            return priced
        online = self.model.price(reply)
        return None if online is None else online * self.discount

    def parse(self, body: Any) -> JudgeReply:
        """A succeeded request's reply body, read as the online call's (a broken one raises
        `MalformedReplyError`, which the engine reads as an errored request)."""
        if not isinstance(body, Mapping):
            raise MalformedReplyError("the batch result carries no reply body")
        reply = self.model.wire.parse(self.model.model, body)
        if self.client.fake:
            reply.fake = True
        return reply

    def request_error(self, status: int, message: str, body: Any) -> ProviderError:
        """A batched request's error, read as its online call's would be: the wire's own
        reading of the error body first, so that an account stop inside a batch (a quota, a
        billing error) stops the run as it does online."""
        return self.model.status_error(status, message, {}, body)

    async def aclose(self) -> None:
        await self.client.aclose()


async def file_chunks(path: Path) -> AsyncGenerator[bytes, None]:
    """A batch input file, chunk by chunk, read off the event loop: a streamed upload. (Its
    callers close it with ``aclosing``: a server that refuses the call before reading the
    body leaves it unfinished, and the file open until it is collected.)"""
    # Opened here, not in a thread: a call cancelled while a thread opened it (a server that
    # refuses the call before reading its body) would leave the file open.
    handle = open(path, "rb")  # noqa: ASYNC230, SIM115 - closed below; opening does not wait
    try:
        while chunk := await asyncio.to_thread(handle.read, CHUNK):
            yield chunk
    finally:
        handle.close()


async def json_list(path: Path, head: bytes, tail: bytes) -> AsyncGenerator[bytes, None]:
    """The lines of a batch input file as the items of a JSON list, between `head` and
    `tail`: a request body streamed from disk. (A JSON line holds no raw newline, so each
    newline but the last becomes a comma.)"""
    yield head + b"["
    held = b""
    async with aclosing(file_chunks(path)) as chunks:
        async for chunk in chunks:
            joined = held + chunk
            held = joined[-1:]
            yield joined[:-1].replace(b"\n", b",")
    if held not in (b"", b"\n"):
        yield held
    yield b"]" + tail


async def file_lines(path: Path) -> list[dict[str, Any]]:
    """A batch input file's lines as objects, read off the event loop (for the SDKs, which
    take a batch's requests as a list)."""
    return jsonl(await asyncio.to_thread(path.read_bytes))


class Http:
    """JSON over one aiohttp session with a provider's headers (the direct transport's
    batch calls). A status >= 400 raises `HttpStatusError`, classified as online."""

    def __init__(self, headers: Mapping[str, str]) -> None:
        self._headers = dict(headers)
        self._session: Any = None
        #: Whether the last response carried the fake's mark (`BatchClient.fake`).
        self.fake = False

    def _open(self) -> Any:
        if self._session is None:
            import aiohttp

            self._session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=None, sock_read=300),
                connector=aiohttp.TCPConnector(limit=8),
            )
        return self._session

    async def call(self, method: str, url: str, **options: Any) -> dict[str, Any]:
        """One call (see `read` for the options); its reply's JSON object."""
        return json_object(await self.read(method, url, **options))

    async def read(
        self,
        method: str,
        url: str,
        *,
        body: Any = None,
        data: Any = None,
        params: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> bytes:
        """One call; its reply's bytes."""
        sent = {**self._headers, **(headers or {})}
        if body is not None:
            data = json.dumps(body, ensure_ascii=False).encode()
            sent["content-type"] = "application/json"
        if isinstance(data, bytes):
            data = sendable(data)
        async with self._open().request(
            method, url, data=data, params=params, headers=sent
        ) as response:
            raw: bytes = await response.read()
            self.fake = FAKE_HEADER in response.headers
            if response.status >= 400:
                found = {k.lower(): v for k, v in response.headers.items()}
                raise HttpStatusError(response.status, found, raw.decode(errors="replace"))
        return raw

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


async def probe_fake(url: str) -> bool:
    """Whether the server at `url` is `jury.testing`'s fake: one GET, whatever its status,
    that the fake answers with its mark, as it answers everything (a server that does not
    answer is not taken for the fake: its replies stay priced and unlabelled)."""
    import aiohttp

    timeout = aiohttp.ClientTimeout(total=5)
    try:
        async with (
            aiohttp.ClientSession(timeout=timeout) as session,
            session.get(url, allow_redirects=False) as response,
        ):
            return FAKE_HEADER in response.headers
    except (aiohttp.ClientError, TimeoutError, ValueError):
        return False


async def newest_first(
    page: Callable[[str | None], Awaitable[Mapping[str, Any]]],
    matches: Callable[[Mapping[str, Any]], bool],
    since: float,
) -> Mapping[str, Any] | None:
    """The first batch of an account's list (newest first, paged by ``last_id``) that
    `matches`, looking no further back than `since` (UNIX seconds)."""
    after: str | None = None
    while True:
        found = await page(after)
        batches: list[Mapping[str, Any]] = list(found.get("data") or ())
        for batch in batches:
            if matches(batch):
                return batch
            if (seconds(batch.get("created_at")) or 0) < since:
                return None
        if not found.get("has_more") or not found.get("last_id"):
            return None
        after = str(found["last_id"])


def jsonl(raw: bytes) -> list[dict[str, Any]]:
    """The objects of a JSONL body (blank lines skipped; a broken line is the provider's
    glitch, raised as a malformed reply)."""
    found = []
    for line in raw.splitlines():
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError:
            raise MalformedReplyError("a batch result line is not JSON") from None
        if isinstance(item, dict):
            found.append(item)
    return found


def seconds(value: Any) -> float | None:
    """A time as UNIX seconds: a number, or an RFC 3339 string."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str) and value:
        from datetime import datetime

        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None
