"""Gemini batch mode for ``google/<model>`` (Gemini API keys; Vertex AI batches read from
Cloud Storage or BigQuery, which this adapter does not write).

Shapes (https://ai.google.dev/gemini-api/docs/batch-mode, https://ai.google.dev/api/batch-
api; google-genai's ``batches.py``: ``_CreateBatchJobParameters_to_mldev``,
``_BatchJob_from_mldev``, ``_InlinedResponse_from_mldev``, ``_ListBatchJobsResponse_from_mldev``):

- ``POST /v1beta/models/{model}:batchGenerateContent`` ``{"batch": {"displayName",
  "inputConfig": {"requests": {"requests": [{"request", "metadata": {"key"}}]}}}}``, each
  ``request`` being the online call's body; inline requests total at most 20 MB;
- the answer, and ``GET /v1beta/batches/{id}``, is an operation: ``{"name": "batches/{id}",
  "metadata": {"displayName", "state", "createTime", "batchStats", "output"}, "done"}``;
  ``GET /v1beta/batches?pageSize=&pageToken=`` lists ``{"operations", "nextPageToken"}``;
  ``POST /v1beta/batches/{id}:cancel``;
- ``state`` ``BATCH_STATE_PENDING | RUNNING | SUCCEEDED | FAILED | CANCELLED | EXPIRED`` (the
  SDK says ``JOB_STATE_...``); a batch not done within 48 hours expires as a whole;
- results: ``metadata.output.inlinedResponses.inlinedResponses``, in input order, each
  ``{"response", "metadata"}`` or ``{"error": {"code", "message"}, "metadata"}``.
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import AsyncIterator, Mapping
from contextlib import aclosing
from pathlib import Path
from typing import Any

from jury.adapters import (
    BatchLimits,
    BatchOutcome,
    BatchStatus,
    JudgeModel,
    JudgeRequest,
    TransientError,
)

from ._batch import BatchClient, Http, WireBatches, file_lines, json_list, probe_fake, seconds
from ._wire import MalformedReplyError, WireModel

__all__ = ["GeminiBatches", "gemini_batches", "sdk_config"]

ENDED = frozenset(
    {"BATCH_STATE_SUCCEEDED", "BATCH_STATE_FAILED", "BATCH_STATE_CANCELLED", "BATCH_STATE_EXPIRED"}
)
#: google.rpc codes as HTTP statuses, to classify an errored request as the online call's.
#: (RESOURCE_EXHAUSTED is a 429 here: its message or QuotaFailure says when it is a quota.)
_HTTP = {3: 400, 4: 504, 5: 404, 7: 403, 8: 429, 9: 400, 13: 500, 14: 503, 16: 401}


class GeminiBatchClient(BatchClient):
    @abstractmethod
    async def create(self, model: str, path: Path, label: str) -> dict[str, Any]: ...

    @abstractmethod
    async def get(self, name: str) -> dict[str, Any]: ...

    @abstractmethod
    async def page(self, token: str | None) -> dict[str, Any]:
        """One page of the account's batches: ``{operations, nextPageToken}``."""

    @abstractmethod
    async def cancel(self, name: str) -> None: ...


class DirectClient(GeminiBatchClient):
    def __init__(self, model: WireModel) -> None:
        # The API's root, version included, as the online calls reach it.
        self.base = model.wire.url(model.model).rsplit("/models/", 1)[0]
        self.http = Http(model.wire.headers())

    async def create(self, model: str, path: Path, label: str) -> dict[str, Any]:
        head = json.dumps({"displayName": label}).encode()[:-1]
        body = json_list(
            path, b'{"batch":' + head + b',"inputConfig":{"requests":{"requests":', b"}}}}"
        )
        url = f"{self.base}/models/{model}:batchGenerateContent"
        headers = {"content-type": "application/json"}
        async with aclosing(body):
            return await self.http.call("POST", url, data=body, headers=headers)

    async def get(self, name: str) -> dict[str, Any]:
        # A finished batch's replies come inline in it: read with its mark (`fake`).
        found = await self.http.call("GET", f"{self.base}/{name}")
        self.fake = self.http.fake
        return found

    async def page(self, token: str | None) -> dict[str, Any]:
        params = {"pageSize": "100", **({"pageToken": token} if token else {})}
        return await self.http.call("GET", f"{self.base}/batches", params=params)

    async def cancel(self, name: str) -> None:
        await self.http.call("POST", f"{self.base}/{name}:cancel")

    async def aclose(self) -> None:
        await self.http.aclose()


