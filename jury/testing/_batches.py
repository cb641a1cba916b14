"""The fake server's batch APIs: batches and files, when they end, and what each request gets.

Each provider's batch API is a `BatchProtocol` (OpenAI Batch in `_openai_batch`, Anthropic
Message Batches in `_anthropic_batch`, Gemini batch mode in `_google_batch`): its routes, the
shapes it reads and writes, what it refuses. `FakeBatches` owns what they share:

- every request inside a batch is answered when the batch is created, exactly as its online
  call would be (the same scripts, injected faults and refusals; `FakeProviderServer.batched`
  logs it), so that a run through batches and the same run online get the same replies;
- a batch ends `delay` seconds after it was created (`FakeProviderServer(batch_delay=...)`),
  when it is cancelled, or when a test ends every batch at once (`end`);
- `faults` makes a share of requests error or expire (chosen by a hash of the request, so the
  same request fares the same in every run), and a share of whole batches expire;
- every batch route is gated as the online calls are (`jury.testing._wire.gate`): the
  credential and version headers checked in strict mode, then a key in `rejected_keys`
  refused in the API's words; every call of each API is authenticated alike
  (https://platform.openai.com/docs/api-reference/authentication,
  https://docs.anthropic.com/en/api/overview, https://ai.google.dev/api#authentication);
- ``inject(Fault.http(429, retry_after=...), model=BATCHES)`` refuses the next batch creates
  (``Fault.quota()`` and ``Fault.account(...)`` too, in the provider's words: an account
  that cannot pay cannot create a batch either);
  ``inject(Fault.http(503), model=RESULTS)`` (or ``Fault.drop()``, a connection reset) spoils
  the next downloads of results (OpenAI's file content, Anthropic's results; "Retrieve file
  content always fails with 502 Bad gateway" is a thread of its own at
  https://community.openai.com/tag/batch-api);
- `enqueued` limits the input tokens a model may have in batches in flight (OpenAI's
  enqueued-token limit), `archive` archives ended batches (Anthropic: their results gone),
  and `faults(timed_out=..., fail_batches=...)` makes requests time out (OpenAI) and whole
  batches fail with an error (Gemini).

Results are kept as the JSON the provider returns, not as objects: a benchmark's hundreds of
thousands of requests fit in memory.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Protocol

from aiohttp import web

from ._error_replies import STOPS, stop_body, stop_reply
from ._faults import Fault
from ._log import LoggedRequest, redacted
from ._protocols import protocol_for
from ._wire import Ending, Provider, Refusal, WireProtocol, refused_or_rejected

__all__ = ["BATCHES", "RESULTS", "BatchHost", "BatchProtocol", "FakeBatches", "Job", "Result"]


class BatchHost(Protocol):
    """What the batches need of the server that hosts them (`FakeProviderServer`): its request
    logs, its clock, its injected faults, and its answer to a request as made online."""

    requests: list[LoggedRequest]
    batched: list[LoggedRequest]
    log_requests: bool
    strict: bool
    served: dict[str, int]
    rejected_keys: set[str]

    @property
    def elapsed(self) -> float: ...

    def count_call(self) -> None: ...

    def take_fault(self, model: str) -> Fault | None: ...

    def next_reply(self, logged: LoggedRequest) -> Any: ...

    def spoiled(self, logged: LoggedRequest, fault: Fault) -> tuple[Any, Ending]: ...

    def reply_body(
        self, protocol: WireProtocol, logged: LoggedRequest, reply: Any, ending: Ending = ...
    ) -> dict[str, Any]: ...


#: The model name under which faults for batch creates are injected.
BATCHES = "batches"
#: The model name under which faults for downloads of batch results are injected.
RESULTS = "batch-results"

Kind = Literal["succeeded", "errored", "expired", "canceled", "timed_out"]


@dataclass(slots=True)
class Result:
    """One request of a batch: how it ended, and its status and body as JSON text."""

    custom_id: str
    kind: Kind
    status: int
    body: str


@dataclass(slots=True)
class Job:
    """One batch. `data` holds what its provider echoes back (metadata, model, files...)."""

    id: str
    provider: Provider
    created: float
    ends: float
    results: list[Result]
    data: dict[str, Any] = field(default_factory=dict)
    cancelled: float | None = None
    #: Why the whole batch was refused after it was accepted (OpenAI's validation).
    failure: list[dict[str, Any]] = field(default_factory=list)
    expired: bool = False

    def ended(self, now: float) -> bool:
        return self.cancelled is not None or bool(self.failure) or now >= self.ends

    def final(self, now: float) -> list[Result]:
        """Its results as they stand: requests not run by a cancel are canceled."""
        if self.cancelled is not None and self.cancelled < self.ends:
            return [Result(r.custom_id, "canceled", 0, "null") for r in self.results]
        return self.results

    def tally(self, now: float) -> dict[str, int]:
        counts = {"succeeded": 0, "errored": 0, "expired": 0, "canceled": 0}
        if self.ended(now):
            for result in self.final(now):
                counts["errored" if result.kind == "timed_out" else result.kind] += 1
        return counts


class BatchProtocol:
    """One provider's batch API. `routes` are (method, path, name of the handling method)."""

    provider: ClassVar[Provider]
    routes: ClassVar[tuple[tuple[str, str, str], ...]]

    def error(self, status: int, message: str) -> web.Response:
        body = protocol_for(self.provider).error_body(status, message)
        return web.json_response(body, status=status)

    def header_refusal(self, headers: Mapping[str, str]) -> Refusal | None:
        """Why the API refuses a batch call's credential or version headers (strict mode):
        as its online calls' (OpenAI's batch routes override it)."""
        return protocol_for(self.provider).header_refusal(headers, "")


