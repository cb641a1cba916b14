"""Gemini batch mode (inline requests), as the fake server speaks it.

Shapes and rules from https://ai.google.dev/gemini-api/docs/batch-mode and
https://ai.google.dev/api/batch-api (google-genai's ``batches.py``: what
``_CreateBatchJobParameters_to_mldev`` sends and ``_BatchJob_from_mldev`` reads):

- ``POST /v1beta/models/{model}:batchGenerateContent`` ``{"batch": {"displayName",
  "inputConfig": {"requests": {"requests": [{"request", "metadata"}]}}}}``: ``displayName`` is
  required; inline requests total at most 20 MB (400 ``INVALID_ARGUMENT`` otherwise); input
  from a file (``inputConfig.fileName``) is not served by this fake;
- the answer, and ``GET /v1beta/batches/{id}``, is an operation ``{"name": "batches/{id}",
  "metadata": {"@type", "model", "displayName", "createTime", "updateTime", "batchStats",
  "state", "name", "output"}, "done"}``, with ``batchStats`` counts as int64 strings;
- ``GET /v1beta/batches?pageSize=&pageToken=`` lists ``{"operations", "nextPageToken"}``;
  ``POST /v1beta/batches/{id}:cancel`` answers ``{}``;
- ``state`` ``BATCH_STATE_RUNNING`` until the batch ends ``SUCCEEDED``, ``CANCELLED``,
  ``EXPIRED`` (as a whole: no per-request expiry, and no output) or ``FAILED``, the done
  operation then carrying its ``error``, a google.rpc ``Status`` {code, message} (the
  operation's "error result ... in case of failure or cancellation", google-genai's
  ``types.Operation.error``; ``faults(fail_batches=...)``);
- ``output.inlinedResponses.inlinedResponses``, in input order: ``{"response", "metadata"}``
  or ``{"error": {"code", "message", "details"}, "metadata"}`` (a google.rpc status: a
  request's used-up quota or prepaid credits come as its online call's would).
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any, ClassVar

from aiohttp import web

from ._batches import BatchProtocol, FakeBatches, Job
from ._log import LoggedRequest
from ._wire import Provider

__all__ = ["GeminiBatch"]

MAX_INLINE = 20 * 1000 * 1000
_TYPE = "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch"
#: HTTP statuses as google.rpc codes, for an errored request's status: the 402 of prepaid
#: credits used up says RESOURCE_EXHAUSTED (8), as a 429 does.
_RPC = {400: 3, 401: 16, 402: 8, 403: 7, 404: 5, 429: 8, 500: 13, 503: 14, 504: 4}
_VERSION = r"{version:v1(?:beta|alpha)?}"


class GeminiBatch(BatchProtocol):
    provider: ClassVar[Provider] = "google"
    routes: ClassVar[tuple[tuple[str, str, str], ...]] = (
        ("POST", f"/{_VERSION}/models/{{model}}:batchGenerateContent", "create"),
        ("GET", f"/{_VERSION}/batches", "list"),
        ("GET", f"/{_VERSION}/batches/{{batch_id}}", "retrieve"),
        ("POST", f"/{_VERSION}/batches/{{batch_id}}:cancel", "cancel"),
    )

    async def create(
        self, request: web.Request, batches: FakeBatches, logged: LoggedRequest
    ) -> web.Response:
        raw = await request.read()
        try:
            body = json.loads(raw)
        except ValueError:
            return self.error(400, "Invalid JSON payload received.")
        logged.body = body
        refused = batches.refused(self, logged)
        if refused is not None:
            return refused
        problem = _refusal(body, len(raw))
        if problem is not None:
            return self.error(400, problem)
        model = request.match_info["model"]
        batch = body["batch"]
        inline = batch["inputConfig"]["requests"]["requests"]
        items = [
            (str((entry.get("metadata") or {}).get("key", n)), model, entry["request"])
            for n, entry in enumerate(inline)
        ]
        # Each request is held to the rules of its online call at the same API version.
        path = request.path.replace(":batchGenerateContent", ":generateContent")
        job = batches.add(
            "google",
            batches.run("google", items, path=path),
            id=batches.new_id(""),
            model=model,
            display=batch["displayName"],
            metadata=[entry.get("metadata") for entry in inline],
        )
        return web.json_response(self.render(job, output=False))

    async def list(
        self, request: web.Request, batches: FakeBatches, logged: LoggedRequest
    ) -> web.Response:
        try:
            size = int(request.query.get("pageSize", "50"))
            start = int(request.query.get("pageToken", "0") or 0)
        except ValueError:
            return self.error(400, "pageSize and pageToken: expected integers")
        jobs = batches.newest("google")
        page = [self.render(job, output=False) for job in jobs[start : start + size]]
        found: dict[str, Any] = {"operations": page}
        if start + size < len(jobs):
            found["nextPageToken"] = str(start + size)
        return web.json_response(found)

    async def retrieve(
        self, request: web.Request, batches: FakeBatches, logged: LoggedRequest
    ) -> web.Response:
        job = self._job(request, batches)
        if job is None:
            return self.error(404, f"Batch batches/{request.match_info['batch_id']} not found")
        operation = self.render(job, output=False)
        output = self._output(job)
        if output is None:
            return web.json_response(operation)
        # The responses are kept as JSON text: spliced in, not parsed again.
        metadata = json.dumps(operation["metadata"])[:-1] + f', "output": {output}}}'
        name, done = json.dumps(operation["name"]), json.dumps(operation["done"])
        text = f'{{"name": {name}, "metadata": {metadata}, "done": {done}}}'
        return web.Response(text=text, content_type="application/json")

    async def cancel(
        self, request: web.Request, batches: FakeBatches, logged: LoggedRequest
    ) -> web.Response:
        job = self._job(request, batches)
        if job is None:
            return self.error(404, f"Batch batches/{request.match_info['batch_id']} not found")
        if not job.ended(time.time()):
            job.cancelled = time.time()
        return web.json_response({})

    # --- the operation --------------------------------------------------------------------

    def _job(self, request: web.Request, batches: FakeBatches) -> Job | None:
        job = batches.jobs.get(request.match_info["batch_id"])
        return job if job is not None and job.provider == "google" else None

    def state(self, job: Job) -> str:
        if not job.ended(time.time()):
            return "BATCH_STATE_RUNNING"
        if job.cancelled is not None and job.cancelled < job.ends:
            return "BATCH_STATE_CANCELLED"
        if "error" in job.data:
            return "BATCH_STATE_FAILED"
        return "BATCH_STATE_EXPIRED" if job.expired else "BATCH_STATE_SUCCEEDED"

    def render(self, job: Job, *, output: bool) -> dict[str, Any]:
        now = time.time()
        state = self.state(job)
        total = len(job.results)
        done = state != "BATCH_STATE_RUNNING"
        succeeded = sum(r.kind == "succeeded" for r in job.results) if done else 0
        stats = {
            "requestCount": str(total),
            "pendingRequestCount": str(0 if done else total),
            "successfulRequestCount": str(succeeded if state == "BATCH_STATE_SUCCEEDED" else 0),
            "failedRequestCount": str(total - succeeded if state == "BATCH_STATE_SUCCEEDED" else 0),
        }
        metadata = {
            "@type": _TYPE,
            "model": f"models/{job.data['model']}",
            "displayName": job.data["display"],
            "createTime": _time(job.created),
            "updateTime": _time(min(now, job.cancelled or job.ends)),
            "batchStats": stats,
            "state": state,
            "name": f"batches/{job.id}",
        }
        if done:
            metadata["endTime"] = _time(job.cancelled or job.ends)
        operation = {"name": f"batches/{job.id}", "metadata": metadata, "done": done}
        if state == "BATCH_STATE_FAILED":
            operation["error"] = job.data["error"]
        return operation

    def _output(self, job: Job) -> str | None:
        if self.state(job) != "BATCH_STATE_SUCCEEDED":
            return None
        items = []
        for result, metadata in zip(job.results, job.data["metadata"], strict=True):
            meta = json.dumps(metadata)
            if result.kind == "succeeded":
                items.append(f'{{"response": {result.body}, "metadata": {meta}}}')
            else:
                # A google.rpc Status, its details kept (a QuotaFailure names a per-day quota:
                # https://cloud.google.com/apis/design/errors#error_model).
                error = json.loads(result.body).get("error") or {}
                status = {"code": _RPC.get(result.status, 13), "message": error.get("message")}
                if error.get("details"):
                    status["details"] = error["details"]
                items.append(f'{{"error": {json.dumps(status)}, "metadata": {meta}}}')
        return '{"inlinedResponses": {"inlinedResponses": [' + ", ".join(items) + "]}}"


def _time(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, tz=UTC).isoformat().replace("+00:00", "Z")


def _refusal(body: Any, size: int) -> str | None:
    """Why ``batchGenerateContent`` answers 400."""
    batch = body.get("batch") if isinstance(body, dict) else None
    if not isinstance(batch, dict):
        return "batch: required"
    if not batch.get("displayName"):
        return "batch.display_name: required"
    config = batch.get("inputConfig")
    if not isinstance(config, dict):
        return "batch.input_config: required"
    if "fileName" in config:
        return "batch.input_config.file_name: file input is not served by this fake server"
    inline = (config.get("requests") or {}).get("requests")
    if not isinstance(inline, list) or not inline:
        return "batch.input_config.requests: at least one request is required"
    if size > MAX_INLINE:
        return f"The inline requests of a batch total at most {MAX_INLINE} bytes."
    for index, entry in enumerate(inline):
        if not isinstance(entry, dict) or not isinstance(entry.get("request"), dict):
            return f"batch.input_config.requests.requests[{index}].request: required"
    return None