class SdkClient(GeminiBatchClient):
    """google-genai's ``aio.batches``, on the transport's client; its `BatchJob` objects are
    read back into the REST shapes above, so that one mapping reads both transports."""

    def __init__(self, model: WireModel) -> None:
        self._transport: Any = model.transport
        self._url = model.base_url

    def _batches(self) -> Any:
        return self._transport.client().aio.batches

    async def create(self, model: str, path: Path, label: str) -> dict[str, Any]:
        requests = [
            {
                "contents": entry["request"]["contents"],
                "config": sdk_config(entry["request"]),
                "metadata": entry.get("metadata"),
            }
            for entry in await file_lines(path)
        ]
        job = await self._batches().create(
            model=model, src=requests, config={"display_name": label}
        )
        return rest_of(job)

    async def get(self, name: str) -> dict[str, Any]:
        # ``batches.get`` reads the operation into a `BatchJob`, which on the Gemini API
        # drops ``metadata.batchStats`` and the operation's ``error`` (``_BatchJob_from_mldev``
        # maps neither): the SDK's public ``operations.get`` reads the same operation, and
        # an `Operation` of ours keeps it as the API sent it.
        operation = await self._transport.client().aio.operations.get(raw_operation(name))
        self.fake = await probe_fake(self._url)
        return dict(operation.raw)

    async def page(self, token: str | None) -> dict[str, Any]:
        config: dict[str, Any] = {"page_size": 100, **({"page_token": token} if token else {})}
        pager = await self._batches().list(config=config)
        return {
            "operations": [rest_of(job) for job in pager.page],
            "nextPageToken": pager.next_page_token if hasattr(pager, "next_page_token") else None,
        }

    async def cancel(self, name: str) -> None:
        await self._batches().cancel(name=name)


def raw_operation(name: str) -> Any:
    """An SDK `Operation` named `name` whose answer keeps the operation's JSON whole."""
    from google.genai import types

    class RawOperation(types.Operation):
        def __init__(self, name: str, raw: dict[str, Any] | None = None) -> None:
            self.name = name
            self.raw = raw or {}

        @classmethod
        def from_api_response(cls, api_response: Any, is_vertex_ai: bool = False) -> Any:
            found = dict(api_response) if isinstance(api_response, Mapping) else {}
            return cls(str(found.get("name") or name), found)

    return RawOperation(name)


_SNAKE = {
    "systemInstruction": "system_instruction",
    "maxOutputTokens": "max_output_tokens",
    "responseMimeType": "response_mime_type",
    "responseJsonSchema": "response_json_schema",
    "thinkingConfig": "thinking_config",
    "responseLogprobs": "response_logprobs",
}


def sdk_config(body: Mapping[str, Any]) -> dict[str, Any]:
    """A wire body's generation settings and system text as google-genai's config (the
    online SDK transport sends its calls so too)."""
    config: dict[str, Any] = {
        _SNAKE.get(k, k): v for k, v in body.get("generationConfig", {}).items()
    }
    if "systemInstruction" in body:
        config["system_instruction"] = body["systemInstruction"]
    return config


