"""Anthropic Message Batches, as the fake server speaks them.

Shapes and rules from https://docs.anthropic.com/en/docs/build-with-claude/batch-processing
and https://docs.anthropic.com/en/api/creating-message-batches (the SDK's
``types/messages/batch_create_params.py``, ``message_batch.py``,
``message_batch_individual_response.py``, ``batch_list_params.py``):

- ``POST /v1/messages/batches`` ``{"requests": [{"custom_id", "params"}]}``: at least one
  request, at most 100,000 and 256 MB (read as 256,000,000 bytes: no binary unit given; over
  it, 413 ``request_too_large``, https://docs.anthropic.com/en/api/errors); a custom ID
  matches ``^[a-zA-Z0-9_-]{1,64}$`` and is unique in its batch (400 otherwise); ``params``
  are checked as the Messages API checks a body, but later: a bad one is an errored result,
  not a refused batch;
- ``GET /v1/messages/batches?limit=&after_id=&before_id=`` (1 to 1000, default 20, newest
  first: ``{data, has_more, first_id, last_id}``), ``GET .../{id}``, ``POST .../{id}/cancel``;
- ``processing_status`` ``in_progress | canceling | ended``; ``request_counts`` stay zero but
  ``processing`` until the batch ends; ``results_url`` once it has; ``archived_at`` once it
  is archived, "and its results became unavailable" (the SDK's ``message_batch.py``): the
  results then answer 404 (the status is this fake's choice: the docs name none);
- ``GET .../{id}/results``: JSONL, ``{"custom_id", "result": {"type": "succeeded",
  "message"} | {"type": "errored", "error": <the error body>} | {"type": "expired"} |
  {"type": "canceled"}}``.
"""

from __future__ import annotations

import json
import re
import time
from datetime import UTC, datetime
from typing import Any, ClassVar

from aiohttp import web

from ._batches import BatchProtocol, FakeBatches, Job
from ._log import LoggedRequest
from ._wire import Provider

__all__ = ["AnthropicBatch"]

CUSTOM_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
MAX_REQUESTS = 100_000
MAX_BYTES = 256_000_000
DAY = 24 * 3600


