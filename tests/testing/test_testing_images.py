"""The strict fake's rules for images (each rule's source is in jury/testing/_images.py): what
each API refuses of an image part (its media type, its bytes, its size, the count, a model
that takes none), and that it takes a good one."""

from __future__ import annotations

import base64
import json
from typing import Any

import aiohttp
import pytest
from images_helpers import BMP, JPEG, PNG, URL

from conftest import FAKE_HEADERS
from jury.testing import FakeProviderServer

#: Over the 5 MB limit once the test lowers it to 1000 bytes (5 MB is not sent in a test).
BIG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 1000).decode()


async def post(server: FakeProviderServer, path: str, sent: dict[str, Any]) -> tuple[int, str]:
    async with (
        aiohttp.ClientSession() as session,
        session.post(server.url + path, json=sent, headers=FAKE_HEADERS) as response,
    ):
        return response.status, json.dumps(json.loads(await response.read()))


# --- Anthropic ------------------------------------------------------------------------------


def claude(*blocks: dict[str, Any]) -> dict[str, Any]:
    content = [{"type": "text", "text": "What is this?"}, *blocks]
    return {
        "model": "claude-haiku-4-5-20251001",
        "max_tokens": 64,
        "messages": [{"role": "user", "content": content}],
    }


def base64_block(data: str, media_type: str = "image/png") -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}


@pytest.mark.parametrize(
    ("block", "words"),
    [
        (base64_block(BMP, "image/bmp"), "Input should be 'image/jpeg', 'image/png', 'image/gif'"),
        (
            base64_block("not base64!"),
            "messages.0.content.1.image.source.base64.data: invalid base64",
        ),
        (base64_block(JPEG, "image/png"), "Image does not match the provided media type image/png"),
        (base64_block(BIG), "image exceeds 5 MB maximum: 1008 bytes > 1000 bytes"),
        ({"type": "image", "source": {"type": "url", "url": "ftp://x"}}, "source.url: Invalid URL"),
        ({"type": "image", "source": {"type": "file"}}, "does not match any expected tag"),
    ],
)
async def test_anthropic_refuses_an_image_block_the_api_refuses(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch, block: dict[str, Any], words: str
) -> None:
    monkeypatch.setattr("jury.testing._images.ANTHROPIC_MAX_BYTES", 1000)
    status, said = await post(server, "/v1/messages", claude(block))
    assert status == 400
    assert words in said


async def test_anthropic_refuses_more_than_100_images_in_one_request(
    server: FakeProviderServer,
) -> None:
    status, said = await post(server, "/v1/messages", claude(*[base64_block(PNG)] * 101))
    assert status == 400
    assert "Too many images: 101 > 100" in said


@pytest.mark.parametrize(
    "block",
    [
        base64_block(PNG),
        base64_block(JPEG, "image/jpeg"),
        {"type": "image", "source": {"type": "url", "url": URL}},
    ],
)
async def test_anthropic_takes_a_good_image(
    server: FakeProviderServer, block: dict[str, Any]
) -> None:
    status, said = await post(server, "/v1/messages", claude(block))
    assert status == 200, said


# --- OpenAI Chat Completions ----------------------------------------------------------------


def chat(url: str, model: str = "gpt-4.1-mini-2025-04-14", **image: Any) -> dict[str, Any]:
    part = {"type": "image_url", "image_url": {"url": url, **image}}
    return {
        "model": model,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "What?"}, part]}],
    }


