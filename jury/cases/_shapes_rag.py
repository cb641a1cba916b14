"""Shapes of the RAG and LLM-app evaluation tools: LangSmith, Braintrust, DeepEval, RAGAS."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from ._shape_base import Builder, Record, typed
from ._turns import TurnsError, read_turns

__all__ = [
    "DEEPEVAL_KEYS",
    "RAGAS_KEYS",
    "SNAKE",
    "braintrust",
    "deepeval",
    "deepeval_golden",
    "langsmith",
    "ragas",
]


def langsmith(record: Record) -> Record:
    case = Builder(record)
    case.question("inputs")
    if "reference_outputs" in case.rest:
        case.answers("outputs", "answer")
        case.answers("reference_outputs", "golden_answer")
    else:  # a dataset's example: its outputs are the reference
        case.answers("outputs", "golden_answer")
    case.keep("dataset_id", "created_at", "modified_at", "source_run_id", "example_id")
    case.keep("split", "splits", "attachments", "run_id", "trace_id")
    return case.done()


#: Braintrust's own keys of a logged row or a dataset record (its `context` is where in the
#: caller's code the span was logged, not what the agent retrieved):
#: https://www.braintrust.dev/docs/reference/sdks/python (`Span.log`, `Dataset.insert`).
BRAINTRUST_KEYS = (
    "tags", "scores", "metrics", "span_id", "root_span_id", "span_parents", "is_root", "created",
    "_xact_id", "_pagination_key", "project_id", "dataset_id", "experiment_id", "log_id",
    "org_id", "origin", "span_attributes", "audit_data", "comments", "error", "context",
)  # fmt: skip


def braintrust(record: Record) -> Record:
    case = Builder(record)
    if "id" in case.rest:  # its row ID is also the case's
        case.metadata["id"] = case.rest["id"]
    case.question("input")
    case.answers("output", "answer")
    case.answers("expected", "golden_answer")
    case.keep(*BRAINTRUST_KEYS)
    for field in ("question", "answer", "golden_answer"):
        value = case.out.get(field)
        if value is not None and not isinstance(value, str):  # a number, true: as JSON text
            case.out[field] = json.dumps(value, ensure_ascii=False)
    return case.done()


def _tool_call(call: Any) -> Any:
    if isinstance(call, str):  # a name, as DeepEval's CSV export writes a tool
        return {"name": call}
    if not isinstance(call, Mapping):
        return call
    out = {"name": call.get("name")}
    arguments = call.get("input_parameters", call.get("inputParameters", call.get("args")))
    if arguments is not None:
        out["arguments"] = arguments
    if call.get("output") is not None:
        out["result"] = call["output"]
    return out


#: The keys of an expected call that a case's expected calls hold (DeepEval's ToolCall, RAGAS's).
_CALL_KEYS = frozenset({"name", "input_parameters", "inputParameters", "args"})


def _expected_calls(case: Builder, calls: list[Any], key: str) -> None:
    """Expected tool calls: one is the expected tool (and its arguments, which the
    tool_choice and tool_argument checks hold a trace to), several with arguments the
    expected tool calls (names, order and arguments), several names only their order. The
    calls as given are kept in metadata when they say more (a DeepEval call's ``output``)."""
    read = [_tool_call(call) for call in calls]
    if len(read) == 1 and isinstance(read[0], Mapping):
        case.put("expected_tool", read[0]["name"], key)
        # RAGAS writes ``args: {}`` for a call of no arguments: nothing to hold it to, as in
        # the tool_calls check.
        if read[0].get("arguments") not in (None, {}):
            case.put("expected_tool_argument", read[0]["arguments"], key)
    elif any(isinstance(c, Mapping) and "arguments" in c for c in read):
        expected = [
            {k: v for k, v in c.items() if k in ("name", "arguments")}
            if isinstance(c, Mapping)
            else c
            for c in read
        ]
        case.put("expected_tool_calls", expected, key)
    elif read:
        # An item that is no call is left as it is, for the case's validation to name.
        names = [c.get("name") if isinstance(c, Mapping) else c for c in read if c]
        case.put("expected_tool_order", names, key)
    if any(
        isinstance(c, Mapping) and any(v is not None for k, v in c.items() if k not in _CALL_KEYS)
        for c in calls
    ):
        case.metadata[key] = calls


#: DeepEval's CSV export joins a list cell's items with "|" (`EvaluationDataset.save_as`,
#: its default delimiter): these columns are read back into lists.
_PIPED = ("context", "retrieval_context", "tools_called", "expected_tools")


def _unpiped(record: Record) -> Record:
    for key in _PIPED:
        value = record.get(key)
        if isinstance(value, str) and key in record:
            record[key] = [part for part in value.split("|") if part]
    return record


def deepeval(record: Record) -> Record:
    record = _unpiped({SNAKE.get(key, key): value for key, value in record.items()})
    case = Builder(record)
    case.text("input", "question")
    case.answers("actual_output", "answer")
    case.answers("expected_output", "golden_answer")
    # Beside a retrieval_context, DeepEval's `context` is the ideal context, not what the
    # agent retrieved (alone, it is the evidence the answer must agree with: the trace's).
    if "retrieval_context" in case.rest:
        case.keep("context")
    case.keep("comments", "name", "reasoning", "source_file", "token_cost")
    case.keep("completion_time", "tags", "custom_column_key_values")
    trace: Record = {}
    if "retrieval_context" in case.rest:
        trace["context"] = case.take("retrieval_context")
    if "tools_called" in case.rest:
        trace["tool_calls"] = [_tool_call(c) for c in typed(case.rest, "tools_called", list, [])]
    if trace:
        case.out["trace"] = trace
    _expected_calls(case, typed(case.rest, "expected_tools", list, []), "expected_tools")
    extra = case.take("additional_metadata")
    if isinstance(extra, Mapping):
        case.metadata.update(extra)
    elif extra is not None:
        case.metadata["additional_metadata"] = extra
    return case.done()


_PIPED_TURN = re.compile(r"^\s*(\w+):\s?(.*?)(?:\s*\[retrieval_context:\s*(.*)\])?\s*$", re.DOTALL)


def _piped_turns(text: str) -> list[dict[str, Any]]:
    """Turns as DeepEval's CSV writes them: ``role: content [retrieval_context: ...]``, the
    turns joined with "|" (deepeval tests/test_core/test_datasets/convo_goldens.csv)."""
    turns = []
    for index, part in enumerate(text.split("|")):
        found = _PIPED_TURN.match(part)
        if found is None:
            raise ValueError(f"turns[{index}]: expected 'role: content', got {part[:40]!r}")
        turn: dict[str, Any] = {"role": found.group(1), "content": found.group(2)}
        if found.group(3):
            turn["retrieval_context"] = [found.group(3)]
        turns.append(turn)
    return turns


def deepeval_golden(record: Record) -> Record:
    """A DeepEval ``ConversationalGolden``: a scenario to play, its expected outcome, and the
    turns so far (a list, that list as JSON text, which DeepEval's loader accepts, or its
    CSV's "|"-joined turns)."""
    record = _unpiped({SNAKE.get(key, key): value for key, value in record.items()})
    case = Builder(record)
    case.text("expected_outcome", "expected_behaviour")
    turns = case.rest.get("turns")
    if isinstance(turns, str) and turns.lstrip()[:1] == "[":
        try:
            case.rest["turns"] = json.loads(turns)
        except ValueError:
            raise ValueError("turns: text that is not a JSON list of turns") from None
    elif isinstance(turns, str):
        case.rest["turns"] = _piped_turns(turns)
    # A golden's `context` is the ideal context (what should be retrieved), not what was.
    case.keep("scenario", "user_description", "name", "comments", "custom_column_key_values")
    case.keep("context")
    extra = case.take("additional_metadata")
    if isinstance(extra, Mapping):
        case.metadata.update(extra)
    elif extra is not None:
        case.metadata["additional_metadata"] = extra
    return case.done()


SNAKE = {
    "actualOutput": "actual_output",
    "expectedOutput": "expected_output",
    "retrievalContext": "retrieval_context",
    "toolsCalled": "tools_called",
    "expectedTools": "expected_tools",
    "additionalMetadata": "additional_metadata",
    "expectedOutcome": "expected_outcome",
    "userDescription": "user_description",
    "customColumnKeyValues": "custom_column_key_values",
    "sourceFile": "source_file",
}
DEEPEVAL_KEYS = (
    "actual_output",
    "retrieval_context",
    "tools_called",
    "expected_tools",
    "additional_metadata",
    "custom_column_key_values",
    "source_file",
)
GOLDEN_KEYS = ("expected_outcome", "scenario", "user_description", "expectedOutcome")


def _ragas_messages(messages: list[Any]) -> list[Any]:
    """RAGAS's messages with the IDs its calls lack: a ToolMessage answers the calls of the
    AIMessage just before it, in order (MultiTurnSample's validator allows a ToolMessage only
    after an AIMessage with tool_calls, or after another ToolMessage). Without them, a result
    would be joined to an older call that went unanswered."""
    out: list[Any] = []
    waiting: list[str] = []
    for index, given in enumerate(messages):
        message = given
        if isinstance(given, Mapping) and given.get("type") == "ai":
            calls = given.get("tool_calls")
            if isinstance(calls, list):
                calls = [
                    {**call, "id": f"ragas-{index}-{n}"}
                    if isinstance(call, Mapping) and "id" not in call
                    else call
                    for n, call in enumerate(calls)
                ]
                message = {**given, "tool_calls": calls}
            waiting = [c["id"] for c in calls or () if isinstance(c, Mapping) and "id" in c]
        elif isinstance(given, Mapping) and given.get("type") == "tool":
            if waiting and "tool_call_id" not in given:
                message = {**given, "tool_call_id": waiting.pop(0)}
        else:
            waiting = []
        out.append(message)
    return out


def ragas(record: Record) -> Record:
    case = Builder(record)
    if isinstance(case.rest.get("user_input"), list):
        # A MultiTurnSample (ragas/dataset_schema.py): its user_input is the conversation,
        # messages of `type` human / ai / tool as LangChain's (ragas/messages.py).
        try:
            messages = _ragas_messages(case.take("user_input"))
            case.put("turns", read_turns(messages), "user_input")
        except TurnsError as exc:
            raise ValueError(f"user_input{str(exc).removeprefix('turns')}") from None
    case.text("user_input", "question")
    case.answers("response", "answer")
    case.answers("reference", "golden_answer")
    case.answers("ground_truth", "golden_answer")
    case.answers("ground_truths", "golden_answer")
    if "retrieved_contexts" in case.rest:
        case.out["trace"] = {"context": case.take("retrieved_contexts")}
    # RAGAS's ToolCall is {name, args} (ragas/messages.py); in order, as the agent should call.
    _expected_calls(
        case, typed(case.rest, "reference_tool_calls", list, []), "reference_tool_calls"
    )
    case.keep("reference_contexts", "multi_responses", "rubrics")
    return case.done()


RAGAS_KEYS = (
    "user_input",
    "retrieved_contexts",
    "reference_contexts",
    "ground_truth",
    "ground_truths",
    "reference_tool_calls",
)
