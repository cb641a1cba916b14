"""A loopback fake provider server: OpenAI Chat Completions, Anthropic Messages and Gemini
generateContent, well enough for the official SDKs, with scripted replies, injected faults,
optional rate limits and a request log. Public as `jury.testing`.

The server owns what is the same for every provider and asks the `WireProtocol` object whose
route a request came in by for everything else; it never asks which provider it is talking to.

It binds 127.0.0.1 only: nothing it serves is reachable from another machine.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from aiohttp import web

from ..adapters._endpoint import FAKE_HEADER
from ._addresses import Addresses
from ._batch_protocols import BATCH_PROTOCOLS
from ._batches import FakeBatches
from ._compatible import COMPATIBLE, add_compatible_routes, compatible_refusal, compatible_reply
from ._error_replies import error_headers, error_response
from ._faults import MALFORMED_BODY, Fault, Injections, ScriptReply, spoil, valid_reply
from ._log import LoggedRequest, redacted
from ._openai_models import add_model_route
from ._protocols import PROTOCOLS
from ._wire import Ending, Tokens, WireProtocol, estimate_tokens, gate

__all__ = ["FakeProviderServer"]

Script = ScriptReply | Callable[[LoggedRequest], ScriptReply]


class FakeProviderServer(Addresses):
    """A fake of the providers' APIs on 127.0.0.1, for tests and benchmarks::

        async with FakeProviderServer(latency=0.05) as server:
            server.script("gpt-4.1-mini-2025-04-14", {"reason": "ok", "relevance": 5, ...})
            server.inject(Fault.http(503), model="claude-haiku-4-5-20251001", times=2)
            env = server.env()  # OPENAI_BASE_URL, ANTHROPIC_BASE_URL, ... pointing here
            ...
            assert server.requests[0].body["response_format"]["type"] == "json_schema"

    Every model answers a valid reply for the schema its request carries unless scripted.
    `rpm` limits requests per minute per provider (``{"openai": 600}``), answering 429 once a
    provider's sliding window is full (with its delay where the provider puts it).

    Every response carries `jury.adapters.FAKE_HEADER`: its replies are priced $0, labelled
    FAKE everywhere, never served from the cache to another server. ``mark=False`` leaves it
    off, to test what a real server's replies go through (their price, their reuse).

    `models` names the models it serves (any other answers 404 as its API does); `compatible`
    makes its OpenAI route answer as that OpenAI-compatible server does
    (`jury.testing._compatible`: ``"llama-cpp-python"`` refuses a json_schema response format
    with the same HTTP 500 every time; ``"llama-server"``, ``"ollama"``, ``"vllm"``), and
    answers its read-only endpoints as it does; `slots` is what a llama-server says it serves
    at once.

    `strict` (the default) holds every request to what the real API accepts, answering what
    it refuses with the real status and error body (body keys the provider's request type
    does not have, empty messages, sampling settings a model refuses, a wrong API version,
    schema keywords structured outputs refuse), and answers the way the real API does where it
    is awkward: a thinking model left to think at its default effort spends the output budget
    (a reply cut at the limit), a prefix shorter than the model's minimum is never cached,
    replies carry the provider's rate-limit headers. Each rule is its protocol's
    (`jury.testing._wire.WireProtocol`). ``strict=False`` answers any body, as a lenient
    double.
    """

    def __init__(
        self,
        *,
        latency: float = 0.0,
        rpm: Mapping[str, float] | None = None,
        window: float = 60.0,
        port: int = 0,
        log: bool = True,
        strict: bool = True,
        batch_delay: float = 0.0,
        mark: bool = True,
        compatible: str | None = None,
        models: Iterable[str] | None = None,
        slots: int = 1,
    ) -> None:
        if compatible is not None and compatible not in COMPATIBLE:
            raise ValueError(f"compatible: one of {', '.join(COMPATIBLE)}, not {compatible!r}")
        self.strict = strict
        self.mark = mark
        self.compatible = compatible
        #: The calls a compatible server says it serves at once (llama-server's slots).
        self.slots = slots
        #: The models the server serves (any other answers 404 in its API's words); None: all.
        self.models = None if models is None else set(models)
        #: OpenAI's ``shutdown_date`` by model ("YYYY-MM-DD"), as GET /v1/models/{model} says.
        self.shutdowns: dict[str, str] = {}
        self.latency = latency
        self.rpm = dict(rpm or {})
        self.window = window
        self.log_requests = log
        self.requests: list[LoggedRequest] = []
        #: Every request submitted inside a batch, as its online call would be logged.
        self.batched: list[LoggedRequest] = []
        #: The provider batch APIs: batches, files, their timing and faults.
        self.batches = FakeBatches(self, delay=batch_delay)
        #: When (seconds after start) each rate-limit 429 was sent, per provider.
        self.throttled: dict[str, list[float]] = {}
        #: Requests answered, per provider (kept even when `log` is off).
        self.served: dict[str, int] = {}
        #: API keys every protocol answers as its API answers a key it does not accept.
        self.rejected_keys: set[str] = set()
        self._port = port
        self._scripts: dict[str, Script] = {}
        self._injections = Injections()
        self._windows: dict[str, deque[float]] = {}
        self._seen_prefixes: set[tuple[str, str]] = set()
        self._runner: web.AppRunner | None = None
        self._closing = asyncio.Event()
        self._started = 0.0
        self._count = 0
        self.url = ""

    # --- scripting -------------------------------------------------------------------

    def script(self, model: str, reply: Script) -> None:
        """How `model` answers: a reply for every call, or a callable of the request."""
        self._scripts[model] = reply

    def inject(self, fault: Fault, *, model: str | None = None, times: int | None = 1) -> None:
        """Make the next `times` calls (of `model`, or of any model) fail with `fault`;
        ``times=None`` makes every call fail until `clear` is called."""
        self._injections.add(fault, model=model, times=times)

    def clear(self) -> None:
        """Forget scripts, faults, the request log, the prompt cache and rate windows."""
        self._scripts.clear()
        self._injections.clear()
        self.requests.clear()
        self.batched.clear()
        self.throttled.clear()
        self._windows.clear()
        self._seen_prefixes.clear()

    def requests_for(self, model: str) -> list[LoggedRequest]:
        return [r for r in self.requests if r.model == model]

    @property
    def elapsed(self) -> float:
        """Seconds since the server started: the clock of `LoggedRequest.received`."""
        return time.monotonic() - self._started

    # --- lifecycle -------------------------------------------------------------------

    async def start(self) -> FakeProviderServer:
        app = web.Application(client_max_size=512 * 1024 * 1024)
        for protocol in PROTOCOLS:
            for route in protocol.routes:
                app.router.add_route(route.method, route.path, self._handler(protocol))
        self.batches.add_routes(app, BATCH_PROTOCOLS)
        if self.compatible is not None:
            add_compatible_routes(app, self.compatible, lambda: self.models, self.slots)
        else:
            add_model_route(app, self.shutdowns)
        app.on_response_prepare.append(self._mark_fake)
        self._runner = web.AppRunner(
            app, access_log=None, handle_signals=False, shutdown_timeout=0.1
        )
        await self._runner.setup()
        # Loopback only, by construction: there is no parameter for the host.
        site = web.TCPSite(self._runner, "127.0.0.1", self._port)
        await site.start()
        port = self._runner.addresses[0][1]
        self.url = f"http://127.0.0.1:{port}"
        self._started = time.monotonic()
        return self

    async def _mark_fake(self, request: web.Request, response: web.StreamResponse) -> None:
        # No real provider sends this header: the adapters mark the replies that carry it.
        if self.mark:
            response.headers[FAKE_HEADER] = "jury.testing"

    async def close(self) -> None:
        self._closing.set()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeProviderServer:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # --- one call ----------------------------------------------------------------------

    def _handler(
        self, protocol: WireProtocol
    ) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def handle(request: web.Request) -> web.StreamResponse:
            return await self._handle(request, protocol)

        return handle

    async def _handle(self, request: web.Request, protocol: WireProtocol) -> web.StreamResponse:
        raw = await request.read()
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode(errors="replace")
        logged = LoggedRequest(
            index=self._count,
            provider=protocol.provider,
            method=request.method,
            path=request.path,
            headers=redacted(request.headers.items()),
            body=body,
            model=protocol.model(request.match_info, body),
            received=self.elapsed,
            schema_of=protocol.requested_schema,
        )
        self._count += 1
        if self.log_requests:
            self.requests.append(logged)
        stop = gate(
            protocol, request.headers, logged.model, self.strict, self.rejected_keys, self.models
        )
        if stop is None and self.compatible and protocol.provider == "openai":
            stop = compatible_refusal(self.compatible, body) if isinstance(body, dict) else None
        if stop is not None:
            logged.status = stop[0]
            return web.json_response(stop[1], status=stop[0])
        if not isinstance(body, dict):
            return error_response(protocol, logged, 400, "the request body is not a JSON object")
        refusal = protocol.refusal(body)
        if refusal is not None:
            return error_response(protocol, logged, 400, refusal)
        strict = protocol.strict_refusal(logged) if self.strict else None
        if strict is not None:
            logged.status = strict.status
            return web.json_response(protocol.refused_body(strict), status=strict.status)
        limited = self._rate_limit(protocol.provider)
        if limited is not None:
            self.throttled.setdefault(protocol.provider, []).append(
                time.monotonic() - self._started
            )
            return self._rate_limited(protocol, logged, limited)
        reply = self.next_reply(logged)
        delay = self.latency
        if isinstance(reply, Fault) and reply.kind == "latency":
            delay += reply.delay
        if delay:
            await asyncio.sleep(delay)
        self.served[protocol.provider] = self.served.get(protocol.provider, 0) + 1
        if isinstance(reply, Fault):
            return await self._fault(request, protocol, logged, reply)
        return self._reply(protocol, logged, reply)

    def count_call(self) -> None:
        """Count a call answered inside a batch (its index in the fake's order of calls)."""
        self._count += 1

    def take_fault(self, model: str) -> Fault | None:
        """The next fault injected for `model` (or the batch creates), taking it."""
        return self._injections.take(model)

    def next_reply(self, logged: LoggedRequest) -> ScriptReply:
        """The injected fault for this call, else the scripted (or default) reply."""
        fault = self.take_fault(logged.model)
        if fault is not None:
            return fault
        script = self._scripts.get(logged.model)
        if script is None:
            return valid_reply(logged.schema)
        return script(logged) if callable(script) else script

    def _own_reply(self, logged: LoggedRequest) -> str | Mapping[str, Any]:
        """The model's own reply to a call a fault spoils or delays: its script asked now."""
        script = self._scripts.get(logged.model)
        scripted = script(logged) if callable(script) else script
        if scripted is None or isinstance(scripted, Fault):
            return valid_reply(logged.schema)
        return scripted

    def _rate_limit(self, provider: str) -> float | None:
        """Seconds until a request would fit the provider's window, or None when it fits."""
        limit = self.rpm.get(provider)
        if not limit:
            return None
        allowed = self.window * limit / 60.0
        now = time.monotonic()
        times = self._windows.setdefault(provider, deque())
        while times and times[0] <= now - self.window:
            times.popleft()
        if len(times) >= allowed:
            return max(times[0] + self.window - now, 0.001)
        times.append(now)
        return None

    def _limit_headers(self, protocol: WireProtocol) -> dict[str, str]:
        """The provider's rate-limit headers for its window as it stands (strict mode)."""
        limit = self.rpm.get(protocol.provider)
        if not (self.strict and limit):
            return {}
        times = self._windows.get(protocol.provider) or deque()
        allowed = int(self.window * limit / 60.0)
        reset = times[0] + self.window - time.monotonic() if times else 0.0
        return protocol.limit_headers(limit, max(allowed - len(times), 0), reset)

    def _rate_limited(
        self, protocol: WireProtocol, logged: LoggedRequest, delay: float
    ) -> web.Response:
        logged.status = 429
        message = "rate limit reached"
        if not self.strict:
            headers = error_headers(math.ceil(delay), delay * 1000)
            body = protocol.error_body(429, message)
        else:
            body, headers = protocol.rate_limited(message, delay)
            headers = {**headers, **self._limit_headers(protocol)}
        return web.json_response(body, status=429, headers=headers)

    async def _fault(
        self, request: web.Request, protocol: WireProtocol, logged: LoggedRequest, fault: Fault
    ) -> web.StreamResponse:
        logged.fault = fault.kind
        if fault.kind == "status":
            seconds = fault.retry_after
            if (
                fault.status == 429
                and self.strict
                and isinstance(seconds, (int, float))
                and fault.retry_after_ms is None
            ):
                # The delay travels where the provider puts it (Gemini: in the body).
                return self._rate_limited(protocol, logged, float(seconds))
            return error_response(
                protocol,
                logged,
                fault.status,
                fault.message or f"injected {fault.status}",
                retry_after=fault.retry_after,
                ms=fault.retry_after_ms,
                hint=fault.should_retry,
            )
        if fault.kind in ("quota", "overloaded", "account"):
            status, body = (
                protocol.account_stop(fault.field or "", fault.message)
                if fault.kind == "account"
                else protocol.quota_exhausted(fault.message)
                if fault.kind == "quota"
                else protocol.overloaded()
            )
            logged.status = status
            return web.json_response(body, status=status)
        if fault.kind == "hang":
            await self._closing.wait()
            return web.Response(status=503)  # nobody is listening by now
        if fault.kind == "drop":
            if request.transport is not None:
                request.transport.abort()
            return web.Response(status=503)  # never written: the connection is gone
        if fault.kind == "malformed":
            logged.status = 200
            return web.Response(body=MALFORMED_BODY, content_type="application/json")
        # The rest send the model's own reply, late or spoiled.
        reply, ending = self.spoiled(logged, fault)
        return self._reply(protocol, logged, reply, ending)

    def spoiled(
        self, logged: LoggedRequest, fault: Fault
    ) -> tuple[str | Mapping[str, Any], Ending]:
        """The model's own reply as a fault that still answers 200 spoils it (late, cut,
        refused, filtered, empty or broken), and how it ended."""
        reply = self._own_reply(logged)
        if fault.kind == "latency":
            return reply, "stop"
        if fault.kind == "truncated":
            text = reply if isinstance(reply, str) else json.dumps(reply)
            return text[: max(1, len(text) // 2)], "length"
        if fault.kind in ("refusal", "filtered", "empty"):
            words = fault.message or "I can't help with evaluating this."
            ending: Ending = "stop" if fault.kind == "empty" else fault.kind
            return (words if fault.kind == "refusal" else ""), ending
        return spoil(reply, fault, logged.schema), "stop"

    # --- answers, in the request's protocol ----------------------------------------------

    def _reply(
        self,
        protocol: WireProtocol,
        logged: LoggedRequest,
        reply: str | Mapping[str, Any],
        ending: Ending = "stop",
    ) -> web.Response:
        logged.status = 200
        body = self.reply_body(protocol, logged, reply, ending)
        if self.compatible is not None and protocol.provider == "openai":
            body = compatible_reply(self.compatible, body)
        return web.json_response(body, headers=self._limit_headers(protocol))

    def reply_body(
        self,
        protocol: WireProtocol,
        logged: LoggedRequest,
        reply: str | Mapping[str, Any],
        ending: Ending = "stop",
    ) -> dict[str, Any]:
        text = reply if isinstance(reply, str) else json.dumps(reply)
        logged.odds = getattr(reply, "odds", None)
        thinking = protocol.thinking_tokens(logged) if self.strict else 0
        limit = protocol.output_limit(logged.body)
        if ending == "stop" and limit is not None and thinking + estimate_tokens(text) > limit:
            # Thinking counts against the output limit: what is left of it is all the reply
            # gets, cut there (possibly to nothing).
            thinking = min(thinking, limit)
            text, ending = text[: (limit - thinking) * 4], "length"
        system, rest = protocol.prompt_parts(logged.body)
        read, written = self._cached(protocol, logged)
        tokens = Tokens(
            input=estimate_tokens(system + rest),
            output=(estimate_tokens(text) if text else 0) + thinking,
            cached=read,
            written=written,
            thinking=thinking,
        )
        return protocol.ended_body(logged, text, tokens, ending)

    def _cached(self, protocol: WireProtocol, logged: LoggedRequest) -> tuple[int, int]:
        """Prompt caching as the providers do it: the tokens read from the cache (what the
        protocol caches, when this server has seen it before) and written to it (the first
        time, where the protocol reports writes). In strict mode a prefix shorter than the
        model's minimum is never cached."""
        prefix = protocol.cached_prefix(logged.body)
        if not prefix:
            return 0, 0
        size = estimate_tokens(prefix)
        if self.strict:
            if size < protocol.cache_minimum(logged.model):
                return 0, 0
            size -= size % protocol.cache_increment()
        key = (protocol.provider, prefix)
        if key in self._seen_prefixes:
            return size, 0
        self._seen_prefixes.add(key)
        return 0, size if protocol.reports_cache_writes else 0
