"""Conversations as agents record them, read into one shape: a case's ``turns``.

Each message of a conversation becomes a turn ``{"role", "content", "tool_calls",
"context"}`` with the role ``system``, ``user`` or ``assistant``. A tool's result is not a
turn of its own: it is joined to the call that asked for it (by the call's ID, else to the
earliest unanswered call of the same name, else to the earliest unanswered call), so that
every tool call carries its arguments, its result and its error, as in a case's ``trace``.

The shapes read, message by message (a file may mix them):

- OpenAI Chat Completions messages (``role`` system / developer / user / assistant / tool /
  function; ``tool_calls[].function``; a ``tool`` message's ``tool_call_id``), from
  ``openai/types/chat/chat_completion_*_message_param.py``;
- OpenAI Responses items (``message``, ``function_call``, ``function_call_output``; reasoning
  items are left out), from ``openai/types/responses/response_input_item_param.py``;
- Anthropic Messages (content blocks ``text``, ``tool_use``, ``tool_result`` with
  ``is_error``; thinking blocks are left out), from ``anthropic/types/*_block_param.py``;
- Gemini contents (``role`` user / model, ``parts`` with ``text``, ``functionCall``,
  ``functionResponse`` whose ``response`` holds ``output`` or ``error``, as
  ``google/genai/types.py`` FunctionResponse documents; ``thought`` parts are left out);
- LangChain messages (``type`` human / ai / system / tool, flat or under ``data`` as
  ``messages_to_dict`` writes them; a tool message with ``status: "error"`` is an error),
  https://python.langchain.com/api_reference/core/messages.html;
- DeepEval turns (``role``, ``content``, ``tools_called`` with ``input_parameters`` and
  ``output``, ``retrieval_context``), https://deepeval.com/docs/evaluation-test-cases;
- Inspect messages (a tool call's ``function`` is its name; a tool message's ``error``,
  ``{type, message}``, marks it failed), from ``inspect_ai/model/_chat_message.py``;
- this project's own: ``tool_calls`` of ``{name, arguments, result, error}`` and
  ``context``.

An agent trace given as the turns (an OTLP export of one trace's GenAI spans, or an MLflow
trace) is read by `jury.cases._trace_formats` into these messages first.

Only what was said and done is kept: IDs, timestamps, token counts and the like are read
past. An image is kept for the case and marked where it was (``[image 1]``, see
`jury.cases._images`); other content that is not text (a file, audio) is shown as
``[input_audio]`` and so on (`jury.cases._unseen`: the source names the records that had some).
A message with nothing to keep, a result with no call to answer, an unknown role: an error
that names the message.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from ._trace_formats import trace_fields
from ._unseen import image_part, unseen

__all__ = [
    "ToolCall",
    "Turn",
    "TurnsError",
    "decoded_arguments",
    "read_turns",
]

_FROZEN = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


def _aliases(*names: str) -> AliasChoices:
    return AliasChoices(*names)


class ToolCall(BaseModel):
    """One tool call the agent made: its name, its arguments and what it returned."""

    model_config = _FROZEN

    name: str = Field(validation_alias=_aliases("name", "tool", "tool_name"))
    arguments: Any = Field(
        default=None, validation_alias=_aliases("arguments", "argument", "args", "input")
    )
    result: Any = Field(default=None, validation_alias=_aliases("result", "output", "response"))
    #: Set when the tool call failed (an exception text or an error object).
    error: Any = Field(default=None, validation_alias=_aliases("error", "exception"))


class Turn(BaseModel):
    """One turn of a conversation: who spoke, what they said, and the tools the assistant
    called in it (each with its result). Any recorded shape loads (see `jury.cases._turns`)."""

    model_config = _FROZEN

    role: Literal["system", "user", "assistant"]
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    #: Retrieved context that came with this turn (DeepEval's ``retrieval_context``).
    context: tuple[str, ...] = ()


_ROLES = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "ai": "assistant",
    "model": "assistant",
    "tool": "tool",
    "function": "tool",
    "ipython": "tool",
}
#: LangChain's message types (``AIMessageChunk`` and the like included).
_LANGCHAIN = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}
#: Content parts that are the model thinking, not something said.
_UNSAID = frozenset({"thinking", "redacted_thinking", "reasoning"})
_TEXT_PARTS = frozenset({"text", "input_text", "output_text"})


class TurnsError(ValueError):
    """A message that cannot be read as a turn; the message names it."""


def _text(content: Any, where: str) -> str:
    """The text of a message's content: a string, or a list of parts (text kept, thinking
    left out, anything else shown by its type)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Mapping):
        content = [content]
    if not isinstance(content, list):
        raise TurnsError(f"{where}: content must be text or a list of parts")
    pieces: list[str] = []
    for part in content:
        if isinstance(part, str):
            pieces.append(part)
        elif isinstance(part, Mapping):
            kind = str(part.get("type", "text"))
            if kind in _TEXT_PARTS and isinstance(part.get("text"), str):
                pieces.append(part["text"])
            elif kind == "refusal" and isinstance(part.get("refusal"), str):
                pieces.append(part["refusal"])
            elif kind not in _UNSAID and kind not in ("tool_use", "tool_result"):
                pieces.append(_part(part, kind.removesuffix("_url")))
    return "\n".join(piece for piece in pieces if piece)


