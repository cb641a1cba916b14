"""A loopback fake provider server: OpenAI Chat Completions, Anthropic Messages and Gemini
generateContent, well enough for the official SDKs, with scripted replies, injected faults,
optional rate limits and a request log. Public as `jury.testing`.

The server owns what is the same for every provider and asks the `WireProtocol` object whose
route a request came in by for everything else; it never asks which provider it is talking to.

It binds 127.0.0.1 only: nothing it serves is reachable from another machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import signal
import sys
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from aiohttp import web

from ._batch_protocols import BATCH_PROTOCOLS
from ._batches import FakeBatches
from ._faults import MALFORMED_BODY, Fault, Injections, ScriptReply, spoil, valid_reply
from ._log import LoggedRequest, redacted
from ._protocols import PROTOCOLS
from ._wire import Tokens, WireProtocol, estimate_tokens

__all__ = ["FakeProviderServer", "main"]

Script = ScriptReply | Callable[[LoggedRequest], ScriptReply]


class FakeProviderServer:
    """A fake of the providers' APIs on 127.0.0.1, for tests and benchmarks::

        async with FakeProviderServer(latency=0.05) as server:
            server.script("gpt-4.1-mini-2025-04-14", {"reason": "ok", "relevance": 5, ...})
            server.inject(Fault.http(503), model="claude-haiku-4-5-20251001", times=2)
            env = server.env()  # OPENAI_BASE_URL, ANTHROPIC_BASE_URL, ... pointing here
            ...
            assert server.requests[0].body["response_format"]["type"] == "json_schema"

    Every model answers a valid reply for the schema its request carries unless scripted.
    `rpm` limits requests per minute per provider (``{"openai": 600}``), answering 429 with
    ``retry-after`` once a provider's sliding window is full.
    """

    def __init__(
        self,
        *,
        latency: float = 0.0,
        rpm: Mapping[str, float] | None = None,
        window: float = 60.0,
        port: int = 0,
        log: bool = True,
        batch_delay: float = 0.0,
    ) -> None:
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

    # --- where it is -----------------------------------------------------------------

    @property
    def openai_base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        return self.url

    @property
    def google_base_url(self) -> str:
        return self.url

    def env(self, key: str = "test-key-not-secret") -> dict[str, str]:
        """Environment variables that point every provider's SDK (and the adapters) here."""
        return {
            "OPENAI_BASE_URL": self.openai_base_url,
            "OPENAI_API_KEY": key,
            "ANTHROPIC_BASE_URL": self.anthropic_base_url,
            "ANTHROPIC_API_KEY": key,
            "GOOGLE_GEMINI_BASE_URL": self.google_base_url,
            "GOOGLE_API_KEY": key,
        }

    # --- lifecycle -------------------------------------------------------------------

    async def start(self) -> FakeProviderServer:
        app = web.Application(client_max_size=512 * 1024 * 1024)
        for protocol in PROTOCOLS:
            for route in protocol.routes:
                app.router.add_route(route.method, route.path, self._handler(protocol))
        self.batches.add_routes(app, BATCH_PROTOCOLS)
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
        )
        self._count += 1
        if self.log_requests:
            self.requests.append(logged)
        if not isinstance(body, dict):
            return self._error(protocol, logged, 400, "the request body is not a JSON object")
        refusal = protocol.refusal(body)
        if refusal is not None:
            return self._error(protocol, logged, 400, refusal)
        limited = self._rate_limit(protocol.provider)
        if limited is not None:
            self.throttled.setdefault(protocol.provider, []).append(
                time.monotonic() - self._started
            )
            return self._error(
                protocol,
                logged,
                429,
                "rate limit reached",
                retry_after=math.ceil(limited),
                ms=limited * 1000,
            )
        reply = self._next(logged)
        delay = self.latency
        if isinstance(reply, Fault) and reply.kind == "latency":
            delay += reply.delay
        if delay:
            await asyncio.sleep(delay)
        self.served[protocol.provider] = self.served.get(protocol.provider, 0) + 1
        if isinstance(reply, Fault):
            return await self._fault(request, protocol, logged, reply)
        return self._reply(protocol, logged, reply, truncated=False)

    def _next(self, logged: LoggedRequest) -> ScriptReply:
        """The injected fault for this call, else the scripted (or default) reply."""
        fault = self._injections.take(logged.model)
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

    async def _fault(
        self, request: web.Request, protocol: WireProtocol, logged: LoggedRequest, fault: Fault
    ) -> web.StreamResponse:
        logged.fault = fault.kind
        if fault.kind == "status":
            return self._error(
                protocol,
                logged,
                fault.status,
                fault.message or f"injected {fault.status}",
                retry_after=fault.retry_after,
                ms=fault.retry_after_ms,
            )
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
        reply = self._own_reply(logged)
        if fault.kind in ("latency", "truncated"):
            return self._reply(protocol, logged, reply, truncated=fault.kind == "truncated")
        return self._reply(protocol, logged, spoil(reply, fault, logged.schema), truncated=False)

    # --- answers, in the request's protocol ----------------------------------------------

    def _reply(
        self,
        protocol: WireProtocol,
        logged: LoggedRequest,
        reply: str | Mapping[str, Any],
        *,
        truncated: bool,
    ) -> web.Response:
        logged.status = 200
        return web.json_response(self._answer(protocol, logged, reply, truncated=truncated))

    def _answer(
        self,
        protocol: WireProtocol,
        logged: LoggedRequest,
        reply: str | Mapping[str, Any],
        *,
        truncated: bool,
    ) -> dict[str, Any]:
        text = reply if isinstance(reply, str) else json.dumps(reply)
        if truncated:
            text = text[: max(1, len(text) // 2)]
        system, rest = protocol.prompt_parts(logged.body)
        tokens = Tokens(
            input=estimate_tokens(system + rest),
            output=estimate_tokens(text),
            cached=self._cached(protocol, logged.body),
        )
        return protocol.reply_body(logged, text, tokens, truncated=truncated)

    def batch_answer(self, protocol: WireProtocol, logged: LoggedRequest) -> tuple[int, Any]:
        """What one request inside a batch gets: the status and body its online call would
        (its script's reply or its injected fault; a body the API refuses is a 400)."""
        self._count += 1
        if self.log_requests:
            self.batched.append(logged)
        body = logged.body
        if not isinstance(body, dict):
            return 400, protocol.error_body(400, "the request body is not a JSON object")
        refusal = protocol.refusal(body)
        if refusal is not None:
            return 400, protocol.error_body(400, refusal)
        reply = self._next(logged)
        if isinstance(reply, Fault):
            logged.fault = reply.kind
            if reply.kind == "status":
                message = reply.message or f"injected {reply.status}"
                return reply.status, protocol.error_body(reply.status, message)
            if reply.kind in ("hang", "drop", "malformed"):
                # Nothing a batch could return for it: the provider's own failure.
                return 500, protocol.error_body(500, f"injected {reply.kind}")
            own = self._own_reply(logged)
            if reply.kind in ("latency", "truncated"):
                truncated = reply.kind == "truncated"
                return 200, self._answer(protocol, logged, own, truncated=truncated)
            spoilt = spoil(own, reply, logged.schema)
            return 200, self._answer(protocol, logged, spoilt, truncated=False)
        self.served[protocol.provider] = self.served.get(protocol.provider, 0) + 1
        return 200, self._answer(protocol, logged, reply, truncated=False)

    def _cached(self, protocol: WireProtocol, body: dict[str, Any]) -> int:
        """Prompt caching as the providers do it: what the protocol caches is read from the
        cache when this server has seen it before."""
        prefix = protocol.cached_prefix(body)
        if not prefix:
            return 0
        key = (protocol.provider, prefix)
        if key in self._seen_prefixes:
            return estimate_tokens(prefix)
        self._seen_prefixes.add(key)
        return 0

    def _error(
        self,
        protocol: WireProtocol,
        logged: LoggedRequest,
        status: int,
        message: str,
        *,
        retry_after: float | str | None = None,
        ms: float | None = None,
    ) -> web.Response:
        logged.status = status
        headers: dict[str, str] = {}
        if isinstance(retry_after, str):
            headers["retry-after"] = retry_after
        elif retry_after is not None:
            headers["retry-after"] = f"{retry_after:g}"
        if ms is not None:
            headers["retry-after-ms"] = f"{ms:g}"
        return web.json_response(
            protocol.error_body(status, message), status=status, headers=headers
        )


# --- `python -m jury.testing`: the server on its own, for benchmarks and manual tries -----


def _parse_rpm(items: list[str]) -> dict[str, float]:
    limits = {}
    for item in items:
        provider, _, value = item.partition("=")
        limits[provider] = float(value)
    return limits


async def _serve(args: argparse.Namespace) -> None:
    server = FakeProviderServer(
        latency=args.latency,
        rpm=_parse_rpm(args.rpm),
        port=args.port,
        log=False,
        batch_delay=args.batch_delay,
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    async with server:
        print(server.url, flush=True)
        await stop.wait()
    counts = {"served": server.served, "throttled": server.throttled}
    print(json.dumps(counts), flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m jury.testing",
        description="Run the fake provider server on 127.0.0.1 until interrupted; print its "
        "URL first and, at exit, the requests served and the 429s sent (JSON).",
    )
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per reply")
    parser.add_argument(
        "--rpm", action="append", default=[], metavar="PROVIDER=N", help="requests per minute"
    )
    parser.add_argument("--batch-delay", type=float, default=0.0, help="seconds until a batch ends")
    asyncio.run(_serve(parser.parse_args(argv)))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
