"""The fake server's batch APIs refuse what the real ones refuse, in their shapes."""

from __future__ import annotations

import io
import json
from typing import Any

import aiohttp
import pytest

from conftest import FAKE_HEADERS
from jury.testing import FakeProviderServer


async def call(
    server: FakeProviderServer, method: str, path: str, **options: Any
) -> tuple[int, Any]:
    # Every batch route checks the credential and version headers, as the online calls do.
    headers = FAKE_HEADERS | options.pop("headers", {})
    async with (
        aiohttp.ClientSession() as session,
        session.request(method, server.url + path, headers=headers, **options) as response,
    ):
        raw = await response.read()
        try:
            return response.status, json.loads(raw)
        except ValueError:
            return response.status, raw


def line(custom_id: str, model: str = "gpt-5.4-mini-2026-03-17", **extra: Any) -> dict[str, Any]:
    body = {"model": model, "messages": [{"role": "user", "content": "hi"}]}
    return {
        "custom_id": custom_id,
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": body,
    } | extra


async def upload(server: FakeProviderServer, lines: list[dict[str, Any]], **fields: str) -> Any:
    form = aiohttp.FormData()
    form.add_field("purpose", fields.get("purpose", "batch"))
    content = "".join(json.dumps(x) + "\n" for x in lines).encode()
    form.add_field("file", content, filename=fields.get("filename", "in.jsonl"))
    return await call(server, "POST", "/v1/files", data=form)


async def test_openai_takes_a_batch_input_only_as_a_jsonl_file_of_purpose_batch(
    server: FakeProviderServer,
) -> None:
    assert (await upload(server, [line("a")], filename="in.txt"))[0] == 400
    status, uploaded = await upload(server, [line("a")], purpose="assistants", filename="a.jsonl")
    assert status == 200
    status, body = await call(
        server,
        "POST",
        "/v1/batches",
        json={
            "input_file_id": uploaded["id"],
            "endpoint": "/v1/chat/completions",
            "completion_window": "24h",
        },
    )
    assert status == 400
    assert "purpose" in body["error"]["message"]


@pytest.mark.parametrize(
    ("change", "word"),
    [
        ({"completion_window": "48h"}, "completion_window"),
        ({"endpoint": "/v1/responses"}, "endpoint"),
        ({"metadata": {f"k{n}": "v" for n in range(17)}}, "metadata"),
        ({"input_file_id": "file-nope"}, "No such File"),
    ],
)
async def test_openai_refuses_a_batch_create_it_cannot_run(
    server: FakeProviderServer, change: dict[str, Any], word: str
) -> None:
    _, uploaded = await upload(server, [line("a")])
    body = {"input_file_id": uploaded["id"], "endpoint": "/v1/chat/completions"}
    body |= {"completion_window": "24h", **change}
    status, reply = await call(server, "POST", "/v1/batches", json=body)
    assert status == 400
    assert word in reply["error"]["message"]


@pytest.mark.parametrize(
    ("lines", "code"),
    [
        ([line("a"), line("a")], "duplicate_custom_id"),
        ([line("a"), line("b", model="gpt-4.1-2025-04-14")], "mismatched_model"),
        ([line("a", url="/v1/embeddings")], "mismatched_endpoint"),
    ],
)
async def test_openai_fails_a_batch_whose_file_breaks_the_rules_after_accepting_it(
    server: FakeProviderServer, lines: list[dict[str, Any]], code: str
) -> None:
    _, uploaded = await upload(server, lines)
    body = {"input_file_id": uploaded["id"], "endpoint": "/v1/chat/completions"}
    status, batch = await call(
        server, "POST", "/v1/batches", json=body | {"completion_window": "24h"}
    )
    assert status == 200
    assert batch["status"] == "failed"
    assert batch["errors"]["object"] == "list"
    assert code in {error["code"] for error in batch["errors"]["data"]}
    assert batch["output_file_id"] is None