class AnthropicBatch(BatchProtocol):
    provider: ClassVar[Provider] = "anthropic"
    routes: ClassVar[tuple[tuple[str, str, str], ...]] = (
        ("POST", "/v1/messages/batches", "create"),
        ("GET", "/v1/messages/batches", "list"),
        ("GET", "/v1/messages/batches/{batch_id}", "retrieve"),
        ("POST", "/v1/messages/batches/{batch_id}/cancel", "cancel"),
        ("GET", "/v1/messages/batches/{batch_id}/results", "results"),
    )

    async def create(
        self, request: web.Request, batches: FakeBatches, logged: LoggedRequest
    ) -> web.Response:
        raw = await request.read()
        if len(raw) > MAX_BYTES:
            return self.error(413, f"a batch is at most {MAX_BYTES} bytes")
        try:
            body = json.loads(raw)
        except ValueError:
            return self.error(400, "the request body is not valid JSON")
        logged.body = body
        refused = batches.refused(self, logged)
        if refused is not None:
            return refused
        problem = _refusal(body)
        if problem is not None:
            return self.error(400, problem)
        items = [
            (r["custom_id"], str(r["params"].get("model", "")), r["params"])
            for r in body["requests"]
        ]
        job = batches.add(
            "anthropic",
            batches.run("anthropic", items, path="/v1/messages"),
            id=batches.new_id("msgbatch_"),
            base=f"{request.scheme}://{request.host}",
        )
        return web.json_response(self.render(job))

    async def list(
        self, request: web.Request, batches: FakeBatches, logged: LoggedRequest
    ) -> web.Response:
        found = batches.page("anthropic", request.query, 1000, "after_id")
        if isinstance(found, str):
            return self.error(400, found)
        jobs, more = found
        page = [self.render(job) for job in jobs]
        return web.json_response(
            {
                "data": page,
                "has_more": more,
                "first_id": page[0]["id"] if page else None,
                "last_id": page[-1]["id"] if page else None,
            }
        )

    async def retrieve(
        self, request: web.Request, batches: FakeBatches, logged: LoggedRequest
    ) -> web.Response:
        job = self._job(request, batches)
        return self.error(404, "no such Message Batch") if job is None else self._ok(job)

    async def cancel(
        self, request: web.Request, batches: FakeBatches, logged: LoggedRequest
    ) -> web.Response:
        job = self._job(request, batches)
        if job is None:
            return self.error(404, "no such Message Batch")
        if not job.ended(time.time()):
            job.cancelled = time.time()
        return self._ok(job)

    async def results(
        self, request: web.Request, batches: FakeBatches, logged: LoggedRequest
    ) -> web.Response:
        job = self._job(request, batches)
        if job is None:
            return self.error(404, "no such Message Batch")
        now = time.time()
        if not job.ended(now):
            return self.error(400, f"Message Batch {job.id} has not ended: no results yet")
        if "archived" in job.data:
            return self.error(404, f"Message Batch {job.id} is archived: its results are gone")
        spoiled = batches.spoiled_download(self, request)
        if spoiled is not None:
            return spoiled
        lines = []
        for result in job.final(now):
            if result.kind == "succeeded":
                outcome = f'{{"type": "succeeded", "message": {result.body}}}'
            elif result.kind == "errored":
                outcome = f'{{"type": "errored", "error": {result.body}}}'
            else:
                outcome = json.dumps({"type": result.kind})
            lines.append(f'{{"custom_id": {json.dumps(result.custom_id)}, "result": {outcome}}}\n')
        return web.Response(body="".join(lines).encode(), content_type="application/binary")

    # --- the batch object -----------------------------------------------------------------

    def _job(self, request: web.Request, batches: FakeBatches) -> Job | None:
        job = batches.jobs.get(request.match_info["batch_id"])
        return job if job is not None and job.provider == "anthropic" else None

    def _ok(self, job: Job) -> web.Response:
        return web.json_response(self.render(job))

    def render(self, job: Job) -> dict[str, Any]:
        now = time.time()
        ended = job.ended(now)
        counts = {"processing": 0 if ended else len(job.results), **job.tally(now)}
        status = "ended" if ended else ("canceling" if job.cancelled else "in_progress")
        return {
            "id": job.id,
            "type": "message_batch",
            "processing_status": status,
            "request_counts": counts,
            "ended_at": _time(job.cancelled or job.ends) if ended else None,
            "created_at": _time(job.created),
            "expires_at": _time(job.created + DAY),
            "archived_at": _time(job.data["archived"]) if "archived" in job.data else None,
            "cancel_initiated_at": _time(job.cancelled) if job.cancelled else None,
            "results_url": f"{job.data['base']}/v1/messages/batches/{job.id}/results"
            if ended
            else None,
        }


def _time(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, tz=UTC).isoformat().replace("+00:00", "Z")


def _refusal(body: Any) -> str | None:
    """Why ``POST /v1/messages/batches`` answers 400."""
    if not isinstance(body, dict) or not isinstance(body.get("requests"), list):
        return "requests: Field required"
    requests = body["requests"]
    if not requests:
        return "requests: List should have at least 1 item"
    if len(requests) > MAX_REQUESTS:
        return f"requests: List should have at most {MAX_REQUESTS} items"
    seen: set[str] = set()
    for index, item in enumerate(requests):
        if not isinstance(item, dict) or not isinstance(item.get("params"), dict):
            return f"requests.{index}: custom_id and params are required"
        custom = item.get("custom_id")
        if not isinstance(custom, str) or not CUSTOM_ID.match(custom):
            return f"requests.{index}.custom_id: String should match pattern '{CUSTOM_ID.pattern}'"
        if custom in seen:
            return f"requests.{index}.custom_id: duplicate custom_id {custom!r} in the batch"
        seen.add(custom)
    return None