@pytest.mark.parametrize(
    ("sent", "words"),
    [
        (chat(URL, "gpt-3.5-turbo-0125"), "image_url is only supported by certain models"),
        (chat(URL, "o3-mini-2025-01-31"), "image_url is only supported by certain models"),
        # A compatible server's model that is not multimodal (vLLM: "must be a multimodal model").
        (chat(URL, "llama-3.1-8b-instruct"), "image_url is only supported by certain models"),
        (chat("data:image/png;base64,@@@"), "expected a URL or a base64 data URL"),
        (chat("file:///etc/passwd"), "expected a URL or a base64 data URL"),
        (chat(f"data:image/bmp;base64,{BMP}"), "unsupported image"),
        (chat(f"data:image/png;base64,{JPEG}"), "unsupported image"),
        (chat(URL, detail="ultra"), "Supported values are: 'low', 'high' and 'auto'"),
    ],
)
async def test_openai_refuses_an_image_part_the_api_refuses(
    server: FakeProviderServer, sent: dict[str, Any], words: str
) -> None:
    status, said = await post(server, "/v1/chat/completions", sent)
    assert status == 400
    assert words in said


async def test_openai_refuses_an_image_in_an_assistants_turn(server: FakeProviderServer) -> None:
    sent = chat(URL)
    sent["messages"] = [
        {"role": "user", "content": "Look"},
        {"role": "assistant", "content": sent["messages"][0]["content"]},
        {"role": "user", "content": "Well?"},
    ]
    status, said = await post(server, "/v1/chat/completions", sent)
    assert status == 400
    assert "Invalid value: 'image_url'" in said


@pytest.mark.parametrize(
    "sent",
    [
        chat(URL),
        chat(f"data:image/png;base64,{PNG}", detail="low"),
        chat(URL, "qwen2.5-vl-7b-instruct"),
    ],
)
async def test_openai_takes_a_good_image(server: FakeProviderServer, sent: dict[str, Any]) -> None:
    status, said = await post(server, "/v1/chat/completions", sent)
    assert status == 200, said


# --- Gemini ---------------------------------------------------------------------------------

GEMINI = "/v1beta/models/gemini-2.5-flash:generateContent"


def gemini(part: dict[str, Any]) -> dict[str, Any]:
    return {"contents": [{"role": "user", "parts": [{"text": "What?"}, part]}]}


@pytest.mark.parametrize(
    ("part", "words"),
    [
        (
            {"inlineData": {"mimeType": "image/png", "data": "@@@"}},
            "Invalid value at 'contents[0].parts[1].inline_data.data' (TYPE_BYTES)",
        ),
        (
            {"inlineData": {"mimeType": "image/gif", "data": PNG}},
            "Unsupported MIME type: image/gif",
        ),
        (
            {"fileData": {"mimeType": "image/bmp", "fileUri": URL}},
            "Unsupported MIME type: image/bmp",
        ),
        ({"fileData": {"mimeType": "image/png"}}, "a file part needs a fileUri"),
    ],
)
async def test_gemini_refuses_an_image_part_the_api_refuses(
    server: FakeProviderServer, part: dict[str, Any], words: str
) -> None:
    status, said = await post(server, GEMINI, gemini(part))
    assert status == 400
    assert words in said


async def test_gemini_refuses_inline_data_over_100_mb(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The limit, lowered for the test: 100 MB of base64 is not sent through a test.
    monkeypatch.setattr("jury.testing._images.GOOGLE_MAX_INLINE", 1000)
    data = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 1000).decode()
    status, said = await post(
        server, GEMINI, gemini({"inlineData": {"mimeType": "image/png", "data": data}})
    )
    assert status == 400
    assert "Request payload size exceeds the limit: 1000 bytes." in said


@pytest.mark.parametrize(
    "part",
    [
        {"inlineData": {"mimeType": "image/png", "data": PNG}},
        # URL-safe base64 and snake_case keys, as google-genai sends a Blob.
        {"inlineData": {"mime_type": "image/png", "data": PNG.replace("+", "-")}},
        {"fileData": {"mime_type": "image/jpeg", "file_uri": URL}},
    ],
)
async def test_gemini_takes_a_good_image(server: FakeProviderServer, part: dict[str, Any]) -> None:
    status, said = await post(server, GEMINI, gemini(part))
    assert status == 200, said
