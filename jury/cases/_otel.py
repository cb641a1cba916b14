"""OpenTelemetry GenAI spans, as an OTLP JSON export holds them, read as a conversation.

The export (``{"resourceSpans": [{"resource", "scopeSpans": [{"spans": [...]}]}]}``, keys in
lowerCamelCase or snake_case, attribute values as OTLP ``AnyValue`` objects) is the OTLP/JSON
encoding, https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding. What is read of
each span follows the GenAI semantic conventions,
https://github.com/open-telemetry/semantic-conventions/blob/main/docs/gen-ai/gen-ai-spans.md:

- model calls (``gen_ai.operation.name`` ``chat``, ``text_completion``, ``generate_content``):
  ``gen_ai.system_instructions``, ``gen_ai.input.messages`` and ``gen_ai.output.messages``
  (JSON text or structured), messages of ``parts`` as ``gen-ai-input-messages.json`` defines
  them (``text``, ``tool_call`` with ``id``/``name``/``arguments``, ``tool_call_response``
  with ``id``/``response``); the same attributes on a span's
  ``gen_ai.client.inference.operation.details`` event; the older ``gen_ai.content.prompt`` /
  ``gen_ai.content.completion`` events (``gen_ai.prompt`` / ``gen_ai.completion``, semantic
  conventions 1.26 to 1.27); and OpenLLMetry's flattened ``gen_ai.prompt.<n>.role`` /
  ``.content`` / ``gen_ai.completion.<n>.tool_calls.<m>.name``... attributes;
- tool runs (``execute_tool``): ``gen_ai.tool.name``, ``gen_ai.tool.call.id``,
  ``gen_ai.tool.call.arguments``, ``gen_ai.tool.call.result``; a run failed when its span's
  status is ERROR or it has ``error.type`` (the error is the status message, else the
  ``exception`` event's ``exception.message``, else ``error.type``);
- agent runs (``invoke_agent``): their messages, only when no model call has any.

A trace is the spans of one ``traceId``; an export of several traces is one case each.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator, Mapping
from typing import Any

from ._traces import Chat, ToolRun, as_text, conversation, decoded, failure
from ._unseen import image_part, unseen

__all__ = ["is_otlp", "otlp_case", "split_otlp"]

Message = dict[str, Any]
_MODEL_CALLS = frozenset({"chat", "text_completion", "generate_content"})
_FLAT = re.compile(r"^gen_ai\.(prompt|completion)\.(\d+)\.(.+)$")
_UNSAID = frozenset({"reasoning", "thinking"})


def _get(mapping: Mapping[str, Any], *keys: str) -> Any:
    """The first of `keys` present (OTLP JSON is lowerCamelCase; some exporters snake_case)."""
    return next((mapping[key] for key in keys if key in mapping), None)


def is_otlp(value: Any) -> bool:
    return isinstance(value, Mapping) and isinstance(
        _get(value, "resourceSpans", "resource_spans"), list
    )


def _value(any_value: Any) -> Any:
    """An OTLP ``AnyValue`` as a Python value."""
    if not isinstance(any_value, Mapping):
        return any_value
    for key, value in any_value.items():
        kind = key.replace("_", "").lower()
        if kind == "intvalue":
            return int(value)
        if kind == "arrayvalue":
            return [_value(item) for item in (value or {}).get("values") or ()]
        if kind == "kvlistvalue":
            return _attributes((value or {}).get("values"))
        if kind in ("stringvalue", "boolvalue", "doublevalue", "bytesvalue"):
            return value
    return None


def _attributes(items: Any) -> dict[str, Any]:
    """OTLP attributes (a list of ``{key, value}``, or already a table) as a table."""
    if isinstance(items, Mapping):
        return dict(items)
    return {
        item["key"]: _value(item.get("value"))
        for item in items or ()
        if isinstance(item, Mapping) and "key" in item
    }


def _spans(document: Mapping[str, Any]) -> Iterator[tuple[dict[str, Any], Mapping[str, Any]]]:
    """(resource attributes, span) of every span of an export."""
    for resource_spans in _get(document, "resourceSpans", "resource_spans") or ():
        resource = _attributes((resource_spans.get("resource") or {}).get("attributes"))
        scopes = _get(resource_spans, "scopeSpans", "scope_spans", "instrumentationLibrarySpans")
        for scope in scopes or ():
            for span in scope.get("spans") or ():
                if isinstance(span, Mapping):
                    yield resource, span


def split_otlp(document: Mapping[str, Any]) -> list[dict[str, Any]]:
    """An export of several traces as one export per trace, in the order they appear."""
    by_trace: dict[Any, list[Any]] = defaultdict(list)
    for resource, span in _spans(document):
        by_trace[_get(span, "traceId", "trace_id")].append((resource, span))
    if len(by_trace) <= 1:
        return [dict(document)]
    return [
        {
            "resourceSpans": [
                {
                    "resource": {"attributes": resource},
                    "scopeSpans": [{"spans": [span]}],
                }
                for resource, span in spans
            ]
        }
        for spans in by_trace.values()
    ]


# --- messages -----------------------------------------------------------------------------


def _from_parts(message: Mapping[str, Any]) -> list[Message]:
    """A GenAI semantic-conventions message (``role`` and ``parts``) as OpenAI messages: the
    tool responses it carries each become a tool message."""
    role = message.get("role")
    texts: list[str] = []
    calls: list[Message] = []
    answers: list[Message] = []
    for part in message.get("parts") or ():
        if not isinstance(part, Mapping):
            continue
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("content"), str):
            texts.append(part["content"])
        elif kind == "tool_call":
            function = {"name": part.get("name"), "arguments": part.get("arguments")}
            calls.append({"id": _id(part), "type": "function", "function": function})
        elif kind == "tool_call_response":
            # The schema names it `response`; the spec's own example writes `result`.
            response = part["response"] if "response" in part else part.get("result")
            answers.append(
                {"role": "tool", "tool_call_id": _id(part), "content": as_text(response)}
            )
        elif kind not in _UNSAID:
            # An image (a blob or uri part of modality image) is kept for the case.
            texts.append(image_part(part) or unseen(str(kind)))
    said: Message = {"role": role, "content": "\n".join(texts) if texts else None}
    if calls:
        said["tool_calls"] = calls
    return answers + ([said] if texts or calls else [])


def _id(part: Mapping[str, Any]) -> str | None:
    value = part.get("id")
    return str(value).strip() if value else None


def _messages(value: Any) -> list[Message]:
    """Messages of an attribute: the semantic conventions' (``parts``) or OpenAI's."""
    value = decoded(value)
    if isinstance(value, Mapping):
        value = [value]
    out: list[Message] = []
    for message in value if isinstance(value, list) else ():
        if isinstance(message, Mapping) and "parts" in message:
            out += _from_parts(message)
        elif isinstance(message, Mapping) and isinstance(message.get("message"), Mapping):
            out.append(dict(message["message"]))  # a choice, as gen_ai.completion held them
        elif isinstance(message, Mapping):
            out.append(dict(message))
    return out


def _system(value: Any) -> list[Message]:
    value = decoded(value)
    if value is None:
        return []
    if isinstance(value, str):
        return [{"role": "system", "content": value}]
    return _from_parts({"role": "system", "parts": value})


def _flattened(attributes: Mapping[str, Any]) -> tuple[list[Message], list[Message]]:
    """OpenLLMetry's ``gen_ai.prompt.<n>.<field>`` / ``gen_ai.completion.<n>.<field>``."""
    found: dict[str, dict[int, dict[str, Any]]] = {"prompt": {}, "completion": {}}
    for key, value in attributes.items():
        match = _FLAT.match(key)
        if match is None:
            continue
        side, number, path = match.group(1), int(match.group(2)), match.group(3)
        message = found[side].setdefault(number, {})
        head, _, rest = path.partition(".")
        if head == "tool_calls" and rest:
            index, _, name = rest.partition(".")
            if index.isdigit():
                message.setdefault("calls", {}).setdefault(int(index), {})[name] = value
                continue
        message[path] = value
    sides = []
    for side in ("prompt", "completion"):
        messages = []
        for _, fields in sorted(found[side].items()):
            calls = fields.pop("calls", {})
            message = {k: v for k, v in fields.items() if k in ("role", "content", "tool_call_id")}
            message.setdefault("role", "assistant" if side == "completion" else "user")
            if calls:
                message["tool_calls"] = [
                    {
                        "id": call.get("id"),
                        "type": "function",
                        "function": {"name": call.get("name"), "arguments": call.get("arguments")},
                    }
                    for _, call in sorted(calls.items())
                ]
            messages.append(message)
        sides.append(messages)
    return sides[0], sides[1]


