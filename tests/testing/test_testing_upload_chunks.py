"""The fake's OpenAI file upload reads a multipart body however its chunks arrive.

aiohttp's part reader, which the fake used before, pushed bytes back with its deprecated
`unread_data` when one read brought a few bytes of a part and the next more than its chunk
size (8192), and the suite (warnings are errors) failed the upload: a flake that depended on
how the network cut the body. Here the body is cut that way on purpose, piece by piece, each
piece sent alone while the server waits for the next.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import aiohttp
import pytest

from conftest import FAKE_HEADERS
from jury.testing import FakeProviderServer

BOUNDARY = "jury-chunks-4b1d"
# A part's content that looks like the body's own framing in places (dashes, a near-boundary),
# longer than the part reader's 8192-byte chunk so that a piece can bring more than it.
LINES = [
    {
        "custom_id": f"c{n}",
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": {
            "model": "gpt-5.4-mini-2026-03-17",
            "messages": [{"role": "user", "content": f"--{BOUNDARY[:-1]} line {n}\r\n" + "x" * 40}],
        },
    }
    for n in range(120)
]
CONTENT = "".join(json.dumps(x) + "\n" for x in LINES).encode()


def multipart(content: bytes) -> bytes:
    """The body as httpx (the OpenAI SDK's client) writes a `files.create` upload."""
    return (
        (
            f"--{BOUNDARY}\r\n"
            'Content-Disposition: form-data; name="purpose"\r\n\r\n'
            "batch\r\n"
            f"--{BOUNDARY}\r\n"
            'Content-Disposition: form-data; name="file"; filename="input.jsonl"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + content
        + f"\r\n--{BOUNDARY}--\r\n".encode()
    )


def cuts(body: bytes, content: bytes) -> list[bytes]:
    """The body in the pieces a slow network may give: up to a few bytes into the file, then a
    few bytes more, then more than the part reader's chunk at once, then a byte at a time near
    the closing boundary."""
    start = body.index(content)
    end = start + len(content)
    points = [start + 3, start + 8, start + 8 + 9000, *range(end - 4, len(body))]
    return [body[a:b] for a, b in zip([0, *points], [*points, len(body)], strict=True) if b > a]


async def paced(pieces: list[bytes]) -> AsyncIterator[bytes]:
    for piece in pieces:
        yield piece
        # Sent alone: the server reads this piece, and waits, before the next one is written.
        await asyncio.sleep(0.02)


@pytest.mark.timeout(60)
async def test_an_upload_whose_body_arrives_in_uneven_pieces_is_stored_once_as_sent(
    server: FakeProviderServer,
) -> None:
    body = multipart(CONTENT)
    pieces = cuts(body, CONTENT)
    assert b"".join(pieces) == body
    assert len(pieces) > 6
    headers = FAKE_HEADERS | {"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}
    async with (
        aiohttp.ClientSession() as session,
        session.post(server.url + "/v1/files", data=paced(pieces), headers=headers) as response,
    ):
        status, raw = response.status, await response.read()
    assert status == 200, raw
    uploaded = json.loads(raw)
    assert uploaded["object"] == "file"
    assert uploaded["purpose"] == "batch"
    assert uploaded["filename"] == "input.jsonl"
    assert uploaded["bytes"] == len(CONTENT)
    assert uploaded["status"] == "processed"
    assert list(server.batches.files) == [uploaded["id"]]
    assert server.batches.files[uploaded["id"]] == ("batch", "input.jsonl", CONTENT)
    async with (
        aiohttp.ClientSession() as session,
        session.get(
            f"{server.url}/v1/files/{uploaded['id']}/content", headers=FAKE_HEADERS
        ) as response,
    ):
        assert await response.read() == CONTENT
