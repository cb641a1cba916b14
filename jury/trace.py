"""Request-scoped traces: what an agent's code records of what it did, for one case only.

The agent's code calls the helpers as it works::

    import jury.trace

    def answer(case):
        jury.trace.retrieved("return-policy.md")
        jury.trace.context(policy_text)
        status = get_order_status("ORD-101")
        jury.trace.tool_call("getOrderStatus", "ORD-101", result=status)
        return "ORD-101 has shipped."

Each agent call runs inside `recording()`, which holds a fresh `Recording` in a context
variable, so two cases in flight never share a trace (the seed article's production lesson:
"never share a mutable trace between requests"). Asyncio tasks each see their own, and a
sync function run with `asyncio.to_thread` sees its caller's (the thread runs in a copy of
the caller's context); tasks the agent starts itself inherit the call's recording, as they
belong to the same request. Threads it starts itself do not (a new thread starts in an
empty context, unless the interpreter inherits it): run their work with
``contextvars.copy_context().run`` to record from them.
Outside a call the helpers record nothing and cost nothing, so the agent's code runs
unchanged in production.

**OpenTelemetry.** When ``opentelemetry-sdk`` is installed and the global tracer provider is
the SDK's (the agent is instrumented), `recording()` also captures the spans the agent makes
during the call: each call gets a trace ID of its own (a parent span that is never recorded
or exported, so nothing is added to the user's telemetry), a span processor added once keeps
the ended spans of the calls in flight, by trace ID, and the spans are read with the case
loader's OpenTelemetry reader (`jury.cases`) into the call's trace: its model calls and tool
runs (``gen_ai.*`` attributes). OpenTelemetry is imported only when it is installed and
configured; without it nothing is captured. What the helpers record comes before what the
spans tell: record a tool in one way or the other, not both, or it is listed twice.
"""

from __future__ import annotations

import contextvars
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .adapters._agent import AgentReply
    from .cases._case import Case

__all__ = ["Recording", "cited", "context", "current", "recording", "retrieved", "tool_call"]