def rest_of(job: Any) -> dict[str, Any]:
    """An SDK `BatchJob` as the REST operation it was read from."""
    state = str(getattr(job.state, "value", job.state) or "").replace("JOB_STATE_", "BATCH_STATE_")
    metadata: dict[str, Any] = {"state": state, "displayName": job.display_name}
    if job.create_time is not None:
        metadata["createTime"] = job.create_time.isoformat()
    responses = job.dest.inlined_responses if job.dest is not None else None
    if responses is not None:
        metadata["output"] = {
            "inlinedResponses": {
                "inlinedResponses": [
                    {
                        key: value
                        for key, value in (
                            ("metadata", item.metadata),
                            (
                                "response",
                                item.response.model_dump(
                                    mode="json", by_alias=True, exclude_none=True
                                )
                                if item.response is not None
                                else None,
                            ),
                            (
                                "error",
                                item.error.model_dump(mode="json", exclude_none=True)
                                if item.error is not None
                                else None,
                            ),
                        )
                        if value is not None
                    }
                    for item in responses
                ]
            }
        }
    return {"name": job.name, "metadata": metadata}


class GeminiBatches(WireBatches):
    """Gemini batch mode with inline requests. Batch rates: genai-prices, else half the
    online price ("at 50% of the standard cost", https://ai.google.dev/gemini-api/docs/batch-
    mode)."""

    limits = BatchLimits(requests=100_000, bytes=20 * 1000 * 1000)
    client: GeminiBatchClient

    def entry(self, custom_id: str, request: JudgeRequest) -> bytes:
        body = self.model.wire.body(self.model.model, request)
        line = {"request": body, "metadata": {"key": custom_id}}
        return json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode()

    async def create(self, entries: Path, count: int, label: str) -> BatchStatus:
        return status_of(await self.client.create(self.model.model, entries, label))

    async def find(self, label: str, count: int, since: float) -> BatchStatus | None:
        token: str | None = None
        while True:
            page = await self.client.page(token)
            for operation in page.get("operations") or ():
                if (operation.get("metadata") or {}).get("displayName") == label:
                    return status_of(operation)
            token = page.get("nextPageToken")
            if not token:
                return None

    async def retrieve(self, batch_id: str) -> BatchStatus:
        return status_of(await self.client.get(batch_id))

    async def cancel(self, batch_id: str) -> BatchStatus:
        await self.client.cancel(batch_id)
        return await self.retrieve(batch_id)

    async def results(self, status: BatchStatus) -> AsyncIterator[BatchOutcome]:
        operation = await self.client.get(status.id)
        output = (operation.get("metadata") or {}).get("output") or {}
        for item in (output.get("inlinedResponses") or {}).get("inlinedResponses") or ():
            yield self._outcome(item)

    def _outcome(self, item: Mapping[str, Any]) -> BatchOutcome:
        custom = str((item.get("metadata") or {}).get("key") or "")
        error = item.get("error")
        if isinstance(error, Mapping):
            status = _HTTP.get(int(error.get("code") or 13), 500)
            problem = self.request_error(status, str(error.get("message") or ""), {"error": error})
            return BatchOutcome(custom, "errored", error=problem)
        try:
            return BatchOutcome(custom, "succeeded", reply=self.parse(item.get("response")))
        except MalformedReplyError as exc:
            return BatchOutcome(custom, "errored", error=TransientError(f"malformed: {exc}"))


def status_of(operation: Mapping[str, Any]) -> BatchStatus:
    metadata = operation.get("metadata") or {}
    state = str(metadata.get("state") or "")
    stats = metadata.get("batchStats") or {}
    error = operation.get("error") or {}
    failure = None
    if state == "BATCH_STATE_FAILED":
        failure = str(error.get("message") or "failed") if isinstance(error, Mapping) else "failed"
    return BatchStatus(
        id=str(operation.get("name") or ""),
        state=state,
        ended=state in ENDED,
        counts={k: int(v) for k, v in stats.items()},
        created=seconds(metadata.get("createTime")),
        failure=failure,
    )


def gemini_batches(model: JudgeModel) -> GeminiBatches | None:
    """Gemini batch mode for a model of this adapter, not on Vertex AI (nor for another
    judge model named ``google/...``, a test's scripted one)."""
    if not isinstance(model, WireModel) or model.base_url.startswith("vertex:"):
        return None
    if model.transport.name == "sdk":
        return GeminiBatches(model, SdkClient(model))
    return GeminiBatches(model, DirectClient(model))
