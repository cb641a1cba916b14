"""The strict fake reads each protocol's credential and version headers where its API does,
answers a missing one as the API does, and answers a key the account refuses in the API's
own words (Gemini: 400 INVALID_ARGUMENT with ErrorInfo API_KEY_INVALID, not a 401)."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest
from test_testing_strict import ANTHROPIC, OPENAI, anthropic_body, gemini, gemini_body, openai_body

from conftest import FAKE_KEY
from jury.testing import FakeProviderServer

ANTHROPIC_HEADERS = {"x-api-key": FAKE_KEY, "anthropic-version": "2023-06-01"}


async def post(
    server: FakeProviderServer, path: str, body: Any, headers: dict[str, str]
) -> tuple[int, Any]:
    async with (
        aiohttp.ClientSession() as session,
        session.post(server.url + path, json=body, headers=headers) as response,
    ):
        return response.status, json.loads(await response.read())


@pytest.mark.parametrize(
    ("path", "body", "headers", "status", "words"),
    [
        (ANTHROPIC, anthropic_body(), {"anthropic-version": "2023-06-01"}, 401, "x-api-key"),
        (ANTHROPIC, anthropic_body(), {"x-api-key": FAKE_KEY}, 400, "anthropic-version"),
        (OPENAI, openai_body(), {}, 401, "Authorization header using Bearer"),
        (OPENAI, openai_body(), {"authorization": f"Token {FAKE_KEY}"}, 401, "Bearer"),
        (gemini(), gemini_body(), {}, 403, "unregistered callers"),
    ],
)
async def test_a_request_without_the_protocols_credential_or_version_is_refused(
    path: str, body: Any, headers: dict[str, str], status: int, words: str
) -> None:
    async with FakeProviderServer() as server:
        code, reply = await post(server, path, body, headers)
    assert code == status
    assert words in json.dumps(reply)


@pytest.mark.parametrize(
    ("path", "body", "headers"),
    [
        (ANTHROPIC, anthropic_body(), ANTHROPIC_HEADERS),
        # The anthropic SDK sends the key as a bearer token (anthropic/_client.py).
        (
            ANTHROPIC,
            anthropic_body(),
            {"authorization": f"Bearer {FAKE_KEY}", "anthropic-version": "2023-06-01"},
        ),
        (OPENAI, openai_body(), {"authorization": f"Bearer {FAKE_KEY}"}),
        (gemini(), gemini_body(), {"x-goog-api-key": FAKE_KEY}),
        # Compatible servers on the OpenAI route take no key.
        (OPENAI, openai_body("llama-3.1-8b-instruct"), {}),
    ],
)
async def test_a_request_with_its_protocols_headers_is_answered(
    path: str, body: Any, headers: dict[str, str]
) -> None:
    async with FakeProviderServer() as server:
        code, _ = await post(server, path, body, headers)
    assert code == 200


async def test_a_refused_key_is_answered_in_each_apis_words() -> None:
    async with FakeProviderServer() as server:
        server.rejected_keys.add(FAKE_KEY)
        google = await post(server, gemini(), gemini_body(), {"x-goog-api-key": FAKE_KEY})
        openai = await post(server, OPENAI, openai_body(), {"authorization": f"Bearer {FAKE_KEY}"})
        anthropic = await post(server, ANTHROPIC, anthropic_body(), ANTHROPIC_HEADERS)
    status, body = google
    assert status == 400
    assert body["error"]["status"] == "INVALID_ARGUMENT"
    assert body["error"]["details"][0]["reason"] == "API_KEY_INVALID"
    assert openai[0] == 401
    assert openai[1]["error"]["code"] == "invalid_api_key"
    assert anthropic[0] == 401
    assert anthropic[1]["error"]["type"] == "authentication_error"


async def test_a_lenient_fake_checks_no_headers_but_still_refuses_a_refused_key() -> None:
    async with FakeProviderServer(strict=False) as server:
        assert (await post(server, OPENAI, openai_body(), {}))[0] == 200
        server.rejected_keys.add(FAKE_KEY)
        headers = {"authorization": f"Bearer {FAKE_KEY}"}
        assert (await post(server, OPENAI, openai_body(), headers))[0] == 401
