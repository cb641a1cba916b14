"""The fake's account rules (issue 34): its batch routes are gated as the online calls are,
an account that cannot pay cannot create a batch, an account stop inside a batch is that
request's error (never a 200), and the stops the SDKs name are answered in their shapes:
Anthropic ``organization_on_hold`` and ``ramp_limit_exceeded`` (SDK 2.16
``_error_classes.py``), ``timeout_error`` and ``conflict_error`` (``types/shared/
error_type.py``), Gemini's prepaid credits used up as HTTP 402 ``RESOURCE_EXHAUSTED``."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest

from conftest import FAKE_HEADERS, FAKE_KEY
from jury.testing import FakeProviderServer, Fault
from jury.testing._batches import BATCHES

OPENAI_MODEL = "gpt-5.4-mini-2026-03-17"
ANTHROPIC_MODEL = "claude-haiku-5-5"
GEMINI_MODEL = "gemini-3.5-flash-lite"
GEMINI_CREATE = f"/v1beta/models/{GEMINI_MODEL}:batchGenerateContent"


async def call(
    server: FakeProviderServer,
    method: str,
    path: str,
    headers: dict[str, str] | None = None,
    **options: Any,
) -> tuple[int, Any, dict[str, str]]:
    async with (
        aiohttp.ClientSession() as session,
        session.request(
            method,
            server.url + path,
            headers=FAKE_HEADERS if headers is None else headers,
            **options,
        ) as response,
    ):
        raw = await response.read()
        found = {k.lower(): v for k, v in response.headers.items()}
        try:
            return response.status, json.loads(raw), found
        except ValueError:
            return response.status, raw, found


def anthropic_batch() -> dict[str, Any]:
    params = {"model": ANTHROPIC_MODEL, "max_tokens": 10}
    params["messages"] = [{"role": "user", "content": "hi"}]
    return {"requests": [{"custom_id": "a", "params": params}]}


def gemini_batch() -> dict[str, Any]:
    contents = [{"role": "user", "parts": [{"text": "hi"}]}]
    inline = [{"request": {"contents": contents}, "metadata": {"key": "a"}}]
    return {"batch": {"displayName": "x", "inputConfig": {"requests": {"requests": inline}}}}


async def openai_batch(server: FakeProviderServer) -> tuple[int, Any]:
    """Upload one request and create its batch: the create's status and body."""
    line = {
        "custom_id": "a",
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": {"model": OPENAI_MODEL, "messages": [{"role": "user", "content": "hi"}]},
    }
    form = aiohttp.FormData()
    form.add_field("purpose", "batch")
    form.add_field("file", json.dumps(line).encode() + b"\n", filename="in.jsonl")
    status, uploaded, _ = await call(server, "POST", "/v1/files", data=form)
    assert status == 200, uploaded
    body = {"input_file_id": uploaded["id"], "endpoint": "/v1/chat/completions"}
    status, batch, _ = await call(
        server, "POST", "/v1/batches", json=body | {"completion_window": "24h"}
    )
    return status, batch


# --- the gates -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        # https://platform.openai.com/docs/api-reference/authentication: every call.
        ("GET", "/v1/batches", 401),
        ("POST", "/v1/files", 401),
        ("GET", "/v1/files/file-x/content", 401),
        # https://docs.anthropic.com/en/api/overview: x-api-key on every call.
        ("GET", "/v1/messages/batches", 401),
        ("POST", "/v1/messages/batches", 401),
        # https://ai.google.dev/api#authentication: the key on every call.
        ("POST", GEMINI_CREATE, 403),
        ("GET", "/v1beta/batches", 403),
    ],
)
async def test_every_batch_route_refuses_a_call_without_a_credential(
    server: FakeProviderServer, method: str, path: str, status: int
) -> None:
    found, body, _ = await call(server, method, path, headers={})
    assert found == status, body
    assert not server.batches.jobs


async def test_anthropic_batches_refuse_a_call_without_the_version_header(
    server: FakeProviderServer,
) -> None:
    headers = {"x-api-key": FAKE_KEY}
    status, body, _ = await call(
        server, "POST", "/v1/messages/batches", headers=headers, json=anthropic_batch()
    )
    assert status == 400
    assert "anthropic-version" in body["error"]["message"]


