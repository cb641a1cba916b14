"""What an agent returned, read as an `AgentReply`: the one reader every built-in agent uses.

An agent (a Python function, an HTTP endpoint's JSON) returns one of:

- a string: the answer;
- an `AgentReply`, as it is;
- a mapping in any shape a cases file may hold: the ShopNest seed's ``{answer,
  retrievedSources, toolCalls, context}`` (flat, or the trace under ``trace``), messages
  (OpenAI, Anthropic, Gemini, LangChain... under ``messages``: the answer is the last
  assistant turn), an OpenTelemetry export (``resourceSpans``) or an MLflow trace. It is read
  by the case loader's own readers (`jury.cases`), so an agent's reply and a recorded case
  mean the same thing; a field map (``{"answer": "data.reply"}``, as ``--map`` gives for
  files) says where the fields are in any other shape;
- a list of messages, read as the mapping ``{"messages": [...]}``.

Beside the case's fields a mapping may give ``usage`` (``input_tokens``/``output_tokens``, or
OpenAI's ``prompt_tokens``/``completion_tokens``), ``cost`` (US dollars) and ``latency``
(seconds). An ``id`` that is not the case's is refused: a reply meant for another request
must never be judged as this one's. Keys that are no case field are kept in the reply's
metadata (never dropped), and named when the answer is missing: a misspelt ``anwser`` then
says so instead of failing as an empty answer.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from .._errors import AgentError
from .._problems import problems
from ..cases._case import _CASE_SPELLINGS, _TRACE_KEYS, Case
from ..cases._fields import FieldMap, field_map_problems
from ..cases._shapes import recognise
from ..cases._turns import Turn
from ._agent import AgentReply
from ._request import Usage

__all__ = ["reply_from"]

_INPUT_TOKENS = ("input_tokens", "prompt_tokens", "inputTokens", "promptTokens")
_OUTPUT_TOKENS = ("output_tokens", "completion_tokens", "outputTokens", "completionTokens")


def reply_from(value: object, case: Case, fields: Mapping[str, str] | None = None) -> AgentReply:
    """The `AgentReply` in what an agent returned for `case` (see the module's text).

    Raises `AgentError` naming what is wrong: an empty answer, an unreadable shape, a field
    map whose path the reply lacks, a reply for another case."""
    if isinstance(value, AgentReply):
        reply = value
    elif isinstance(value, str):
        reply = AgentReply(answer=value)
    elif isinstance(value, Mapping):
        reply = _from_mapping(value, case, fields)
    elif isinstance(value, list):
        reply = _from_mapping({"messages": value}, case, fields)
    else:
        raise AgentError(
            f"the agent returned {type(value).__name__}: expected a string (the answer), a "
            "mapping (the answer and its trace) or an AgentReply"
        )
    if not isinstance(reply.answer, str) or not reply.answer.strip():
        unknown = sorted(reply.metadata) if reply.metadata else []
        hint = f" (it gave {', '.join(unknown)}, which are no case field)" if unknown else ""
        raise AgentError(f"the agent's answer is empty{hint}")
    return reply


def _usage(value: object) -> Usage | None:
    if value is None or isinstance(value, Usage):
        return value
    if not isinstance(value, Mapping):
        raise AgentError(f"usage: expected a table of token counts, got {value!r}")

    def count(keys: tuple[str, ...]) -> int:
        found = next((value[k] for k in keys if k in value), 0)
        if not isinstance(found, int) or isinstance(found, bool) or found < 0:
            raise AgentError(f"usage: expected token counts, got {found!r}")
        return found

    return Usage(input_tokens=count(_INPUT_TOKENS), output_tokens=count(_OUTPUT_TOKENS))


def _number(key: str, value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise AgentError(f"{key}: expected a number of at least 0, got {value!r}")
    return float(value)


def _from_mapping(
    value: Mapping[str, Any], case: Case, fields: Mapping[str, str] | None
) -> AgentReply:
    # The reply is the agent's object: never change it (it may be a constant it returns).
    record: dict[str, Any] = copy.deepcopy(dict(value)) if fields else dict(value)
    if fields:
        bad = field_map_problems(fields)
        if bad:
            raise AgentError(f"agent field map: {'; '.join(bad)}")
        mapper = FieldMap(fields)
        record, found = mapper.apply(record)
        missing = [f"{t}={s}" for t, s in mapper.fields.items() if not mapper.hits[t]]
        if found or missing:
            said = [f"{target}: {reason}" for target, reason in found]
            said += [f"{item}: the reply has no such path" for item in missing]
            raise AgentError(f"agent reply: {'; '.join(said)}")
    usage = _usage(record.pop("usage", None))
    cost = _number("cost", record.pop("cost", None))
    latency = _number("latency", record.pop("latency", None))
    for key in ("id", "case_id", "caseId"):
        given = record.pop(key, None)
        if given is not None and str(given) != case.id:
            raise AgentError(f"the reply is for case {given!r}, not {case.id!r}")
    try:
        _, data = recognise(record)
    except ValueError as exc:
        raise AgentError(f"agent reply: {exc}") from None
    data.pop("id", None)  # a trace's own ID: the case's is the one that counts
    known = _CASE_SPELLINGS.keys() | _TRACE_KEYS  # the trace's keys may sit beside the answer
    extra = {key: data.pop(key) for key in list(data) if key not in known}
    try:
        parsed = Case.model_validate({**data, "id": case.id})
    except ValidationError as exc:
        told = "; ".join(f"{k}: {r}" if k else r for k, r in problems(exc, Case))
        raise AgentError(f"agent reply: {told}") from None
    metadata = {**parsed.metadata, **extra}
    return AgentReply(
        answer=parsed.answer or "",
        trace=parsed.trace,
        turns=_added(parsed.turns, case.turns),
        usage=usage,
        cost=cost,
        latency=latency,
        metadata=metadata,
    )


def _added(turns: tuple[Turn, ...], before: tuple[Turn, ...]) -> tuple[Turn, ...]:
    """The turns the agent added to a conversation: what it returned past the case's own
    turns (a reply of messages often repeats the history). A case that is no conversation
    gets none: its question and answer are the case's own fields."""
    if not before:
        return ()
    shared = 0
    for mine, theirs in zip(turns, before, strict=False):
        if (mine.role, mine.content) != (theirs.role, theirs.content):
            break
        shared += 1
    return turns[shared:]
