"""OpenAI Batch and Files, as the fake server speaks them.

Shapes and rules from https://platform.openai.com/docs/guides/batch and
https://platform.openai.com/docs/api-reference/batch (the SDK's ``types/batch.py``,
``batch_create_params.py``, ``file_object.py``, ``file_create_params.py``):

- ``POST /v1/files`` multipart ``purpose`` and ``file``; a batch input has purpose ``batch``,
  is JSONL, at most 200 MB (read as 200,000,000 bytes: the docs give no binary unit; the
  400's wording is this fake's own);
- ``POST /v1/batches``: ``input_file_id`` (a file of purpose batch), ``endpoint``,
  ``completion_window`` ("24h" only), ``metadata`` (16 pairs at most, keys of 64 characters,
  values of 512); the file's lines (``custom_id`` unique, ``method`` POST, ``url`` equal to the
  endpoint, ``body``; 50,000 at most, one model) are checked after the batch is accepted: a
  bad file makes the batch ``failed`` with ``errors.data`` [{code, line, message, param}]
  (the codes are this fake's own words);
- results: the output file holds ``{"id", "custom_id", "response": {"status_code": 200,
  "request_id", "body"}, "error": null}``; the error file the requests that failed (their
  status and error body) and those never run, ``"error": {"code": "batch_expired"}`` (or
  ``batch_cancelled``), and those that timed out, ``"error": {"code": "request_timeout"}``;
  a batch with expired requests ends ``expired``;
- the enqueued-token limit (`FakeBatches.enqueued`: "Enqueued prompt tokens per model",
  https://platform.openai.com/docs/guides/rate-limits): a batch that would take a model's
  batches in flight over it is accepted, then ``failed`` with ``errors.data`` [{"code":
  "token_limit_exceeded", "line": null, "param": null, "message"}], the message as the API
  words it (https://community.openai.com/t/enqueued-token-limit-reached/ and the Azure
  OpenAI thread at https://learn.microsoft.com/en-us/answers/questions/2285577). The fake
  counts a line's tokens as its bytes / 4.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any, ClassVar

from aiohttp import web

from ._batches import BatchProtocol, FakeBatches, Job
from ._log import LoggedRequest
from ._protocols import protocol_for
from ._wire import Provider, Refusal

__all__ = ["OpenAIBatch"]

ENDPOINTS = frozenset({"/v1/chat/completions"})
PURPOSES = frozenset({"assistants", "batch", "fine-tune", "vision", "user_data", "evals"})
MAX_BYTES = 200_000_000
MAX_LINES = 50_000
DAY = 24 * 3600
_EXPIRED = "This request could not be executed before the completion window expired."
_CANCELLED = "This request could not be executed before the batch was cancelled."
_TIMED_OUT = "This request timed out."


class OpenAIBatch(BatchProtocol):
    provider: ClassVar[Provider] = "openai"
    routes: ClassVar[tuple[tuple[str, str, str], ...]] = (
        ("POST", "/v1/files", "upload"),
        ("GET", "/v1/files/{file_id}", "file"),
        ("GET", "/v1/files/{file_id}/content", "content"),
        ("POST", "/v1/batches", "create"),
        ("GET", "/v1/batches", "list"),
        ("GET", "/v1/batches/{batch_id}", "retrieve"),
        ("POST", "/v1/batches/{batch_id}/cancel", "cancel"),
    )

    def header_refusal(self, headers: Mapping[str, str]) -> Refusal | None:
        # The batch and file routes are OpenAI's own (no compatible server serves them: the
        # adapters send none there), so every call of them needs OpenAI's key, as a call of
        # one of its own models does ("gpt-" names one).
        return protocol_for(self.provider).header_refusal(headers, "gpt-")

    async def upload(
        self, request: web.Request, batches: FakeBatches, logged: LoggedRequest
    ) -> web.Response:
        if not request.content_type.startswith("multipart/"):
            return self.error(400, "a file is uploaded as multipart/form-data")
        fields: dict[str, Any] = {}
        # The whole body parsed by the standard library, not aiohttp's part reader: that one
        # calls its deprecated `unread_data` when a read ends mid-boundary (a chunking that
        # depends on timing), a warning that the suite turns into a failed upload.
        head = f"Content-Type: {request.headers['Content-Type']}\r\n\r\n".encode()
        form = BytesParser(policy=HTTP).parsebytes(head + await request.read())
        for part in form.iter_parts():
            name = part.get_param("name", header="content-disposition")
            data = part.get_payload(decode=True)
            fields[str(name)] = (part.get_filename(), data if isinstance(data, bytes) else b"")
        logged.body = {k: v[1].decode() if k != "file" else v[0] for k, v in fields.items()}
        purpose = fields.get("purpose", (None, b""))[1].decode()
        if "file" not in fields:
            return self.error(400, "'file' is a required property")
        if purpose not in PURPOSES:
            return self.error(400, f"'{purpose}' is not one of {sorted(PURPOSES)} - 'purpose'")
        filename, content = fields["file"]
        if purpose == "batch" and not str(filename or "").endswith(".jsonl"):
            return self.error(400, "Invalid file format for Batch API. Must be .jsonl")
        if purpose == "batch" and len(content) > MAX_BYTES:
            return self.error(
                400, f"File is too large: a batch input file is at most {MAX_BYTES} bytes."
            )
        file_id = batches.new_id("file-")
        batches.files[file_id] = (purpose, str(filename), content)
        return web.json_response(_file(file_id, batches.files[file_id]))

    async def file(
        self, request: web.Request, batches: FakeBatches, logged: LoggedRequest
    ) -> web.Response:
        file_id = request.match_info["file_id"]
        stored = batches.files.get(file_id)
        if stored is None:
            return self.error(404, f"No such File object: {file_id}")
        return web.json_response(_file(file_id, stored))

    async def content(
        self, request: web.Request, batches: FakeBatches, logged: LoggedRequest
    ) -> web.Response:
        stored = batches.files.get(request.match_info["file_id"])
        if stored is None:
            return self.error(404, f"No such File object: {request.match_info['file_id']}")
        spoiled = batches.spoiled_download(self, request) if stored[0] == "batch_output" else None
        if spoiled is not None:
            return spoiled
        return web.Response(body=stored[2], content_type="application/octet-stream")

    async def create(
        self, request: web.Request, batches: FakeBatches, logged: LoggedRequest
    ) -> web.Response:
        body = await _json(request)
        logged.body = body
        if not isinstance(body, dict):
            return self.error(400, "the request body is not a JSON object")
        refused = batches.refused(self, logged)
        if refused is not None:
            return refused
        problem = _refusal(body, batches)
        if problem is not None:
            return self.error(400, problem)
        lines = batches.files[body["input_file_id"]][2].splitlines()
        items, errors, model = _items(lines, body["endpoint"])
        tokens = sum(-(-(len(line) + 1) // 4) for line in lines)
        if not errors and batches.enqueued is not None:
            held = batches.enqueued_now("openai", model)
            if held + tokens > batches.enqueued:
                errors = [_token_limit(model, batches.enqueued, held)]
        job = batches.add(
            "openai",
            [] if errors else batches.run("openai", items, path=body["endpoint"]),
            id=batches.new_id("batch_"),
            endpoint=body["endpoint"],
            input_file_id=body["input_file_id"],
            metadata=body.get("metadata"),
            model=model,
            tokens=0 if errors else tokens,
        )
        job.failure = errors
        return web.json_response(self.render(job, batches))

    async def list(
        self, request: web.Request, batches: FakeBatches, logged: LoggedRequest
    ) -> web.Response:
        found = batches.page("openai", request.query, 100, "after")
        if isinstance(found, str):
            return self.error(400, found)
        jobs, more = found
        page = [self.render(job, batches) for job in jobs]
        return web.json_response(
            {
                "object": "list",
                "data": page,
                "first_id": page[0]["id"] if page else None,
                "last_id": page[-1]["id"] if page else None,
                "has_more": more,
            }
        )

    async def retrieve(
        self, request: web.Request, batches: FakeBatches, logged: LoggedRequest
    ) -> web.Response:
        job = batches.jobs.get(request.match_info["batch_id"])
        if job is None or job.provider != "openai":
            return self.error(404, f"No batch found with id '{request.match_info['batch_id']}'")
        return web.json_response(self.render(job, batches))

    async def cancel(
        self, request: web.Request, batches: FakeBatches, logged: LoggedRequest
    ) -> web.Response:
        job = batches.jobs.get(request.match_info["batch_id"])
        if job is None or job.provider != "openai":
            return self.error(404, f"No batch found with id '{request.match_info['batch_id']}'")
        if job.ended(time.time()):
            return self.error(400, f"Cannot cancel a batch with status '{self.status(job)}'")
        job.cancelled = time.time()
        rendered = self.render(job, batches)
        rendered["status"] = "cancelling"
        return web.json_response(rendered)

    # --- the batch object -----------------------------------------------------------------

    def status(self, job: Job) -> str:
        now = time.time()
        if job.failure:
            return "failed"
        if job.cancelled is not None and job.cancelled < job.ends:
            return "cancelled"
        if not job.ended(now):
            return "in_progress"
        if job.expired or any(r.kind == "expired" for r in job.results):
            return "expired"
        return "completed"

    def render(self, job: Job, batches: FakeBatches) -> dict[str, Any]:
        now = time.time()
        status = self.status(job)
        ended = status in ("failed", "cancelled", "expired", "completed")
        if ended and not job.failure and "output" not in job.data:
            self._write_files(job, batches)
        results = job.final(now) if ended else []
        created = int(job.created)
        done = int(job.cancelled or job.ends)
        return {
            "id": job.id,
            "object": "batch",
            "endpoint": job.data["endpoint"],
            "model": job.data.get("model"),
            "errors": {"object": "list", "data": job.failure} if job.failure else None,
            "input_file_id": job.data["input_file_id"],
            "completion_window": "24h",
            "status": status,
            "output_file_id": job.data.get("output"),
            "error_file_id": job.data.get("errors"),
            "created_at": created,
            "in_progress_at": None if job.failure else created,
            "expires_at": created + DAY,
            "finalizing_at": done if status in ("completed", "expired") else None,
            "completed_at": done if status == "completed" else None,
            "failed_at": created if job.failure else None,
            "expired_at": done if status == "expired" else None,
            "cancelling_at": int(job.cancelled) if job.cancelled else None,
            "cancelled_at": done if status == "cancelled" else None,
            "request_counts": {
                "total": len(job.results),
                "completed": sum(r.kind == "succeeded" for r in results),
                "failed": sum(r.kind != "succeeded" for r in results),
            },
            "metadata": job.data.get("metadata"),
        }

    def _write_files(self, job: Job, batches: FakeBatches) -> None:
        output: list[str] = []
        errors: list[str] = []
        for n, result in enumerate(job.final(time.time())):
            head = f'{{"id": "batch_req_{job.id}_{n}", "custom_id": {json.dumps(result.custom_id)}'
            if result.kind in ("expired", "canceled", "timed_out"):
                code, message = {
                    "expired": ("batch_expired", _EXPIRED),
                    "canceled": ("batch_cancelled", _CANCELLED),
                    "timed_out": ("request_timeout", _TIMED_OUT),
                }[result.kind]
                error = json.dumps({"code": code, "message": message})
                errors.append(f'{head}, "response": null, "error": {error}}}\n')
                continue
            # The body is kept as JSON text, spliced in rather than parsed again.
            response = (
                f'{{"status_code": {result.status}, "request_id": "req_{n}", '
                f'"body": {result.body}}}'
            )
            line = f'{head}, "response": {response}, "error": null}}\n'
            (output if result.kind == "succeeded" else errors).append(line)
        for name, lines in (("output", output), ("errors", errors)):
            if lines:
                file_id = batches.new_id("file-")
                content = "".join(lines).encode()
                batches.files[file_id] = ("batch_output", f"{job.id}_{name}.jsonl", content)
                job.data[name] = file_id


def _token_limit(model: str | None, limit: int, held: int) -> dict[str, Any]:
    message = (
        f"Enqueued token limit reached for {model} in organization org-fake. Limit: "
        f"{limit:,} enqueued tokens. Please try again once some in_progress batches have "
        "been completed."
    )
    return {"code": "token_limit_exceeded", "line": None, "message": message, "param": None}


def _file(file_id: str, stored: tuple[str, str, bytes]) -> dict[str, Any]:
    purpose, filename, content = stored
    return {
        "id": file_id,
        "object": "file",
        "bytes": len(content),
        "created_at": int(time.time()),
        "filename": filename,
        "purpose": purpose,
        "status": "processed",
        "expires_at": None,
        "status_details": None,
    }


def _refusal(body: dict[str, Any], batches: FakeBatches) -> str | None:
    """Why ``POST /v1/batches`` answers 400."""
    for name in ("input_file_id", "endpoint", "completion_window"):
        if name not in body:
            return f"Missing required parameter: '{name}'."
    stored = batches.files.get(body["input_file_id"])
    if stored is None:
        return f"No such File object: {body['input_file_id']}"
    if stored[0] != "batch":
        return f"File {body['input_file_id']} has purpose '{stored[0]}', not 'batch'."
    if body["endpoint"] not in ENDPOINTS:
        return f"Invalid value for 'endpoint': {body['endpoint']!r}"
    if body["completion_window"] != "24h":
        return "Invalid value for 'completion_window': only '24h' is supported."
    metadata = body.get("metadata") or {}
    if not isinstance(metadata, dict) or len(metadata) > 16:
        return "Invalid 'metadata': at most 16 key-value pairs."
    for key, value in metadata.items():
        if len(str(key)) > 64 or not isinstance(value, str) or len(value) > 512:
            return "Invalid 'metadata': keys of at most 64 and string values of at most 512."
    return None


def _items(
    lines: list[bytes], endpoint: str
) -> tuple[list[tuple[str, str, Any]], list[dict[str, Any]], str | None]:
    """The batch's requests, or the validation errors that make it fail, and its model."""
    items: list[tuple[str, str, Any]] = []
    errors: list[dict[str, Any]] = []
    seen: set[str] = set()
    models: set[str] = set()

    def bad(number: int, code: str, message: str, param: str | None = None) -> None:
        errors.append({"code": code, "line": number, "message": message, "param": param})

    if len(lines) > MAX_LINES:
        bad(0, "too_many_requests", f"A batch holds at most {MAX_LINES} requests.")
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except ValueError:
            bad(number, "invalid_json_line", "This line is not parseable as valid JSON.")
            continue
        if not isinstance(line, dict) or not isinstance(line.get("body"), dict):
            bad(number, "invalid_request", "A line needs custom_id, method, url and body.")
            continue
        custom = line.get("custom_id")
        if not isinstance(custom, str) or custom in seen:
            bad(number, "duplicate_custom_id", "custom_id must be unique.", "custom_id")
            continue
        if line.get("method") != "POST" or line.get("url") != endpoint:
            bad(number, "mismatched_endpoint", f"The url must be {endpoint}.", "url")
            continue
        seen.add(custom)
        model = str(line["body"].get("model", ""))
        models.add(model)
        items.append((custom, model, line["body"]))
    if len(models) > 1:
        bad(0, "mismatched_model", "All requests of a batch must use one model.", "model")
    return items, errors, next(iter(models), None)


async def _json(request: web.Request) -> Any:
    try:
        return await request.json()
    except ValueError:
        return None