async def test_a_lenient_fake_takes_batch_calls_without_headers() -> None:
    async with FakeProviderServer(strict=False) as server:
        status, _, _ = await call(
            server, "POST", "/v1/messages/batches", headers={}, json=anthropic_batch()
        )
        assert status == 200


@pytest.mark.parametrize(
    ("provider", "status", "words"),
    [
        ("openai", 401, "invalid_api_key"),
        ("anthropic", 401, "authentication_error"),
        ("google", 400, "API_KEY_INVALID"),
    ],
)
async def test_a_rejected_key_is_refused_at_batch_create_in_each_apis_words(
    server: FakeProviderServer, provider: str, status: int, words: str
) -> None:
    server.rejected_keys.add(FAKE_KEY)
    if provider == "openai":
        found, body, _ = await call(server, "GET", "/v1/batches")
    elif provider == "anthropic":
        found, body, _ = await call(server, "POST", "/v1/messages/batches", json=anthropic_batch())
    else:
        found, body, _ = await call(server, "POST", GEMINI_CREATE, json=gemini_batch())
    assert found == status
    assert words in json.dumps(body)
    assert not server.batches.jobs


# --- account stops at batch create -----------------------------------------------------------


async def test_an_anthropic_account_stop_refuses_the_batch_create_in_its_words(
    server: FakeProviderServer,
) -> None:
    server.inject(Fault.account("billing"), model=BATCHES)
    status, body, _ = await call(server, "POST", "/v1/messages/batches", json=anthropic_batch())
    assert status == 402
    assert body["error"]["type"] == "billing_error"
    assert not server.batches.jobs
    # Taken once: the next create goes through.
    status, _, _ = await call(server, "POST", "/v1/messages/batches", json=anthropic_batch())
    assert status == 200


async def test_an_openai_quota_used_up_refuses_the_batch_create(
    server: FakeProviderServer,
) -> None:
    server.inject(Fault.quota(), model=BATCHES)
    status, body = await openai_batch(server)
    assert status == 429
    assert body["error"]["code"] == "insufficient_quota"


async def test_gemini_prepaid_credits_used_up_refuse_the_batch_create_with_402(
    server: FakeProviderServer,
) -> None:
    server.inject(Fault.account("prepay"), model=BATCHES)
    status, body, _ = await call(server, "POST", GEMINI_CREATE, json=gemini_batch())
    assert status == 402
    assert body["error"]["status"] == "RESOURCE_EXHAUSTED"
    assert "prepayment credits are depleted" in body["error"]["message"]


# --- account stops inside a batch ------------------------------------------------------------


async def anthropic_result(server: FakeProviderServer) -> dict[str, Any]:
    status, batch, _ = await call(server, "POST", "/v1/messages/batches", json=anthropic_batch())
    assert status == 200, batch
    status, raw, _ = await call(server, "GET", f"/v1/messages/batches/{batch['id']}/results")
    assert status == 200
    result: dict[str, Any] = raw["result"]  # its one line of JSONL, read whole
    return result


@pytest.mark.parametrize(
    ("fault", "kind"),
    [
        (Fault.account("billing"), "billing_error"),
        (Fault.account("usage_limits"), "invalid_request_error"),
        (Fault.http(504), "timeout_error"),
        (Fault.http(409), "conflict_error"),
        (Fault.overloaded(), "overloaded_error"),
    ],
)
async def test_an_anthropic_request_errors_in_its_batch_with_the_online_error_type(
    server: FakeProviderServer, fault: Fault, kind: str
) -> None:
    server.inject(fault, model=ANTHROPIC_MODEL)
    result = await anthropic_result(server)
    assert result["type"] == "errored"
    assert result["error"]["type"] == "error"
    assert result["error"]["error"]["type"] == kind


