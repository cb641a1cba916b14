"""Agent traces read as a conversation: the model calls and tool runs a trace recorded, as
OpenAI Chat Completions messages that `jury.cases._turns` then reads into a case's turns.

A trace records the same conversation several times over: every model call sends the whole
history again. So the conversation is the history of the model calls in the order they
started, each call's messages (what it was sent, then its reply) extending what came before.
Tool runs, recorded as spans of their own, are then joined to the calls that asked for them
(by the call's ID, else by name and order): a run that failed marks its call's result as an
error, whatever the model was told, and a run that no recorded model call asked for (a trace
recorded without message content) becomes a call of its own, so that the trace checks still
see every tool and its order.

The formats are `jury.cases._otel` (OpenTelemetry GenAI spans as OTLP JSON) and
`jury.cases._mlflow` (``mlflow.entities.Trace`` as JSON).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Chat", "ToolRun", "as_text", "conversation", "decoded", "failure"]

Message = dict[str, Any]


@dataclass
class Chat:
    """One model call: when it started, and its messages (sent, then the reply)."""

    start: int
    messages: list[Message] = field(default_factory=list)


@dataclass
class ToolRun:
    """One tool run: its name, call ID, arguments, result, and error (None: it did not fail)."""

    start: int
    name: str
    call_id: str | None = None
    arguments: Any = None
    result: Any = None
    error: Any = None


def decoded(value: Any) -> Any:
    """An attribute's value: JSON text decoded (traces store structured values as JSON)."""
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "[", '"'):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def as_text(value: Any) -> str | None:
    """A tool's result as the text of a tool message."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def failure(status: Any, events: Any, fallback: Any = None) -> Any:
    """The error of a span whose status is ERROR (its message, else its exception event's),
    or None. Statuses come as OTLP's 2, ``STATUS_CODE_ERROR`` or MLflow's ``ERROR``."""
    code, message = status, None
    if isinstance(status, Mapping):
        code, message = status.get("code"), status.get("message")
    failed = code == 2 or (isinstance(code, str) and code.upper().endswith("ERROR"))
    if not failed and fallback is None:
        return None
    for event in events or ():
        if isinstance(event, Mapping) and event.get("name") == "exception":
            attributes = event.get("attributes") or {}
            if isinstance(attributes, Mapping) and attributes.get("exception.message"):
                return message or attributes["exception.message"]
    return message or fallback or "the tool failed"


def _calls(messages: list[Message]) -> list[tuple[int, Message]]:
    return [
        (index, call)
        for index, message in enumerate(messages)
        if message.get("role") == "assistant"
        for call in message.get("tool_calls") or ()
    ]


def _join(messages: list[Message], run: ToolRun, used: set[int], number: int) -> None:
    """Join a tool run to the call that asked for it, or add the call."""
    calls = [(i, call) for i, call in _calls(messages) if id(call) not in used]
    match = next(((i, c) for i, c in calls if run.call_id and c.get("id") == run.call_id), None)
    if match is None:
        match = next(((i, c) for i, c in calls if c["function"].get("name") == run.name), None)
    if match is None:
        added: Message = {
            "id": run.call_id or f"run-{number}",
            "type": "function",
            "function": {"name": run.name, "arguments": run.arguments},
        }
        # Before the final reply: the tool ran while the agent was still working.
        at = len(messages)
        if messages and messages[-1].get("role") == "assistant" and not _calls(messages[-1:]):
            at -= 1
        messages.insert(at, {"role": "assistant", "content": None, "tool_calls": [added]})
        match = (at, added)
    index, call = match
    used.add(id(call))
    call_id = call.get("id")
    reply = next(
        (
            m
            for m in messages
            if m.get("role") == "tool" and call_id and m.get("tool_call_id") == call_id
        ),
        None,
    )
    if reply is None:
        reply = {
            "role": "tool",
            "tool_call_id": call_id,
            "name": run.name,
            "content": as_text(run.result),
        }
        at = index + 1
        while at < len(messages) and messages[at].get("role") == "tool":
            at += 1
        messages.insert(at, reply)
    if run.error is not None:
        reply["error"] = run.error


def _said(message: Message) -> tuple[Any, ...]:
    """What a message says, to tell it again when a later call resends it (instrumentations
    write a reply and the same message resent with small differences: a null content or an
    empty one, a finish reason)."""
    content = message.get("content")
    text = content if isinstance(content, str) else json.dumps(content, sort_keys=True)
    calls = tuple(
        (call.get("id"), (call.get("function") or {}).get("name"))
        for call in message.get("tool_calls") or ()
        if isinstance(call, Mapping)
    )
    return message.get("role"), "" if content is None else text, calls, message.get("tool_call_id")


def conversation(chats: list[Chat], runs: list[ToolRun]) -> list[Message]:
    """The conversation of a trace's model calls, with its tool runs joined (see above)."""
    messages: list[Message] = []
    for chat in sorted(chats, key=lambda c: c.start):
        sent = chat.messages
        said = [_said(m) for m in messages]
        if [_said(m) for m in sent[: len(messages)]] == said:
            messages += sent[len(messages) :]
        else:  # a call that does not resend the history (another agent): what is new in it
            messages += [m for m in sent if _said(m) not in said]
    used: set[int] = set()
    for number, run in enumerate(sorted(runs, key=lambda r: r.start), start=1):
        _join(messages, run, used, number)
    return messages
