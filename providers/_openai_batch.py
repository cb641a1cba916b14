"""OpenAI Batch for ``openai/<model>``: a JSONL input file, uploaded, then a batch over it.

Shapes (https://platform.openai.com/docs/guides/batch, https://platform.openai.com/docs/api-
reference/batch; the SDK's ``types/batch.py``, ``types/batch_create_params.py``,
``types/file_object.py``):

- input line: ``{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body"}``, the
  body being the online call's; at most 50,000 lines and 200 MB a file (decimal: 200,000,000
  bytes; the docs say "200 MB" and give no binary unit), one model a file;
- ``POST /v1/files`` (multipart: ``purpose=batch``, ``file``), then ``POST /v1/batches``
  ``{input_file_id, endpoint, completion_window: "24h", metadata}``; ``GET /v1/batches/{id}``,
  ``GET /v1/batches?after=&limit=`` (newest first), ``POST /v1/batches/{id}/cancel``;
- status ``validating | failed | in_progress | finalizing | completed | expired | cancelling |
  cancelled``, ``request_counts {total, completed, failed}``;
- results: ``GET /v1/files/{output_file_id}/content`` and the ``error_file_id``'s, lines
  ``{"id", "custom_id", "response": {"status_code", "request_id", "body"}, "error"}``; a
  request not run before the window closed is in the error file with code ``batch_expired``;
  one that timed out inside the batch with ``request_timeout`` (tried again like an expired
  one: the request itself was never refused);
- a batch over the account's enqueued-token limit for its model fails as a whole with
  ``errors.data[].code`` ``token_limit_exceeded`` ("Enqueued prompt tokens per model",
  https://platform.openai.com/docs/guides/rate-limits; the message reads "...try again once
  the current jobs have finished"): nothing of it ran, so it is sent again later, in halves.
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import AsyncIterator, Mapping
from contextlib import aclosing
from pathlib import Path
from typing import Any

from jury import ProviderError
from jury.adapters import (
    BatchLimits,
    BatchOutcome,
    BatchStatus,
    InvalidRequestError,
    JudgeModel,
    JudgeRequest,
    TransientError,
)

from ._batch import (
    BatchClient,
    Http,
    WireBatches,
    file_chunks,
    jsonl,
    newest_first,
    probe_fake,
    seconds,
)
from ._wire import MalformedReplyError, WireModel, error_message

__all__ = ["OpenAIBatches", "openai_batches"]

ENDPOINT = "/v1/chat/completions"
#: The batch's mark: our label, so that a batch created just before a crash can be found.
LABEL = "jury_batch"
ENDED = frozenset({"completed", "failed", "expired", "cancelled"})
#: Result codes of a request that never ran (or never finished) for reasons of the batch's,
#: not its own: another try may succeed.
NOT_RUN = frozenset({"batch_expired", "request_timeout"})
#: Codes of a batch failed for its size alone (``Batch.errors.data[].code``).
TOO_LARGE = frozenset({"token_limit_exceeded"})
#: The enqueued prompt tokens of one model an account may have in flight: OpenAI's lowest
#: published batch queue limit for its GPT-5 family (Tier 1, 1,500,000: the limits of each
#: account are at https://platform.openai.com/settings/organization/limits). An account of a
#: higher tier raises it with ``[batch] tokens``; a batch still refused for its tokens is sent
#: again later in halves.
ENQUEUED_TOKENS = 1_500_000


class OpenAIBatchClient(BatchClient):
    @abstractmethod
    async def upload(self, path: Path) -> dict[str, Any]: ...

    @abstractmethod
    async def create(self, body: dict[str, Any]) -> dict[str, Any]: ...

    @abstractmethod
    async def retrieve(self, batch_id: str) -> dict[str, Any]: ...

    @abstractmethod
    async def page(self, after: str | None) -> dict[str, Any]:
        """One page of the account's batches, newest first: ``{data, has_more, last_id}``."""

    @abstractmethod
    async def cancel(self, batch_id: str) -> dict[str, Any]: ...

    @abstractmethod
    async def content(self, file_id: str) -> bytes: ...


class DirectClient(OpenAIBatchClient):
    def __init__(self, base_url: str, key: str) -> None:
        self.base = base_url.rstrip("/")
        self.http = Http({"authorization": f"Bearer {key}"} if key else {})

    async def upload(self, path: Path) -> dict[str, Any]:
        import aiohttp

        form = aiohttp.FormData()
        form.add_field("purpose", "batch")
        async with aclosing(file_chunks(path)) as chunks:
            form.add_field("file", chunks, filename=path.name, content_type="application/jsonl")
            return await self.http.call("POST", f"{self.base}/files", data=form)

    async def create(self, body: dict[str, Any]) -> dict[str, Any]:
        return await self.http.call("POST", f"{self.base}/batches", body=body)

    async def retrieve(self, batch_id: str) -> dict[str, Any]:
        return await self.http.call("GET", f"{self.base}/batches/{batch_id}")

    async def page(self, after: str | None) -> dict[str, Any]:
        params = {"limit": "100", **({"after": after} if after else {})}
        return await self.http.call("GET", f"{self.base}/batches", params=params)

    async def cancel(self, batch_id: str) -> dict[str, Any]:
        return await self.http.call("POST", f"{self.base}/batches/{batch_id}/cancel")

    async def content(self, file_id: str) -> bytes:
        found = await self.http.read("GET", f"{self.base}/files/{file_id}/content")
        self.fake = self.http.fake
        return found

    async def aclose(self) -> None:
        await self.http.aclose()