async def test_an_openai_request_over_its_quota_is_in_the_error_file_with_its_429(
    server: FakeProviderServer,
) -> None:
    server.inject(Fault.quota(), model=OPENAI_MODEL)
    status, batch = await openai_batch(server)
    assert status == 200
    _, batch, _ = await call(server, "GET", f"/v1/batches/{batch['id']}")
    assert batch["output_file_id"] is None
    _, raw, _ = await call(server, "GET", f"/v1/files/{batch['error_file_id']}/content")
    line = raw  # one line of JSON, read whole
    assert line["response"]["status_code"] == 429
    assert line["response"]["body"]["error"]["code"] == "insufficient_quota"


async def test_a_gemini_request_without_prepaid_credit_errors_resource_exhausted_in_its_batch(
    server: FakeProviderServer,
) -> None:
    server.inject(Fault.account("prepay"), model=GEMINI_MODEL)
    status, operation, _ = await call(server, "POST", GEMINI_CREATE, json=gemini_batch())
    assert status == 200, operation
    _, done, _ = await call(server, "GET", f"/v1beta/{operation['name']}")
    (item,) = done["metadata"]["output"]["inlinedResponses"]["inlinedResponses"]
    assert item["error"]["code"] == 8  # google.rpc RESOURCE_EXHAUSTED
    assert "prepayment credits are depleted" in item["error"]["message"]


async def test_a_gemini_per_day_quota_inside_a_batch_keeps_its_quota_failure(
    server: FakeProviderServer,
) -> None:
    server.inject(Fault.quota(), model=GEMINI_MODEL)
    _, operation, _ = await call(server, "POST", GEMINI_CREATE, json=gemini_batch())
    _, done, _ = await call(server, "GET", f"/v1beta/{operation['name']}")
    (item,) = done["metadata"]["output"]["inlinedResponses"]["inlinedResponses"]
    assert item["error"]["code"] == 8
    (failure,) = [d for d in item["error"]["details"] if "QuotaFailure" in d["@type"]]
    assert "PerDay" in failure["violations"][0]["quotaId"]


# --- online: the stops the SDKs name ---------------------------------------------------------


@pytest.mark.parametrize(
    ("fault", "error_class", "status"),
    [
        # The SDK's _error_classes.py: (400, "organization_on_hold"), (429,
        # "ramp_limit_exceeded"), read from error.details.error_code.
        (
            Fault.account("organization_on_hold"),
            "organization_on_hold_error.OrganizationOnHoldError",
            400,
        ),
        (
            Fault.account("ramp_limit", retry_after=30),
            "ramp_limit_exceeded_error.RampLimitExceededError",
            429,
        ),
    ],
)
async def test_an_anthropic_account_error_is_the_one_the_sdk_names(
    server: FakeProviderServer, fault: Fault, error_class: str, status: int
) -> None:
    import importlib

    import anthropic

    module, name = error_class.split(".")
    expected = getattr(importlib.import_module(f"anthropic.types.shared.{module}"), name)
    server.inject(fault, model=ANTHROPIC_MODEL)
    client = anthropic.AsyncAnthropic(api_key=FAKE_KEY, base_url=server.url, max_retries=0)
    with pytest.raises(expected) as caught:
        await client.messages.create(
            model=ANTHROPIC_MODEL, max_tokens=10, messages=[{"role": "user", "content": "hi"}]
        )
    await client.close()
    assert caught.value.status_code == status
    if status == 400:  # where to appeal
        assert caught.value.body["error"]["details"]["appeal_url"].startswith("https://")
    else:  # when to come back
        assert caught.value.response.headers["retry-after"] == "30"


async def test_gemini_prepaid_credits_used_up_answer_402_resource_exhausted_online(
    server: FakeProviderServer,
) -> None:
    server.inject(Fault.account("prepay"), model=GEMINI_MODEL)
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    status, reply, _ = await call(
        server, "POST", f"/v1beta/models/{GEMINI_MODEL}:generateContent", json=body
    )
    assert status == 402
    assert reply["error"] == {
        "code": 402,
        "message": reply["error"]["message"],
        "status": "RESOURCE_EXHAUSTED",
    }
    assert reply["error"]["message"].startswith("Your prepayment credits are depleted.")