@dataclass(slots=True)
class Recording:
    """What one agent call recorded: tool calls, retrieved sources, context, cited sources,
    and the OpenTelemetry spans it made (OTLP JSON spans, when captured)."""

    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    retrieved_sources: list[str] = field(default_factory=list)
    context: list[str] = field(default_factory=list)
    cited_sources: list[str] = field(default_factory=list)
    spans: list[dict[str, Any]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(
            self.tool_calls
            or self.retrieved_sources
            or self.context
            or self.cited_sources
            or self.spans
        )

    def applied(self, reply: AgentReply, case: Case) -> AgentReply:
        """`reply` with what was recorded added to its trace (after what it gave itself)."""
        if not self:
            return reply
        from .cases._case import Trace

        base = reply.trace or Trace()
        calls = [*base.tool_calls, *(_tool(c) for c in self.tool_calls)]
        context = [*base.context, *self.context]
        if self.spans:
            spanned = _span_trace(self.spans, case)
            calls += spanned.tool_calls
            context += spanned.context
        trace = Trace(
            retrieved_sources=(*base.retrieved_sources, *self.retrieved_sources),
            tool_calls=tuple(calls),
            context=tuple(context),
            cited_sources=(*base.cited_sources, *self.cited_sources),
        )
        return replace(reply, trace=trace)


def _tool(call: dict[str, Any]) -> Any:
    from .cases._turns import ToolCall

    return ToolCall.model_validate(call)


_CURRENT: contextvars.ContextVar[Recording | None] = contextvars.ContextVar(
    "jury_trace_recording", default=None
)


def current() -> Recording | None:
    """The recording of the agent call in progress, or None outside one."""
    return _CURRENT.get()


def tool_call(name: str, arguments: Any = None, result: Any = None, error: Any = None) -> None:
    """Record a tool call of this request: its name, arguments, result, and error (set when
    the call failed: an exception's text or an error object)."""
    recording_ = _CURRENT.get()
    if recording_ is not None:
        call: dict[str, Any] = {"name": name, "arguments": arguments}
        if result is not None:
            call["result"] = result
        if error is not None:
            call["error"] = str(error) if isinstance(error, BaseException) else error
        recording_.tool_calls.append(call)


def retrieved(source: str) -> None:
    """Record a source (a document's name) this request retrieved."""
    recording_ = _CURRENT.get()
    if recording_ is not None:
        recording_.retrieved_sources.append(str(source))


def context(text: str) -> None:
    """Record context (retrieved text) this request's answer was written from."""
    recording_ = _CURRENT.get()
    if recording_ is not None and text:
        recording_.context.append(str(text))


def cited(source: str) -> None:
    """Record a source this request's answer cites (checked against the retrieved ones)."""
    recording_ = _CURRENT.get()
    if recording_ is not None:
        recording_.cited_sources.append(str(source))


@contextmanager
def recording() -> Iterator[Recording]:
    """A fresh `Recording` for one agent call, current until the block ends (see above)."""
    rec = Recording()
    token = _CURRENT.set(rec)
    try:
        with _captured_spans(rec):
            yield rec
    finally:
        _CURRENT.reset(token)


# --- OpenTelemetry capture ---------------------------------------------------------------------

# The span processor, once added to the global SDK provider (a one-slot list: set once).
_capture: list[Any] = []
_capture_lock = threading.Lock()


@contextmanager
def _captured_spans(rec: Recording) -> Iterator[None]:
    processor = _processor()
    if processor is None:
        yield
        return
    from opentelemetry import context as otel_context
    from opentelemetry import trace as otel_trace

    trace_id = int.from_bytes(secrets.token_bytes(16), "big") or 1
    parent = otel_trace.NonRecordingSpan(
        otel_trace.SpanContext(
            trace_id=trace_id,
            span_id=int.from_bytes(secrets.token_bytes(8), "big") or 1,
            is_remote=False,
            trace_flags=otel_trace.TraceFlags(otel_trace.TraceFlags.SAMPLED),
        )
    )
    processor.open(trace_id)
    token = otel_context.attach(otel_trace.set_span_in_context(parent))
    try:
        yield
    finally:
        otel_context.detach(token)
        rec.spans.extend(processor.close(trace_id))


def _processor() -> Any:
    """The span processor on the global SDK tracer provider (added on first use), or None
    when OpenTelemetry's SDK is not installed or not the provider in use."""
    if _capture:
        return _capture[0]
    try:
        from opentelemetry import trace as otel_trace
        from opentelemetry.sdk.trace import TracerProvider
    except ImportError:
        return None
    provider = otel_trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        return None
    with _capture_lock:
        if not _capture:
            processor = _span_capture()
            provider.add_span_processor(processor)
            _capture.append(processor)
    return _capture[0]


def _span_capture() -> Any:
    """A span processor that keeps the ended spans of the agent calls in flight, by trace ID
    (spans of other traces, the application's own, pass by untouched)."""
    from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor

    class SpanCapture(SpanProcessor):
        def __init__(self) -> None:
            self._lock = threading.Lock()
            self._open: dict[int, list[dict[str, Any]]] = {}

        def open(self, trace_id: int) -> None:
            with self._lock:
                self._open[trace_id] = []

        def close(self, trace_id: int) -> list[dict[str, Any]]:
            with self._lock:
                return self._open.pop(trace_id, [])

        def on_end(self, span: ReadableSpan) -> None:
            context_ = span.context
            if context_ is None:
                return
            with self._lock:
                spans = self._open.get(context_.trace_id)
                if spans is not None:
                    spans.append(_otlp_span(span))

    return SpanCapture()


def _any_value(value: Any) -> dict[str, Any]:
    """A span attribute's value as OTLP JSON's ``AnyValue``."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, (list, tuple)):
        return {"arrayValue": {"values": [_any_value(v) for v in value]}}
    return {"stringValue": str(value)}


def _attributes(attributes: Any) -> list[dict[str, Any]]:
    return [{"key": k, "value": _any_value(v)} for k, v in (attributes or {}).items()]


def _otlp_span(span: Any) -> dict[str, Any]:
    """An SDK span as the OTLP/JSON encoding writes it (the shape the case loader reads),
    https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding."""
    context_ = span.context
    status = span.status
    out: dict[str, Any] = {
        "traceId": f"{context_.trace_id:032x}",
        "spanId": f"{context_.span_id:016x}",
        "name": span.name,
        "startTimeUnixNano": str(span.start_time or 0),
        "endTimeUnixNano": str(span.end_time or 0),
        "attributes": _attributes(span.attributes),
        "events": [{"name": e.name, "attributes": _attributes(e.attributes)} for e in span.events],
        # StatusCode: UNSET 0, OK 1, ERROR 2, as OTLP numbers them.
        "status": {"code": status.status_code.value, "message": status.description or ""},
    }
    if span.parent is not None:
        out["parentSpanId"] = f"{span.parent.span_id:016x}"
    return out


def _span_trace(spans: list[dict[str, Any]], case: Case) -> Any:
    """The trace the captured spans tell, read by the case loader's OpenTelemetry reader."""
    from .cases._case import Case as CaseModel
    from .cases._case import Trace
    from .cases._trace_formats import trace_record

    document = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": spans}]}]}
    try:
        fields = trace_record({**document, "id": case.id})
        return CaseModel.model_validate(fields).trace
    except ValueError:
        return Trace()  # spans with no GenAI span in them: nothing of the agent's to read