async def test_openai_lists_batches_newest_first_in_pages(server: FakeProviderServer) -> None:
    made = []
    for n in range(3):
        _, uploaded = await upload(server, [line(f"x{n}")])
        body = {"input_file_id": uploaded["id"], "endpoint": "/v1/chat/completions"}
        made.append(
            (await call(server, "POST", "/v1/batches", json=body | {"completion_window": "24h"}))[
                1
            ]["id"]
        )
    _, first = await call(server, "GET", "/v1/batches", params={"limit": "2"})
    assert [b["id"] for b in first["data"]] == made[::-1][:2]
    assert first["has_more"] is True
    _, rest = await call(server, "GET", "/v1/batches", params={"after": first["last_id"]})
    assert [b["id"] for b in rest["data"]] == [made[0]]
    assert (await call(server, "GET", "/v1/batches", params={"limit": "101"}))[0] == 400


def request(custom_id: str) -> dict[str, Any]:
    params = {"model": "claude-haiku-5-5", "max_tokens": 10}
    params["messages"] = [{"role": "user", "content": "hi"}]
    return {"custom_id": custom_id, "params": params}


@pytest.mark.parametrize(
    "requests",
    [
        [],
        [request("has space")],
        [request("x" * 65)],
        [request("same"), request("same")],
    ],
)
async def test_anthropic_refuses_a_batch_without_requests_or_with_bad_custom_ids(
    server: FakeProviderServer, requests: list[dict[str, Any]]
) -> None:
    status, body = await call(server, "POST", "/v1/messages/batches", json={"requests": requests})
    assert status == 400
    assert body["type"] == "error"
    assert body["error"]["type"] == "invalid_request_error"


async def test_anthropic_has_no_results_before_a_batch_ends(server: FakeProviderServer) -> None:
    server.batches.delay = 60
    _, batch = await call(server, "POST", "/v1/messages/batches", json={"requests": [request("a")]})
    assert batch["processing_status"] == "in_progress"
    assert batch["results_url"] is None
    assert batch["request_counts"] == {
        "processing": 1, "succeeded": 0, "errored": 0, "expired": 0, "canceled": 0
    }  # fmt: skip
    status, _ = await call(server, "GET", f"/v1/messages/batches/{batch['id']}/results")
    assert status == 400


@pytest.mark.parametrize(
    "batch",
    [
        {"inputConfig": {"requests": {"requests": [{"request": {"contents": []}}]}}},
        {"displayName": "x", "inputConfig": {"requests": {"requests": []}}},
        {"displayName": "x", "inputConfig": {"fileName": "files/abc"}},
    ],
)
async def test_gemini_refuses_a_batch_without_a_name_or_requests(
    server: FakeProviderServer, batch: dict[str, Any]
) -> None:
    path = "/v1beta/models/gemini-3.5-flash-lite:batchGenerateContent"
    status, body = await call(server, "POST", path, json={"batch": batch})
    assert status == 400
    assert body["error"]["status"] == "INVALID_ARGUMENT"


async def test_gemini_refuses_inline_requests_over_twenty_megabytes(
    server: FakeProviderServer,
) -> None:
    big = {"contents": [{"role": "user", "parts": [{"text": "x" * 21_000_000}]}]}
    batch = {"displayName": "x", "inputConfig": {"requests": {"requests": [{"request": big}]}}}
    path = "/v1beta/models/gemini-3.5-flash-lite:batchGenerateContent"
    raw = io.BytesIO(json.dumps({"batch": batch}).encode())
    headers = {"content-type": "application/json"}
    status, _ = await call(server, "POST", path, data=raw, headers=headers)
    assert status == 400


async def test_a_whole_batch_can_expire(server: FakeProviderServer) -> None:
    server.batches.faults(expire_batches=1.0)
    contents = [{"role": "user", "parts": [{"text": "hi"}]}]
    inline = [{"request": {"contents": contents}, "metadata": {"key": "k"}}]
    body = {"displayName": "x", "inputConfig": {"requests": {"requests": inline}}}
    path = "/v1beta/models/gemini-3.5-flash-lite:batchGenerateContent"
    _, operation = await call(server, "POST", path, json={"batch": body})
    _, done = await call(server, "GET", f"/v1beta/{operation['name']}")
    assert done["metadata"]["state"] == "BATCH_STATE_EXPIRED"
    assert "output" not in done["metadata"]