def _chat(attributes: Mapping[str, Any], events: Any, start: int) -> Chat | None:
    """The messages a model call's span (or its events) recorded, or None."""
    tables = [attributes]
    legacy: dict[str, Any] = {}
    for event in events or ():
        if not isinstance(event, Mapping):
            continue
        found = _attributes(event.get("attributes"))
        if event.get("name") == "gen_ai.client.inference.operation.details":
            tables.append(found)
        elif event.get("name") in ("gen_ai.content.prompt", "gen_ai.content.completion"):
            legacy.update(found)
    sent: list[Message] = []
    reply: list[Message] = []
    for table in tables:
        sent += _system(table.get("gen_ai.system_instructions"))
        sent += _messages(table.get("gen_ai.input.messages"))
        reply += _messages(table.get("gen_ai.output.messages"))
    sent += _messages(legacy.get("gen_ai.prompt"))
    reply += _messages(legacy.get("gen_ai.completion"))
    if not sent and not reply:
        sent, reply = _flattened(attributes)
    if not sent and not reply:
        return None
    return Chat(start, sent + reply[:1])  # the first choice is the one the agent went on with


def _tool_run(attributes: Mapping[str, Any], span: Mapping[str, Any], start: int) -> ToolRun:
    name = attributes.get("gen_ai.tool.name") or str(span.get("name", "")).removeprefix(
        "execute_tool "
    )
    return ToolRun(
        start,
        str(name),
        call_id=attributes.get("gen_ai.tool.call.id"),
        arguments=decoded(attributes.get("gen_ai.tool.call.arguments")),
        result=decoded(attributes.get("gen_ai.tool.call.result")),
        error=failure(span.get("status"), _events(span), attributes.get("error.type")),
    )