class FakeBatches:
    """Batches and files of the fake server (see the module's docstring)."""

    def __init__(self, server: BatchHost, *, delay: float = 0.0) -> None:
        self.server = server
        self.delay = delay
        self.errored = 0.0
        self.expired = 0.0
        self.expire_batches = 0.0
        self.timed_out = 0.0
        self.fail_batches = 0.0
        #: The most input tokens (a line's bytes / 4) one model may have in batches not
        #: ended yet (OpenAI's "enqueued prompt tokens per model"); None: no limit.
        self.enqueued: int | None = None
        self.jobs: dict[str, Job] = {}
        #: Uploaded and result files (OpenAI): purpose, name and content.
        self.files: dict[str, tuple[str, str, bytes]] = {}
        self._seq = 0

    def faults(
        self,
        *,
        errored: float = 0.0,
        expired: float = 0.0,
        expire_batches: float = 0.0,
        delay: float | None = None,
        timed_out: float = 0.0,
        fail_batches: float = 0.0,
    ) -> None:
        """Make shares of requests error (a 500 inside the batch), expire or time out
        (OpenAI's ``request_timeout``), and shares of whole batches expire or fail (Gemini's
        ``BATCH_STATE_FAILED`` with the operation's ``error``); `delay` sets when new batches
        end. A provider with no per-request expiry (Gemini) expires only whole batches."""
        self.errored = errored
        self.expired = expired
        self.expire_batches = expire_batches
        self.timed_out = timed_out
        self.fail_batches = fail_batches
        if delay is not None:
            self.delay = delay

    def end(self) -> None:
        """End every batch in flight now, as a provider finishing early does: a test holds
        its batches with a long `delay`, then lets them end at the moment it chooses. Call it
        on the server's event loop."""
        now = time.time()
        for job in self.jobs.values():
            job.ends = min(job.ends, now)

    def archive(self) -> None:
        """Archive every ended batch now (Anthropic: ``archived_at`` set, its results gone).
        Call it on the server's event loop."""
        now = time.time()
        for job in self.jobs.values():
            if job.ended(now):
                job.data.setdefault("archived", now)

    def add_routes(self, app: web.Application, apis: Iterable[BatchProtocol]) -> None:
        for api in apis:
            for method, path, name in api.routes:
                app.router.add_route(method, path, self._handler(api, getattr(api, name)))

    def _handler(
        self, api: BatchProtocol, handle: Callable[..., Awaitable[web.Response]]
    ) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def respond(request: web.Request) -> web.StreamResponse:
            logged = LoggedRequest(
                index=len(self.server.requests),
                provider=api.provider,
                method=request.method,
                path=request.path,
                headers=redacted(request.headers.items()),
                body=None,
                model=BATCHES,
                received=self.server.elapsed,
            )
            if self.server.log_requests:
                self.server.requests.append(logged)
            refusal = api.header_refusal(request.headers) if self.server.strict else None
            protocol = protocol_for(api.provider)
            stop = refused_or_rejected(
                protocol, request.headers, refusal, self.server.rejected_keys
            )
            if stop is not None:
                logged.status = stop[0]
                return web.json_response(stop[1], status=stop[0])
            response = await handle(request, self, logged)
            logged.status = response.status
            return response

        return respond

    # --- what the protocols share ---------------------------------------------------------

    def new_id(self, prefix: str) -> str:
        self._seq += 1
        return f"{prefix}{self._seq:06d}{hashlib.sha256(str(self._seq).encode()).hexdigest()[:8]}"

    def refused(self, api: BatchProtocol, logged: LoggedRequest) -> web.Response | None:
        """An injected fault for a batch create (``inject(..., model=BATCHES)``): an error
        status, or a quota or account stop in the provider's words."""
        fault = self.server.take_fault(BATCHES)
        if fault is not None and fault.kind in STOPS:
            return stop_reply(protocol_for(api.provider), fault)
        if fault is None or fault.kind != "status":
            return None
        response = api.error(fault.status, fault.message or f"injected {fault.status}")
        if fault.retry_after is not None:
            response.headers["retry-after"] = f"{fault.retry_after}"
        return response

    def spoiled_download(self, api: BatchProtocol, request: web.Request) -> web.Response | None:
        """An injected fault for a download of results (``inject(..., model=RESULTS)``): an
        error status, or a connection reset (``Fault.drop()``)."""
        fault = self.server.take_fault(RESULTS)
        if fault is None:
            return None
        if fault.kind == "drop":
            if request.transport is not None:
                request.transport.abort()
            return web.Response(status=503)  # never written: the connection is gone
        status = fault.status if fault.kind == "status" else 500
        return api.error(status, fault.message or f"injected {status}")

    def run(
        self, provider: Provider, items: Iterable[tuple[str, str, Any]], *, path: str
    ) -> list[Result]:
        """Answer each (custom ID, model, body) as its online call at `path` would be."""
        protocol = protocol_for(provider)
        results = []
        for custom_id, model, body in items:
            logged = LoggedRequest(
                index=len(self.server.batched),
                provider=provider,
                method="POST",
                path=path,
                headers={},
                body=body,
                model=model,
                received=self.server.elapsed,
                schema_of=protocol.requested_schema,
            )
            faulty = self.expired or self.errored or self.timed_out
            share = _share(custom_id, body) if faulty else 1.0
            if share < self.expired and provider != "google":
                if self.server.log_requests:
                    self.server.batched.append(logged)
                results.append(Result(custom_id, "expired", 0, "null"))
                continue
            late = self.expired + self.errored + self.timed_out
            if self.expired + self.errored <= share < late and provider == "openai":
                if self.server.log_requests:
                    self.server.batched.append(logged)
                results.append(Result(custom_id, "timed_out", 0, "null"))
                continue
            if share < self.expired + self.errored:
                if self.server.log_requests:
                    self.server.batched.append(logged)
                error = protocol.error_body(500, "injected: the request failed in its batch")
                results.append(Result(custom_id, "errored", 500, json.dumps(error)))
                continue
            status, answer = self.answer(protocol, logged)
            kind: Kind = "succeeded" if status == 200 else "errored"
            results.append(Result(custom_id, kind, status, json.dumps(answer)))
        return results

    def answer(self, protocol: WireProtocol, logged: LoggedRequest) -> tuple[int, Any]:
        """What one request inside a batch gets: the status and body its online call would
        (its script's reply or its injected fault), and, as online, a body the API refuses
        is a 400 (in strict mode by the same rules as an online call: each request of a
        batch is validated on its own and fails on its own; Anthropic: "validation of the
        params object for each message request is performed asynchronously, and validation
        errors are returned when processing of the entire batch has ended",
        https://docs.anthropic.com/en/docs/build-with-claude/batch-processing; OpenAI: the
        failed requests' errors go to the batch's ``error_file_id``,
        https://platform.openai.com/docs/guides/batch; Gemini: a request's google.rpc
        ``error`` in its place among the ``inlinedResponses``,
        https://ai.google.dev/api/batch-api). Batches have their own limits: the account's
        per-minute window does not apply."""
        server = self.server
        server.count_call()
        if server.log_requests:
            server.batched.append(logged)
        body = logged.body
        if not isinstance(body, dict):
            return 400, protocol.error_body(400, "the request body is not a JSON object")
        refusal = protocol.refusal(body)
        if refusal is not None:
            return 400, protocol.error_body(400, refusal)
        strict = protocol.strict_refusal(logged) if server.strict else None
        if strict is not None:
            return strict.status, protocol.refused_body(strict)
        reply = server.next_reply(logged)
        if isinstance(reply, Fault):
            logged.fault = reply.kind
            if reply.kind == "status":
                message = reply.message or f"injected {reply.status}"
                return reply.status, protocol.error_body(reply.status, message)
            if reply.kind in STOPS:
                # An account stop inside a batch is that request's error, as online (an
                # Anthropic result's error is the online error body: the SDK's
                # ``message_batch_errored_result.py``, ``error: ErrorResponse``).
                return stop_body(protocol, reply)
            if reply.kind in ("hang", "drop", "malformed"):
                # Nothing a batch could return for it: the provider's own failure.
                return 500, protocol.error_body(500, f"injected {reply.kind}")
            return 200, server.reply_body(protocol, logged, *server.spoiled(logged, reply))
        server.served[protocol.provider] = server.served.get(protocol.provider, 0) + 1
        return 200, server.reply_body(protocol, logged, reply)

    def add(self, provider: Provider, results: list[Result], **data: Any) -> Job:
        now = time.time()
        job = Job(
            id=str(data.pop("id")),
            provider=provider,
            created=now,
            ends=now + self.delay,
            results=results,
            data=data,
        )
        if self.expire_batches and _share(job.id, None) < self.expire_batches:
            job.expired = True
            job.results = [Result(r.custom_id, "expired", 0, "null") for r in results]
        elif self.fail_batches and _share(job.id, None) < self.fail_batches:
            job.data["error"] = {"code": 13, "message": "injected: the batch failed"}
        self.jobs[job.id] = job
        return job

    def enqueued_now(self, provider: Provider, model: str | None) -> int:
        """The input tokens of `model`'s batches not ended yet."""
        now = time.time()
        return sum(
            int(job.data.get("tokens", 0))
            for job in self.jobs.values()
            if job.provider == provider and job.data.get("model") == model and not job.ended(now)
        )

    def newest(self, provider: Provider) -> list[Job]:
        return [job for job in reversed(self.jobs.values()) if job.provider == provider]

    def page(
        self, provider: Provider, query: Mapping[str, str], most: int, after: str
    ) -> tuple[list[Job], bool] | str:
        """One page of a provider's batches, newest first, after the batch ID in
        ``query[after]`` (or before ``query["before_id"]``), at most ``query["limit"]``
        (default 20, at most `most`): the jobs and whether more follow, or why it is refused."""
        try:
            limit = int(query.get("limit", "20"))
        except ValueError:
            return "limit: expected an integer"
        if not 1 <= limit <= most:
            return f"limit: must be between 1 and {most}"
        jobs = self.newest(provider)
        ids = [job.id for job in jobs]
        if after in query:
            jobs = jobs[ids.index(query[after]) + 1 :] if query[after] in ids else []
        elif "before_id" in query:
            before = query["before_id"]
            jobs = jobs[: ids.index(before)][-limit:] if before in ids else []
        return jobs[:limit], len(jobs) > limit


def _share(custom_id: str, body: Any) -> float:
    """A request's place in [0, 1), the same in every run: which faults it meets. Its try
    (the custom ID's ``t<N>-`` head) and its body decide it, not the rest of the custom ID:
    the call's address names the server's URL, whose port differs from run to run."""
    attempt = custom_id.partition("-")[0]
    text = attempt + json.dumps(body, sort_keys=True)
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) / 2**32
