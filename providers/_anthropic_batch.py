"""Anthropic Message Batches for ``anthropic/<model>``.

Shapes (https://docs.anthropic.com/en/docs/build-with-claude/batch-processing,
https://docs.anthropic.com/en/api/creating-message-batches; the SDK's
``types/messages/batch_create_params.py``, ``message_batch.py``,
``message_batch_individual_response.py``):

- ``POST /v1/messages/batches`` ``{"requests": [{"custom_id", "params"}]}``, ``params`` being
  the online call's body; a custom ID matches ``^[a-zA-Z0-9_-]{1,64}$`` and is unique in its
  batch; at most 100,000 requests and 256 MB a batch (decimal: 256,000,000 bytes; the docs
  give no binary unit); a batch over it is refused with 413 ``request_too_large``
  (https://docs.anthropic.com/en/api/errors) and is sent again in halves;
- ``GET /v1/messages/batches/{id}``, ``GET /v1/messages/batches?limit=&after_id=`` (newest
  first: ``{data, has_more, first_id, last_id}``), ``POST /v1/messages/batches/{id}/cancel``;
- ``processing_status`` ``in_progress | canceling | ended``, ``request_counts {processing,
  succeeded, errored, canceled, expired}``, ``results_url`` once ended; ``archived_at``, "the
  time at which the Message Batch was archived and its results became unavailable" (the
  SDK's ``message_batch.py``): its results are then gone;
- results: JSONL at ``results_url``, in any order, ``{"custom_id", "result": {"type":
  "succeeded", "message"} | {"type": "errored", "error": {"type": "error", "error": {"type",
  "message"}}} | {"type": "expired"} | {"type": "canceled"}}``.

A batch takes no mark of ours: a batch created just before a crash is recognised by its size
and its creation time, and the engine checks its results' custom IDs against its own.
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

from ._batch import (
    BatchClient,
    Http,
    WireBatches,
    file_lines,
    json_list,
    jsonl,
    newest_first,
    probe_fake,
    seconds,
)
from ._wire import MalformedReplyError, WireModel

__all__ = ["AnthropicBatches", "anthropic_batches"]

#: The statuses of an errored request's error type, to classify it as the online call's (the
#: types of the SDK's ``types/shared/error_type.py``; statuses as
#: https://docs.anthropic.com/en/api/errors gives them, 409 as ``_error_classes.py`` does).
_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "conflict_error": 409,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}


class AnthropicBatchClient(BatchClient):
    @abstractmethod
    async def create(self, path: Path, count: int) -> dict[str, Any]: ...

    @abstractmethod
    async def retrieve(self, batch_id: str) -> dict[str, Any]: ...

    @abstractmethod
    async def page(self, after: str | None) -> dict[str, Any]: ...

    @abstractmethod
    async def cancel(self, batch_id: str) -> dict[str, Any]: ...

    @abstractmethod
    async def results(self, batch_id: str, url: str) -> list[dict[str, Any]]: ...


class DirectClient(AnthropicBatchClient):
    def __init__(self, model: WireModel) -> None:
        self.base = f"{model.base_url.rstrip('/')}/v1/messages/batches"
        self.http = Http(model.wire.headers())

    async def create(self, path: Path, count: int) -> dict[str, Any]:
        # The body is the input file's lines as a JSON list, streamed from disk.
        headers = {"content-type": "application/json"}
        async with aclosing(json_list(path, b'{"requests":', b"}")) as body:
            return await self.http.call("POST", self.base, data=body, headers=headers)

    async def retrieve(self, batch_id: str) -> dict[str, Any]:
        return await self.http.call("GET", f"{self.base}/{batch_id}")

    async def page(self, after: str | None) -> dict[str, Any]:
        params = {"limit": "100", **({"after_id": after} if after else {})}
        return await self.http.call("GET", self.base, params=params)

    async def cancel(self, batch_id: str) -> dict[str, Any]:
        return await self.http.call("POST", f"{self.base}/{batch_id}/cancel")

    async def results(self, batch_id: str, url: str) -> list[dict[str, Any]]:
        found = jsonl(await self.http.read("GET", url or f"{self.base}/{batch_id}/results"))
        self.fake = self.http.fake
        return found

    async def aclose(self) -> None:
        await self.http.aclose()


class SdkClient(AnthropicBatchClient):
    """The official SDK's ``messages.batches`` resource, on the transport's client."""

    def __init__(self, model: WireModel) -> None:
        self._transport: Any = model.transport
        self._url = model.base_url

    def _batches(self) -> Any:
        return self._transport.client().messages.batches

    async def create(self, path: Path, count: int) -> dict[str, Any]:
        batch = await self._batches().create(requests=await file_lines(path))
        return dict(batch.model_dump(mode="json"))

    async def retrieve(self, batch_id: str) -> dict[str, Any]:
        return dict((await self._batches().retrieve(batch_id)).model_dump(mode="json"))

    async def page(self, after: str | None) -> dict[str, Any]:
        options: dict[str, Any] = {"limit": 100, **({"after_id": after} if after else {})}
        page = await self._batches().list(**options)
        return {
            "data": [batch.model_dump(mode="json") for batch in page.data],
            "has_more": page.has_more,
            "last_id": page.last_id,
        }

    async def cancel(self, batch_id: str) -> dict[str, Any]:
        return dict((await self._batches().cancel(batch_id)).model_dump(mode="json"))

    async def results(self, batch_id: str, url: str) -> list[dict[str, Any]]:
        decoder = await self._batches().results(batch_id)
        self.fake = await probe_fake(self._url)
        # Kept as sent, quietly, where the SDK's models lag its own list: ``conflict_error``
        # is in types/shared/error_type.py but has no object in error_object.py's union.
        return [item.model_dump(mode="json", warnings=False) async for item in decoder]


class AnthropicBatches(WireBatches):
    """Anthropic Message Batches. Batch rates: genai-prices, else half the online price
    ("all usage is charged at 50% of the standard API prices",
    https://docs.anthropic.com/en/docs/build-with-claude/batch-processing#pricing)."""

    limits = BatchLimits(requests=100_000, bytes=256_000_000)
    client: AnthropicBatchClient

    def entry(self, custom_id: str, request: JudgeRequest) -> bytes:
        params = self.model.wire.body(self.model.model, request)
        line = {"custom_id": custom_id, "params": params}
        return json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode()

    async def create(self, entries: Path, count: int, label: str) -> BatchStatus:
        return status_of(await self.client.create(entries, count))

    async def find(self, label: str, count: int, since: float) -> BatchStatus | None:
        def ours(batch: Mapping[str, Any]) -> bool:
            counts = batch.get("request_counts") or {}
            made = seconds(batch.get("created_at")) or 0
            return made >= since and sum(int(n) for n in counts.values()) == count

        found = await newest_first(self.client.page, ours, since)
        return None if found is None else status_of(found)

    async def retrieve(self, batch_id: str) -> BatchStatus:
        return status_of(await self.client.retrieve(batch_id))

    async def cancel(self, batch_id: str) -> BatchStatus:
        return status_of(await self.client.cancel(batch_id))

    async def results(self, status: BatchStatus) -> AsyncIterator[BatchOutcome]:
        url = status.results[0] if status.results else ""
        for line in await self.client.results(status.id, url):
            yield self._outcome(line)

    def _outcome(self, line: Mapping[str, Any]) -> BatchOutcome:
        custom = str(line.get("custom_id") or "")
        result = line.get("result") or {}
        kind = result.get("type") if isinstance(result, Mapping) else None
        if kind == "succeeded":
            try:
                return BatchOutcome(custom, "succeeded", reply=self.parse(result.get("message")))
            except MalformedReplyError as exc:
                return BatchOutcome(custom, "errored", error=TransientError(f"malformed: {exc}"))
        if kind in ("expired", "canceled"):
            return BatchOutcome(custom, kind)
        body = (result.get("error") or {}) if kind == "errored" else {}
        error = body.get("error") or {}
        status = _STATUS.get(str(error.get("type")), 500)
        message = str(error.get("message") or kind or "no result")
        return BatchOutcome(custom, "errored", error=self.request_error(status, message, body))


def status_of(batch: Mapping[str, Any]) -> BatchStatus:
    state = str(batch.get("processing_status") or "")
    url = batch.get("results_url")
    archived = batch.get("archived_at")
    return BatchStatus(
        id=str(batch.get("id") or ""),
        state=state,
        ended=state == "ended",
        counts={k: int(v) for k, v in (batch.get("request_counts") or {}).items()},
        created=seconds(batch.get("created_at")),
        expires=seconds(batch.get("expires_at")),
        results=(str(url),) if url else (),
        gone=f"archived at {archived}, its results no longer available" if archived else None,
    )


def anthropic_batches(model: JudgeModel) -> AnthropicBatches | None:
    """Message Batches for a model of this adapter (another judge model named
    ``anthropic/...``, a test's scripted one, has none)."""
    if not isinstance(model, WireModel):
        return None
    if model.transport.name == "sdk":
        return AnthropicBatches(model, SdkClient(model))
    return AnthropicBatches(model, DirectClient(model))