def _part(part: Mapping[str, Any], kind: str) -> str:
    """The placeholder of a part that is not text: an image's number (the image is kept for
    the case), or the part's kind."""
    try:
        found = image_part(part)
    except ValueError as exc:
        raise TurnsError(str(exc)) from None
    return unseen(kind) if found is None else found


def decoded_arguments(value: Any) -> Any:
    """A tool call's arguments as the tool got them: a JSON string (as OpenAI's wire and some
    SDKs report them) decoded when it is JSON, anything else as it is."""
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "["):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


class _Reader:
    """Reads messages one by one into turns, holding the calls still waiting for a result."""

    def __init__(self) -> None:
        self.turns: list[dict[str, Any]] = []
        self.waiting: list[tuple[str | None, dict[str, Any]]] = []

    # --- turns and calls ------------------------------------------------------------------

    def turn(self, role: str, content: str = "", **extra: Any) -> dict[str, Any]:
        turn: dict[str, Any] = {"role": role, "content": content, "tool_calls": [], **extra}
        self.turns.append(turn)
        return turn

    def assistant(self) -> dict[str, Any]:
        """The assistant turn a lone tool call belongs to: the last turn when it is the
        assistant's, else a new one (Responses and Gemini send calls as items or parts)."""
        if self.turns and self.turns[-1]["role"] == "assistant":
            return self.turns[-1]
        return self.turn("assistant")

    def call(self, turn: dict[str, Any], call_id: Any, name: Any, arguments: Any) -> None:
        if not isinstance(name, str) or not name:
            raise TurnsError("a tool call without a name")
        call: dict[str, Any] = {"name": name, "arguments": decoded_arguments(arguments)}
        turn["tool_calls"].append(call)
        self.waiting.append((str(call_id) if call_id else None, call))

    def result(
        self, call_id: Any, name: Any, result: Any, error: Any = None, *, failed: bool = False
    ) -> None:
        """Join a tool's result (or error) to the call it answers."""
        index = None
        if call_id:
            index = next(
                (i for i, (cid, _) in enumerate(self.waiting) if cid == str(call_id)), None
            )
            if index is None:
                raise TurnsError(f"a tool result for call {call_id!r}, which no turn before made")
        else:
            named = [i for i, (_, c) in enumerate(self.waiting) if name and c["name"] == name]
            index = named[0] if named else (0 if self.waiting and not name else None)
            if index is None:
                what = f"{name!r}" if name else "a tool"
                raise TurnsError(f"a tool result for {what}, which no turn before called")
        _, call = self.waiting.pop(index)
        if failed:
            call["error"] = error if error is not None else (result or "the tool failed")
        else:
            call["result"] = result
            if error is not None:
                call["error"] = error

    # --- one message --------------------------------------------------------------------

    def read(self, message: Any) -> None:
        if not isinstance(message, Mapping):
            raise TurnsError("a turn must be a JSON object")
        kind = message.get("type")
        if kind == "function_call":  # OpenAI Responses
            self.call(
                self.assistant(),
                message.get("call_id"),
                message.get("name"),
                message.get("arguments"),
            )
            return
        if kind == "function_call_output":
            self.result(message.get("call_id"), None, _text(message.get("output"), "output"))
            return
        if kind in _UNSAID:
            return
        if isinstance(kind, str) and isinstance(message.get("data"), Mapping):
            message = {**message["data"], "type": kind}  # LangChain's messages_to_dict
        role = message.get("role")
        if role is None and isinstance(kind, str):
            lowered = kind.lower().removesuffix("messagechunk").removesuffix("message")
            role = _LANGCHAIN.get(lowered)
        if not isinstance(role, str) or role.lower() not in _ROLES:
            raise TurnsError(f"unknown role {role!r} (known: user, assistant, system, tool)")
        role = _ROLES[role.lower()]
        if "parts" in message:
            self._gemini(role, message["parts"])
        elif role == "tool":
            error = message.get("error")
            if isinstance(error, Mapping):  # Inspect's ToolCallError: {type, message}
                error = error.get("message") or error.get("type") or "the tool failed"
            failed = message.get("status") == "error" or bool(message.get("is_error"))
            content = message.get("content")
            self.result(
                message.get("tool_call_id"),
                message.get("name", message.get("function")),
                None if content is None else _text(content, "content"),  # None: not recorded
                error,
                failed=failed or error is not None,
            )
        else:
            self._message(role, message)

    def _message(self, role: str, message: Mapping[str, Any]) -> None:
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        results = [b for b in blocks if isinstance(b, Mapping) and b.get("type") == "tool_result"]
        for block in results:  # Anthropic: results travel in the user's message
            self.result(
                block.get("tool_use_id"),
                None,
                _text(block.get("content"), "tool_result"),
                failed=bool(block.get("is_error")),
            )
        text = _text(content, "content")
        refusal = message.get("refusal")
        if isinstance(refusal, str) and refusal and refusal not in text:
            text = f"{text}\n{refusal}" if text else refusal
        context = message.get("context", message.get("retrieval_context"))
        extra: dict[str, Any] = {}
        if context:
            extra["context"] = [context] if isinstance(context, str) else list(context)
        calls = self._calls_of(message, blocks)
        if results and not text and not calls and not extra:
            return
        if not text and not calls and not extra and "content" not in message:
            # Most likely a misspelt key: an empty turn would hide what was said.
            keys = ", ".join(sorted(map(str, message)))
            raise TurnsError(f"no content, tool call or tool result (keys: {keys})")
        turn = self.turn(role, text, **extra)
        for call_id, name, arguments, done in calls:
            if role != "assistant":
                raise TurnsError(f"a {role} turn cannot call a tool")
            self.call(turn, call_id, name, arguments)
            if done is not None:  # the trace already holds its result (DeepEval, our own)
                self.waiting.pop()
                turn["tool_calls"][-1].update(done)

    def _calls_of(
        self, message: Mapping[str, Any], blocks: Sequence[Any]
    ) -> list[tuple[Any, Any, Any, dict[str, Any] | None]]:
        """(id, name, arguments, result and error when given with the call) of each call."""
        calls: list[tuple[Any, Any, Any, dict[str, Any] | None]] = [
            (block.get("id"), block.get("name"), block.get("input"), None)
            for block in blocks
            if isinstance(block, Mapping) and block.get("type") in ("tool_use", "server_tool_use")
        ]
        legacy = message.get("function_call")
        if isinstance(legacy, Mapping):
            calls.append((None, legacy.get("name"), legacy.get("arguments"), None))
        for item in message.get("tool_calls") or ():
            if not isinstance(item, Mapping):
                raise TurnsError("a tool call must be a JSON object")
            if isinstance(item.get("function"), Mapping):  # OpenAI Chat Completions
                function = item["function"]
                calls.append(
                    (item.get("id"), function.get("name"), function.get("arguments"), None)
                )
            elif isinstance(item.get("function"), str):  # Inspect: the function's name
                calls.append((item.get("id"), item["function"], item.get("arguments"), None))
            elif isinstance(item.get("custom"), Mapping):
                custom = item["custom"]
                calls.append((item.get("id"), custom.get("name"), custom.get("input"), None))
            elif "args" in item and "id" in item:  # LangChain
                calls.append((item.get("id"), item.get("name"), item.get("args"), None))
            else:  # this project's shape: aliases as a trace's tool calls take them
                rest = {k: v for k, v in item.items() if k not in ("id", "type")}
                name = rest.pop("name", rest.pop("tool", rest.pop("tool_name", None)))
                arguments = next(
                    (rest.pop(k) for k in ("arguments", "argument", "args", "input") if k in rest),
                    None,
                )
                calls.append((item.get("id"), name, arguments, rest or None))
        for item in message.get("tools_called") or ():  # DeepEval
            if not isinstance(item, Mapping):
                raise TurnsError("a tool call must be a JSON object")
            done = {"result": item["output"]} if item.get("output") is not None else None
            calls.append((None, item.get("name"), item.get("input_parameters"), done))
        return calls

    def _gemini(self, role: str, parts: Any) -> None:
        if not isinstance(parts, list):
            raise TurnsError("parts must be a list")
        texts: list[str] = []
        calls: list[Mapping[str, Any]] = []
        for part in parts:
            if not isinstance(part, Mapping) or part.get("thought"):
                continue
            call = part.get("functionCall", part.get("function_call"))
            response = part.get("functionResponse", part.get("function_response"))
            if isinstance(call, Mapping):
                calls.append(call)
            elif isinstance(response, Mapping):
                body = response.get("response")
                if isinstance(body, Mapping) and ("output" in body or "error" in body):
                    self.result(
                        response.get("id"),
                        response.get("name"),
                        body.get("output"),
                        body.get("error"),
                        failed="error" in body and "output" not in body,
                    )
                else:
                    self.result(response.get("id"), response.get("name"), body)
            elif isinstance(part.get("text"), str):
                texts.append(part["text"])
            else:
                texts.extend(
                    _part({key: part[key]}, key) for key in part if key != "thought_signature"
                )
        text = "\n".join(t for t in texts if t)
        if calls:
            turn = self.turn("assistant", text) if text else self.assistant()
            for call in calls:
                self.call(turn, call.get("id"), call.get("name"), call.get("args"))
        elif text:
            self.turn(role if role != "tool" else "user", text)


def read_turns(messages: Any) -> Any:
    """The turns of a conversation given in any of the shapes above. Raises `TurnsError`
    naming the message (``turns[3]``) that cannot be read. Anything but a list of messages
    is left to the field's own validation (turns already read, or not a list at all)."""
    if isinstance(messages, Mapping):  # an agent trace
        try:
            fields = trace_fields(messages)
        except ValueError as exc:
            raise TurnsError(str(exc)) from None
        messages = messages if fields is None else fields["turns"]
    if not isinstance(messages, Sequence) or isinstance(messages, str):
        return messages
    if all(isinstance(m, Turn) for m in messages):
        return messages
    reader = _Reader()
    for index, message in enumerate(messages):
        try:
            reader.read(message)
        except TurnsError as exc:
            raise TurnsError(f"turns[{index}]: {exc}") from None
    for turn in reader.turns:
        if not turn["tool_calls"]:
            del turn["tool_calls"]
    return reader.turns