class SdkClient(OpenAIBatchClient):
    """The official SDK's ``files`` and ``batches`` resources, on the transport's client."""

    def __init__(self, model: WireModel) -> None:
        self._transport: Any = model.transport
        self._url = model.base_url

    async def upload(self, path: Path) -> dict[str, Any]:
        client = self._transport.client()
        found = await client.files.create(file=path, purpose="batch")
        return dict(found.model_dump(mode="json"))

    async def create(self, body: dict[str, Any]) -> dict[str, Any]:
        batch = await self._transport.client().batches.create(**body)
        return dict(batch.model_dump(mode="json"))

    async def retrieve(self, batch_id: str) -> dict[str, Any]:
        batch = await self._transport.client().batches.retrieve(batch_id)
        return dict(batch.model_dump(mode="json"))

    async def page(self, after: str | None) -> dict[str, Any]:
        options: dict[str, Any] = {"limit": 100, **({"after": after} if after else {})}
        page = await self._transport.client().batches.list(**options)
        data = [batch.model_dump(mode="json") for batch in page.data]
        last = data[-1]["id"] if data else None
        return {"data": data, "has_more": page.has_more, "last_id": last}

    async def cancel(self, batch_id: str) -> dict[str, Any]:
        batch = await self._transport.client().batches.cancel(batch_id)
        return dict(batch.model_dump(mode="json"))

    async def content(self, file_id: str) -> bytes:
        found = await self._transport.client().files.content(file_id)
        self.fake = await probe_fake(self._url)
        return bytes(found.content)


class OpenAIBatches(WireBatches):
    """OpenAI Batch, on the endpoint the online calls use. Batch rates: genai-prices, else
    half the online price ("50% cost discount compared to synchronous APIs",
    https://platform.openai.com/docs/guides/batch)."""

    limits = BatchLimits(requests=50_000, bytes=200_000_000, tokens=ENQUEUED_TOKENS)
    client: OpenAIBatchClient

    def entry(self, custom_id: str, request: JudgeRequest) -> bytes:
        body = self.model.wire.body(self.model.model, request)
        line = {"custom_id": custom_id, "method": "POST", "url": ENDPOINT, "body": body}
        return json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode()

    async def create(self, entries: Path, count: int, label: str) -> BatchStatus:
        uploaded = await self.client.upload(entries)
        body = {
            "input_file_id": uploaded["id"],
            "endpoint": ENDPOINT,
            "completion_window": "24h",
            "metadata": {LABEL: label},
        }
        return status_of(await self.client.create(body))

    async def find(self, label: str, count: int, since: float) -> BatchStatus | None:
        found = await newest_first(
            self.client.page, lambda batch: (batch.get("metadata") or {}).get(LABEL) == label, since
        )
        return None if found is None else status_of(found)

    async def retrieve(self, batch_id: str) -> BatchStatus:
        return status_of(await self.client.retrieve(batch_id))

    async def cancel(self, batch_id: str) -> BatchStatus:
        return status_of(await self.client.cancel(batch_id))

    def too_large(self, error: ProviderError) -> bool:
        """An input file over the Files API's limit for a batch: a 413, or a 400 that says
        the file is too large (the wording is not documented; the fake's own)."""
        return super().too_large(error) or (error.status == 400 and "too large" in str(error))

    async def results(self, status: BatchStatus) -> AsyncIterator[BatchOutcome]:
        for file_id in status.results:
            for line in jsonl(await self.client.content(file_id)):
                yield self._outcome(line)

    def _outcome(self, line: Mapping[str, Any]) -> BatchOutcome:
        custom = str(line.get("custom_id") or "")
        error = line.get("error") or {}
        response = line.get("response") or {}
        if isinstance(error, Mapping) and error.get("code") in NOT_RUN:
            return BatchOutcome(custom, "expired")
        if isinstance(error, Mapping) and error.get("code") == "batch_cancelled":
            return BatchOutcome(custom, "canceled")
        code = int(response.get("status_code") or 0) if isinstance(response, Mapping) else 0
        if code == 200:
            try:
                return BatchOutcome(custom, "succeeded", reply=self.parse(response.get("body")))
            except MalformedReplyError as exc:
                return BatchOutcome(custom, "errored", error=TransientError(f"malformed: {exc}"))
        if code:
            body = response.get("body")
            problem = self.request_error(code, error_message(body), body)
            return BatchOutcome(custom, "errored", error=problem)
        message = str(error.get("message") or error) if error else "no response"
        return BatchOutcome(custom, "errored", error=InvalidRequestError(message))


def status_of(batch: Mapping[str, Any]) -> BatchStatus:
    state = str(batch.get("status") or "")
    counts = {k: int(v) for k, v in (batch.get("request_counts") or {}).items()}
    files = (batch.get("output_file_id"), batch.get("error_file_id"))
    failure = None
    errors = ((batch.get("errors") or {}).get("data") or []) if state == "failed" else []
    if state == "failed":
        failure = "; ".join(str(e.get("message") or e.get("code")) for e in errors) or "failed"
    codes = {e.get("code") for e in errors if isinstance(e, Mapping)}
    return BatchStatus(
        id=str(batch.get("id") or ""),
        state=state,
        ended=state in ENDED,
        counts=counts,
        created=seconds(batch.get("created_at")),
        expires=seconds(batch.get("expires_at")),
        failure=failure,
        too_large=bool(codes) and codes <= TOO_LARGE,
        results=tuple(str(file_id) for file_id in files if file_id),
    )


def openai_batches(model: JudgeModel) -> OpenAIBatches | None:
    """OpenAI's own API only: compatible servers (Ollama, vLLM...) serve no batch endpoint,
    and another judge model named ``openai/...`` (a test's scripted one) has none."""
    if not isinstance(model, WireModel) or model.wire.provider != "openai":
        return None
    if model.transport.name == "sdk":
        return OpenAIBatches(model, SdkClient(model))
    return OpenAIBatches(model, DirectClient(model.base_url, model.key))
