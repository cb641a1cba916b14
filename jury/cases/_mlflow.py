"""MLflow traces, as ``mlflow.entities.Trace.to_json()`` writes them, read as a conversation.

A trace is ``{"info": TraceInfo, "data": {"spans": [...]}}``
(https://mlflow.org/docs/latest/genai/tracing/concepts/trace/ , ``mlflow/entities/trace.py``).
A span, as ``mlflow/entities/span.py`` ``Span.to_dict`` writes it (version 4, and the older
``context``/``status_code`` shape), keeps its attributes JSON-encoded, under the keys of
``mlflow/tracing/constant.py`` ``SpanAttributeKey``: ``mlflow.spanType``,
``mlflow.spanInputs``, ``mlflow.spanOutputs`` and ``mlflow.chat.messages``. What is read:

- ``CHAT_MODEL`` and ``LLM`` spans: ``mlflow.chat.messages`` (OpenAI-format messages, sent
  and received, which MLflow's autologging writes for every provider), else the span's inputs'
  ``messages`` and its outputs (an OpenAI ``choices[0].message``, a message, or text);
- ``TOOL`` spans: the span's name is the tool, its inputs the arguments, its outputs the
  result; it failed when its status is ``ERROR`` (the error is the status message, else the
  ``exception`` event's ``exception.message``);
- when no model span has messages, the root span: its inputs (``messages``, or a text) and
  its outputs, as one exchange;
- the trace's expectation named ``expected_response`` (MLflow 3 assessments) is the golden
  answer; its other assessments, its tags, and its state, timing and trace metadata are kept
  in metadata.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._traces import Chat, ToolRun, as_text, conversation, decoded, failure

__all__ = ["is_mlflow", "mlflow_case"]

Message = dict[str, Any]
_MODEL_SPANS = frozenset({"CHAT_MODEL", "LLM"})
_INFO_KEPT = (
    "state",
    "request_time",
    "execution_duration_ms",
    "trace_metadata",
    "request_metadata",
)


def is_mlflow(value: Any) -> bool:
    data = value.get("data") if isinstance(value, Mapping) else None
    return (
        isinstance(value.get("info"), Mapping)
        and isinstance(data, Mapping)
        and isinstance(data.get("spans"), list)
        if isinstance(value, Mapping)
        else False
    )


def _reply(outputs: Any) -> list[Message]:
    """The model's reply in a span's outputs."""
    outputs = decoded(outputs)
    if isinstance(outputs, Mapping) and isinstance(outputs.get("choices"), list):
        choices = outputs["choices"]
        first = choices[0] if choices and isinstance(choices[0], Mapping) else {}
        outputs = first.get("message")
    if isinstance(outputs, Mapping) and "role" in outputs:
        return [dict(outputs)]
    text = as_text(outputs)
    return [{"role": "assistant", "content": text}] if text else []


def _asked(inputs: Any) -> list[Message]:
    """What a span was sent: its inputs' chat messages, else its one text input."""
    inputs = decoded(inputs)
    if isinstance(inputs, Mapping) and isinstance(inputs.get("messages"), list):
        return [dict(m) for m in inputs["messages"] if isinstance(m, Mapping)]
    if isinstance(inputs, Mapping) and len(inputs) == 1:
        inputs = next(iter(inputs.values()))
    text = as_text(inputs)
    return [{"role": "user", "content": text}] if text else []


def _span_fields(span: Mapping[str, Any]) -> tuple[dict[str, Any], int, Any]:
    """(decoded attributes, start time, status) of a span of either shape."""
    attributes = {key: decoded(value) for key, value in (span.get("attributes") or {}).items()}
    start = span.get("start_time_unix_nano", span.get("start_time")) or 0
    status = span.get("status")
    if not isinstance(status, Mapping):  # the older shape: status_code, status_message
        status = {"code": span.get("status_code"), "message": span.get("status_message")}
    return attributes, int(start), status


def _expectations(info: Mapping[str, Any]) -> tuple[Any, list[Any]]:
    """The ``expected_response`` expectation, and every assessment."""
    assessments = [a for a in info.get("assessments") or () if isinstance(a, Mapping)]
    golden = None
    for assessment in assessments:
        name = assessment.get("assessment_name", assessment.get("name"))
        expectation = assessment.get("expectation")
        if name == "expected_response" and isinstance(expectation, Mapping):
            golden = decoded(expectation.get("value"))
    return golden, assessments


def mlflow_case(trace: Mapping[str, Any]) -> dict[str, Any]:
    """The case fields of an MLflow trace: its ID, turns, golden answer and metadata.
    Raises `ValueError` when the trace has nothing to read."""
    info = trace["info"]
    chats: list[Chat] = []
    runs: list[ToolRun] = []
    root: Chat | None = None
    for span in trace["data"]["spans"]:
        if not isinstance(span, Mapping):
            continue
        attributes, start, status = _span_fields(span)
        kind = attributes.get("mlflow.spanType")
        inputs, outputs = attributes.get("mlflow.spanInputs"), attributes.get("mlflow.spanOutputs")
        if kind == "TOOL":
            error = failure(status, span.get("events"))
            runs.append(ToolRun(start, str(span.get("name", "")), None, inputs, outputs, error))
        elif kind in _MODEL_SPANS:
            messages = attributes.get("mlflow.chat.messages")
            if isinstance(messages, list):
                chats.append(Chat(start, [dict(m) for m in messages if isinstance(m, Mapping)]))
            else:
                chats.append(Chat(start, _asked(inputs) + _reply(outputs)))
        if not span.get("parent_span_id", span.get("parent_id")):
            root = Chat(start, _asked(inputs) + _reply(outputs))
    if not any(chat.messages for chat in chats):
        chats = [root] if root is not None else []
    if not any(chat.messages for chat in chats) and not runs:
        raise ValueError("no span with messages, inputs or a tool run")
    trace_id = info.get("trace_id", info.get("request_id"))
    case: dict[str, Any] = {"turns": conversation(chats, runs)}
    metadata: dict[str, Any] = {"trace_id": trace_id} if trace_id else {}
    golden, assessments = _expectations(info)
    if golden is not None:
        case["golden_answer"] = golden if isinstance(golden, str) else as_text(golden)
    if assessments:
        metadata["assessments"] = assessments
    if info.get("tags"):
        metadata["tags"] = info["tags"]
    # The trace's record of itself (MLflow 3's ``trace_metadata``, MLflow 2's
    # ``request_metadata``: token usage, source, schema version), kept rather than dropped.
    for key in _INFO_KEPT:
        if info.get(key) not in (None, "", {}):
            metadata[key] = info[key]
    if trace_id:
        case["id"] = str(trace_id)
    case["metadata"] = metadata
    return case