def _events(span: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        {"name": event.get("name"), "attributes": _attributes(event.get("attributes"))}
        for event in span.get("events") or ()
        if isinstance(event, Mapping)
    ]


def otlp_case(document: Mapping[str, Any]) -> dict[str, Any]:
    """The case fields of an export holding one trace: its ID, its turns and its metadata.
    Raises `ValueError` when the export has no GenAI span to read."""
    chats: list[Chat] = []
    agents: list[Chat] = []
    runs: list[ToolRun] = []
    trace_ids: list[str] = []
    metadata: dict[str, Any] = {}
    for resource, span in _spans(document):
        attributes = _attributes(span.get("attributes"))
        trace_id = _get(span, "traceId", "trace_id")
        if trace_id and trace_id not in trace_ids:
            trace_ids.append(trace_id)
        start = int(_get(span, "startTimeUnixNano", "start_time_unix_nano") or 0)
        operation = attributes.get("gen_ai.operation.name")
        if operation == "execute_tool":
            runs.append(_tool_run(attributes, span, start))
            continue
        chat = _chat(attributes, span.get("events"), start)
        if chat is not None:
            (agents if operation == "invoke_agent" else chats).append(chat)
        for key, name in (
            ("service.name", "service"),
            ("gen_ai.agent.name", "agent"),
            ("gen_ai.conversation.id", "conversation_id"),
        ):
            value = attributes.get(key, resource.get(key))
            if value is not None:
                metadata.setdefault(name, value)
    if not any(c.messages for c in chats):
        chats = agents
    if not chats and not runs:
        raise ValueError(
            "no GenAI span with messages or a tool run (gen_ai.input.messages, "
            "gen_ai.output.messages, execute_tool): was content capture on?"
        )
    if trace_ids:
        metadata["trace_id"] = trace_ids[0]
    case: dict[str, Any] = {"turns": conversation(chats, runs), "metadata": metadata}
    if trace_ids:
        case["id"] = trace_ids[0]
    return case
