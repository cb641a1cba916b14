"""A loopback fake provider server: OpenAI Chat Completions, Anthropic Messages and Gemini
generateContent, well enough for the official SDKs, with scripted replies, injected faults,
optional rate limits and a request log. Public as `jury.testing`.

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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.utils import formatdate
from typing import Any, Literal

from aiohttp import web

__all__ = ["FakeProviderServer", "Fault", "LoggedRequest", "ScriptReply", "valid_reply"]

Provider = Literal["openai", "anthropic", "google"]

#: Headers whose values are credentials: the request log keeps their presence, not values.
SECRET_HEADERS = frozenset(
    {"authorization", "x-api-key", "x-goog-api-key", "api-key", "proxy-authorization", "cookie"}
)
REDACTED = "[redacted]"


@dataclass(frozen=True, slots=True)
class Fault:
    """Something to go wrong with one call. Build one with the class methods.

    ``status``: answer with an HTTP error (and ``retry-after``/``retry-after-ms`` headers);
    ``latency``: answer normally after a delay; ``hang``: never answer (until the server
    closes); ``drop``: close the connection without an answer; ``malformed``: a 200 whose body
    is not JSON; ``truncated``: the judge's text cut off at the token limit;
    ``out_of_range``/``missing``: the reply with one field out of its range, or left out.
    """

    kind: Literal[
        "status", "latency", "hang", "drop", "malformed", "truncated", "out_of_range", "missing"
    ]
    status: int = 0
    retry_after: float | str | None = None
    retry_after_ms: float | None = None
    delay: float = 0.0
    field: str | None = None
    message: str = ""

    @classmethod
    def http(
        cls,
        status: int,
        *,
        retry_after: float | str | None = None,
        retry_after_ms: float | None = None,
        message: str = "",
    ) -> Fault:
        """An HTTP error. `retry_after` is seconds, or an HTTP date given as a string."""
        return cls("status", status, retry_after, retry_after_ms, message=message)

    @classmethod
    def latency(cls, seconds: float) -> Fault:
        return cls("latency", delay=seconds)

    @classmethod
    def hang(cls) -> Fault:
        return cls("hang")

    @classmethod
    def drop(cls) -> Fault:
        return cls("drop")

    @classmethod
    def malformed(cls) -> Fault:
        return cls("malformed")

    @classmethod
    def truncated(cls) -> Fault:
        return cls("truncated")

    @classmethod
    def out_of_range(cls, field: str | None = None) -> Fault:
        """The reply with `field` (default: its first integer field) past its maximum."""
        return cls("out_of_range", field=field)

    @classmethod
    def missing(cls, field: str | None = None) -> Fault:
        """The reply without `field` (default: its first field after ``reason``)."""
        return cls("missing", field=field)


@dataclass(slots=True)
class LoggedRequest:
    """One request the server received. Credential headers keep their names, not values."""

    index: int
    provider: Provider
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    model: str
    #: What the server answered: an HTTP status, or 0 for a dropped or hung connection.
    status: int = 0
    fault: str | None = None
    received: float = 0.0

    @property
    def schema(self) -> dict[str, Any] | None:
        """The JSON schema the request asked the reply to follow, wherever it put it."""
        return _requested_schema(self.provider, self.body)


#: What a script gives for one call: reply text, an object sent as JSON text, or a fault.
ScriptReply = str | Mapping[str, Any] | Fault
Script = ScriptReply | Callable[[LoggedRequest], ScriptReply]


@dataclass(slots=True)
class _Injection:
    fault: Fault
    model: str | None
    remaining: int | None


def valid_reply(schema: Mapping[str, Any] | None, *, score: int | None = None) -> dict[str, Any]:
    """A reply that satisfies `schema` (a flat object schema such as a rubric's): strings say
    "scripted reply", integers take `score` or the top of their range, booleans true."""
    reply: dict[str, Any] = {}
    if not schema:
        return {"reason": "scripted reply"}
    for name, prop in (schema.get("properties") or {}).items():
        kind = prop.get("type")
        if "enum" in prop:
            reply[name] = prop["enum"][-1]
        elif kind == "integer":
            top = prop.get("maximum", 5)
            reply[name] = score if score is not None else top
        elif kind == "number":
            reply[name] = float(score if score is not None else prop.get("maximum", 1.0))
        elif kind == "boolean":
            reply[name] = True
        elif kind == "array":
            reply[name] = []
        elif kind == "object":
            reply[name] = valid_reply(prop, score=score)
        else:
            reply[name] = "scripted reply"
    return reply


def _requested_schema(provider: Provider, body: Any) -> dict[str, Any] | None:
    if not isinstance(body, dict):
        return None
    found: Any = None
    if provider == "openai":
        fmt = body.get("response_format") or {}
        found = (fmt.get("json_schema") or {}).get("schema")
    elif provider == "anthropic":
        fmt = (body.get("output_config") or {}).get("format") or {}
        found = fmt.get("schema")
        if found is None and body.get("tools"):
            found = body["tools"][0].get("input_schema")
    else:
        config = body.get("generationConfig") or {}
        found = config.get("responseJsonSchema") or config.get("responseSchema")
    return found if isinstance(found, dict) else None


def _estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4)


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
    ) -> None:
        self.latency = latency
        self.rpm = dict(rpm or {})
        self.window = window
        self.log_requests = log
        self.requests: list[LoggedRequest] = []
        #: When (seconds after start) each rate-limit 429 was sent, per provider.
        self.throttled: dict[str, list[float]] = {}
        #: Requests answered, per provider (kept even when `log` is off).
        self.served: dict[str, int] = {}
        self._port = port
        self._scripts: dict[str, Script] = {}
        self._injections: list[_Injection] = []
        self._windows: dict[str, deque[float]] = {}
        self._seen_systems: set[tuple[str, str]] = set()
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
        self._injections.append(_Injection(fault, model, times))

    def clear(self) -> None:
        """Forget scripts, faults, the request log, the prompt cache and rate windows."""
        self._scripts.clear()
        self._injections.clear()
        self.requests.clear()
        self.throttled.clear()
        self._windows.clear()
        self._seen_systems.clear()

    def requests_for(self, model: str) -> list[LoggedRequest]:
        return [r for r in self.requests if r.model == model]

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
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self._openai)
        app.router.add_post("/v1/messages", self._anthropic)
        app.router.add_post(
            r"/{version:v1(?:beta|alpha)?}/models/{model}:generateContent", self._google
        )
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

    # --- handlers --------------------------------------------------------------------

    async def _openai(self, request: web.Request) -> web.StreamResponse:
        return await self._handle(request, "openai", None)

    async def _anthropic(self, request: web.Request) -> web.StreamResponse:
        return await self._handle(request, "anthropic", None)

    async def _google(self, request: web.Request) -> web.StreamResponse:
        return await self._handle(request, "google", request.match_info["model"])

    async def _handle(
        self, request: web.Request, provider: Provider, model: str | None
    ) -> web.StreamResponse:
        raw = await request.read()
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode(errors="replace")
        if model is None:
            model = str(body.get("model", "")) if isinstance(body, dict) else ""
        logged = LoggedRequest(
            index=self._count,
            provider=provider,
            method=request.method,
            path=request.path,
            headers={
                k.lower(): REDACTED if k.lower() in SECRET_HEADERS else v
                for k, v in request.headers.items()
            },
            body=body,
            model=model,
            received=time.monotonic() - self._started,
        )
        self._count += 1
        if self.log_requests:
            self.requests.append(logged)
        if not isinstance(body, dict):
            return self._error(logged, 400, "the request body is not a JSON object")
        limited = self._rate_limit(provider)
        if limited is not None:
            self.throttled.setdefault(provider, []).append(time.monotonic() - self._started)
            return self._error(
                logged, 429, "rate limit reached", retry_after=math.ceil(limited), ms=limited * 1000
            )
        reply = self._next(logged)
        delay = self.latency
        if isinstance(reply, Fault) and reply.kind == "latency":
            delay += reply.delay
        if delay:
            await asyncio.sleep(delay)
        self.served[provider] = self.served.get(provider, 0) + 1
        if isinstance(reply, Fault):
            return await self._fault(request, logged, reply)
        return self._reply(logged, reply, truncated=False)

    def _next(self, logged: LoggedRequest) -> ScriptReply:
        """The injected fault for this call, else the scripted (or default) reply."""
        for injection in self._injections:
            if injection.model not in (None, logged.model) or injection.remaining == 0:
                continue
            if injection.remaining is not None:
                injection.remaining -= 1
            return injection.fault
        script = self._scripts.get(logged.model)
        if script is None:
            return valid_reply(logged.schema)
        return script(logged) if callable(script) else script

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
        self, request: web.Request, logged: LoggedRequest, fault: Fault
    ) -> web.StreamResponse:
        logged.fault = fault.kind
        if fault.kind == "status":
            return self._error(
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
            return web.Response(
                body=b'{"id": "broken", "choices": [{"message": ', content_type="application/json"
            )
        script = self._scripts.get(logged.model)
        scripted = script(logged) if callable(script) else script
        reply = (
            valid_reply(logged.schema)
            if scripted is None or isinstance(scripted, Fault)
            else scripted
        )
        if fault.kind == "latency":
            return self._reply(logged, reply, truncated=False)
        if fault.kind == "truncated":
            return self._reply(logged, reply, truncated=True)
        data = json.loads(reply) if isinstance(reply, str) else dict(reply)
        name = fault.field
        if fault.kind == "out_of_range":
            schema = logged.schema or {}
            props = schema.get("properties", {})
            name = name or next(
                (k for k, v in props.items() if v.get("type") == "integer"), next(iter(data))
            )
            top = props.get(name, {}).get("maximum", 5)
            data[name] = top + 5
        else:
            name = name or next((k for k in data if k != "reason"), next(iter(data)))
            data.pop(name, None)
        return self._reply(logged, data, truncated=False)

    # --- wire formats ----------------------------------------------------------------

    def _reply(
        self, logged: LoggedRequest, reply: str | Mapping[str, Any], *, truncated: bool
    ) -> web.Response:
        text = reply if isinstance(reply, str) else json.dumps(reply)
        if truncated:
            text = text[: max(1, len(text) // 2)]
        body = logged.body
        system, prompt_text = _prompt_parts(logged.provider, body)
        input_tokens = _estimate_tokens(system + prompt_text)
        output_tokens = _estimate_tokens(text)
        cached = self._cached(logged, system)
        logged.status = 200
        if logged.provider == "openai":
            data: dict[str, Any] = {
                "id": f"chatcmpl-{logged.index}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": logged.model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text, "refusal": None},
                        "logprobs": None,
                        "finish_reason": "length" if truncated else "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": input_tokens,
                    "completion_tokens": output_tokens,
                    "total_tokens": input_tokens + output_tokens,
                    "prompt_tokens_details": {"cached_tokens": cached},
                },
                "system_fingerprint": "fp_fake",
            }
        elif logged.provider == "anthropic":
            tool = _forced_tool(body)
            content: dict[str, Any]
            if tool is not None and not truncated:
                content = {"type": "tool_use", "id": f"toolu_{logged.index}", "name": tool}
                content["input"] = json.loads(text) if text.startswith("{") else {"text": text}
            else:
                content = {"type": "text", "text": text}
            data = {
                "id": f"msg_{logged.index}",
                "type": "message",
                "role": "assistant",
                "model": logged.model,
                "content": [content],
                "stop_reason": "max_tokens" if truncated else "end_turn",
                "stop_sequence": None,
                "usage": {
                    # Anthropic counts cached input apart from `input_tokens`.
                    "input_tokens": input_tokens - cached,
                    "output_tokens": output_tokens,
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": cached,
                },
            }
        else:
            data = {
                "candidates": [
                    {
                        "content": {"role": "model", "parts": [{"text": text}]},
                        "finishReason": "MAX_TOKENS" if truncated else "STOP",
                        "index": 0,
                    }
                ],
                "usageMetadata": {
                    "promptTokenCount": input_tokens,
                    "candidatesTokenCount": output_tokens,
                    "totalTokenCount": input_tokens + output_tokens,
                    "cachedContentTokenCount": cached,
                },
                "modelVersion": logged.model,
                "responseId": f"resp-{logged.index}",
            }
        return web.json_response(data)

    def _cached(self, logged: LoggedRequest, system: str) -> int:
        """Prompt caching as the providers do it: a system prompt seen before is read from
        the cache (for Anthropic only when the request marked it with cache_control)."""
        if not system:
            return 0
        if logged.provider == "anthropic":
            blocks = logged.body.get("system")
            marked = isinstance(blocks, list) and any(
                isinstance(b, dict) and b.get("cache_control") for b in blocks
            )
            if not marked:
                return 0
        key = (logged.provider, system)
        if key in self._seen_systems:
            return _estimate_tokens(system)
        self._seen_systems.add(key)
        return 0

    def _error(
        self,
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
        if logged.provider == "openai":
            kind = {401: "invalid_request_error", 429: "rate_limit_exceeded"}.get(status, "error")
            data: dict[str, Any] = {
                "error": {"message": message, "type": kind, "param": None, "code": None}
            }
        elif logged.provider == "anthropic":
            kind = {
                400: "invalid_request_error",
                401: "authentication_error",
                403: "permission_error",
                404: "not_found_error",
                429: "rate_limit_error",
                529: "overloaded_error",
            }.get(status, "api_error")
            data = {"type": "error", "error": {"type": kind, "message": message}}
        else:
            kind = {
                400: "INVALID_ARGUMENT",
                401: "UNAUTHENTICATED",
                403: "PERMISSION_DENIED",
                404: "NOT_FOUND",
                429: "RESOURCE_EXHAUSTED",
                503: "UNAVAILABLE",
            }.get(status, "INTERNAL")
            data = {"error": {"code": status, "message": message, "status": kind}}
        return web.json_response(data, status=status, headers=headers)


def _forced_tool(body: Any) -> str | None:
    choice = body.get("tool_choice") if isinstance(body, dict) else None
    if isinstance(choice, dict) and choice.get("type") == "tool":
        return str(choice.get("name"))
    return None


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _prompt_parts(provider: Provider, body: Any) -> tuple[str, str]:
    """The system text and the rest of the prompt, to count tokens and model caching."""
    if not isinstance(body, dict):
        return "", ""
    if provider == "openai":
        messages = body.get("messages") or []
        system = "".join(
            _text_of(m.get("content")) for m in messages if m.get("role") in ("system", "developer")
        )
        rest = "".join(
            _text_of(m.get("content"))
            for m in messages
            if m.get("role") not in ("system", "developer")
        )
        return system, rest
    if provider == "anthropic":
        return _text_of(body.get("system")), "".join(
            _text_of(m.get("content")) for m in body.get("messages") or []
        )
    system = _text_of((body.get("systemInstruction") or {}).get("parts"))
    rest = "".join(_text_of(c.get("parts")) for c in body.get("contents") or [])
    return system, rest


def retry_after_date(seconds: float) -> str:
    """An HTTP-date `seconds` from now, for a ``retry-after`` given as a date."""
    return formatdate(time.time() + seconds, usegmt=True)


# --- `python -m jury.testing`: the server on its own, for benchmarks and manual tries -----


def _parse_rpm(items: list[str]) -> dict[str, float]:
    limits = {}
    for item in items:
        provider, _, value = item.partition("=")
        limits[provider] = float(value)
    return limits


async def _serve(args: argparse.Namespace) -> None:
    server = FakeProviderServer(
        latency=args.latency, rpm=_parse_rpm(args.rpm), port=args.port, log=False
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
    asyncio.run(_serve(parser.parse_args(argv)))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
