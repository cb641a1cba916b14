"""Records of other tools' shapes, read as cases as they are.

Each shape is recognised by keys no case has, and turned into a case's fields. Nothing is
dropped on the way: what a case has no field for goes to its ``metadata``, and where a
structured value (a table of inputs) is reduced to the text a judge reads, the original is
kept in ``metadata`` too. A chat input of several messages is the case's ``turns`` (judged
as a conversation); of one message, its text is the question.

================  ==========================================================================
OpenTelemetry     an OTLP JSON export of GenAI spans (``resourceSpans``): a case per trace
                  (`jury.cases._otel`)
MLflow            a trace as ``Trace.to_json()`` writes it (``info``, ``data.spans``)
                  (`jury.cases._mlflow`)
OpenAI evals      ``input`` (chat messages), ``ideal`` (one answer or a list of answers)
Inspect           ``input`` (text or chat messages), ``target`` (text or list), ``choices``
LangSmith         ``inputs`` (``messages``: a conversation), ``outputs`` and
                  ``reference_outputs`` (tables); in a dataset's examples (no
                  ``reference_outputs``) ``outputs`` is the reference
Braintrust        ``input``, ``output``, ``expected``, ``metadata``, ``tags``
DeepEval          ``input``, ``actual_output``, ``expected_output``, ``retrieval_context``,
                  ``context`` (the ideal context), ``tools_called``, ``expected_tools``
RAGAS             ``user_input``, ``response``, ``retrieved_contexts``, ``reference``,
                  ``reference_contexts``; older ``question``, ``contexts``, ``ground_truth``
promptfoo         a test's ``vars``, ``assert`` (``equals``/``factuality``/``similar``: the
                  golden answer; ``llm-rubric``: the expected behaviour), ``description``;
                  in CSV, ``__expected`` and ``__description`` columns
================  ==========================================================================
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from .._errors import ConfigError
from ._trace_formats import TRACE_KEYS, trace_format, trace_record
from ._turns import TurnsError, read_turns

__all__ = ["SHAPES", "promptfoo_tests", "recognise"]

Record = dict[str, Any]

# Keys of a mapping that hold the question or the answer, first found first used.
_QUESTION_KEYS = ("question", "input", "query", "prompt", "user_input", "instruction", "text")
_ANSWER_KEYS = ("answer", "output", "response", "completion", "text", "content", "result")


def _content(message: Mapping[str, Any]) -> Any:
    content = message.get("content")
    if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}, ...]
        texts = [p.get("text") for p in content if isinstance(p, Mapping)]
        return "\n".join(t for t in texts if isinstance(t, str))
    return content


def _is_chat(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(m, Mapping) and "role" in m for m in value)
    )


def _text(value: Any, keys: tuple[str, ...]) -> tuple[Any, bool]:
    """The text a judge reads from a structured value, and whether anything was left out."""
    if _is_chat(value):
        # Of a question, the user's last message; of an answer, the assistant's.
        roles = ("assistant", "ai") if keys is _ANSWER_KEYS else ("user", "human")
        said = [m for m in value if m.get("role") in roles]
        last = said[-1] if said else value[-1]
        return _content(last), len(value) > 1
    if isinstance(value, Mapping):
        if len(value) == 1:
            return _text(next(iter(value.values())), keys)
        for key in keys:
            if key in value:
                inner, _ = _text(value[key], keys)
                return inner, True
        if "messages" in value:
            inner, _ = _text(value["messages"], keys)
            return inner, True
    return value, False


def _typed(record: Record, key: str, kind: type, default: Any) -> Any:
    """`record[key]` when it is a `kind` (``default`` when absent): a promptfoo ``vars`` that is
    not a table cannot be read, and is said to be so rather than dropped."""
    value = record.pop(key, None)
    if value is None:
        return default
    if not isinstance(value, kind):
        raise TypeError(f"{key}: expected {'a table' if kind is dict else 'a list'}")
    return value


def _one_of(value: Any) -> Any:
    """A list of acceptable answers as one golden answer (the list is kept in metadata)."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        if len(value) == 1:
            return value[0]
        return "Any of these answers is correct:\n" + "\n".join(f"- {v}" for v in value)
    return value


class _Builder:
    """A case's fields, built from a record: what is taken is moved, the rest stays."""

    def __init__(self, record: Record) -> None:
        self.rest = dict(record)
        self.out: Record = {}
        self.metadata: Record = {}

    def take(self, key: str) -> Any:
        return self.rest.pop(key, None)

    def text(self, key: str, field: str, keys: tuple[str, ...] = _QUESTION_KEYS) -> None:
        if key not in self.rest:
            return
        value = self.rest.pop(key)
        text, lost = _text(value, keys)
        self.out[field] = text
        if lost:
            self.metadata[key] = value

    def question(self, key: str) -> None:
        """The question, or the conversation: a chat of several messages (as `key` or as its
        ``messages``) is the case's turns, judged as a conversation; one message is text."""
        value = self.rest.get(key)
        chat = value.get("messages") if isinstance(value, Mapping) else value
        if not (_is_chat(chat) and isinstance(chat, list) and len(chat) > 1):
            self.text(key, "question")
            return
        try:
            self.out["turns"] = read_turns(chat)
        except TurnsError as exc:
            where = f"{key}.messages" if chat is not value else key
            raise ValueError(f"{where}{str(exc).removeprefix('turns')}") from None
        del self.rest[key]
        if isinstance(value, Mapping) and len(value) > 1:  # LangSmith's other inputs
            self.metadata[key] = {k: v for k, v in value.items() if k != "messages"}

    def answers(self, key: str, field: str) -> None:
        if key not in self.rest:
            return
        value = self.rest.pop(key)
        text, lost = _text(value, _ANSWER_KEYS) if isinstance(value, Mapping) else (value, False)
        self.out[field] = _one_of(text)
        if lost or (isinstance(text, list) and len(text) > 1):
            self.metadata[key] = value

    def keep(self, *keys: str) -> None:
        """Move `keys` to metadata (what a case has no field for)."""
        for key in keys:
            if key in self.rest:
                self.metadata[key] = self.rest.pop(key)

    def done(self) -> Record:
        own = self.rest.pop("metadata", None)
        metadata = {**(own if isinstance(own, Mapping) else {}), **self.metadata}
        if own is not None and not isinstance(own, Mapping):
            metadata["metadata"] = own
        out = {**self.rest, **self.out}
        if metadata:
            out["metadata"] = metadata
        return out


def _openai_evals(record: Record) -> Record:
    case = _Builder(record)
    case.question("input")
    case.answers("ideal", "golden_answer")
    return case.done()


def _inspect(record: Record) -> Record:
    case = _Builder(record)
    case.question("input")
    choices = case.take("choices")
    if isinstance(choices, list) and choices:
        letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
        lines = [f"{letters[i]}) {choice}" for i, choice in enumerate(choices[:26])]
        asked = [t["content"] for t in case.out.get("turns", ()) if t["role"] == "user"]
        question = case.out.get("question", asked[-1] if asked else "")
        case.out["question"] = f"{question}\n\n" + "\n".join(lines)
        case.metadata["choices"] = choices
    case.answers("target", "golden_answer")
    case.keep("sandbox", "files", "setup")
    return case.done()


def _langsmith(record: Record) -> Record:
    case = _Builder(record)
    case.question("inputs")
    if "reference_outputs" in case.rest:
        case.answers("outputs", "answer")
        case.answers("reference_outputs", "golden_answer")
    else:  # a dataset's example: its outputs are the reference
        case.answers("outputs", "golden_answer")
    case.keep("dataset_id", "created_at", "modified_at", "source_run_id", "example_id")
    case.keep("split", "splits", "attachments", "run_id", "trace_id")
    return case.done()


_BRAINTRUST_SYSTEM = (
    "tags", "scores", "metrics", "span_id", "root_span_id", "span_parents", "is_root", "created",
    "_xact_id", "_pagination_key", "project_id", "dataset_id", "experiment_id", "log_id",
    "org_id", "origin", "span_attributes", "audit_data", "comments", "error",
)  # fmt: skip


def _braintrust(record: Record) -> Record:
    case = _Builder(record)
    case.question("input")
    case.answers("output", "answer")
    case.answers("expected", "golden_answer")
    case.keep(*_BRAINTRUST_SYSTEM)
    return case.done()


def _tool_call(call: Any) -> Any:
    if not isinstance(call, Mapping):
        return call
    out = {"name": call.get("name")}
    arguments = call.get("input_parameters", call.get("inputParameters"))
    if arguments is not None:
        out["arguments"] = arguments
    if call.get("output") is not None:
        out["result"] = call["output"]
    return out


def _deepeval(record: Record) -> Record:
    record = {_SNAKE.get(key, key): value for key, value in record.items()}
    case = _Builder(record)
    case.text("input", "question")
    case.answers("actual_output", "answer")
    case.answers("expected_output", "golden_answer")
    # Beside a retrieval_context, DeepEval's `context` is the ideal context, not what the
    # agent retrieved (alone, it is the evidence the answer must agree with: the trace's).
    if "retrieval_context" in case.rest:
        case.keep("context")
    case.keep("comments", "name", "reasoning", "source_file", "token_cost")
    case.keep("completion_time", "tags")
    trace: Record = {}
    if "retrieval_context" in case.rest:
        trace["context"] = case.take("retrieval_context")
    if "tools_called" in case.rest:
        trace["tool_calls"] = [_tool_call(c) for c in _typed(case.rest, "tools_called", list, [])]
    if trace:
        case.out["trace"] = trace
    expected = _typed(case.rest, "expected_tools", list, [])
    if expected:
        calls = [_tool_call(call) for call in expected]
        if len(calls) == 1 and isinstance(calls[0], Mapping):
            case.out["expected_tool"] = calls[0]["name"]
            if "arguments" in calls[0]:
                case.out["expected_tool_argument"] = calls[0]["arguments"]
        else:
            case.out["expected_tool_order"] = [c.get("name") for c in calls if c]
    extra = case.take("additional_metadata")
    if isinstance(extra, Mapping):
        case.metadata.update(extra)
    return case.done()


_SNAKE = {
    "actualOutput": "actual_output",
    "expectedOutput": "expected_output",
    "retrievalContext": "retrieval_context",
    "toolsCalled": "tools_called",
    "expectedTools": "expected_tools",
    "additionalMetadata": "additional_metadata",
}


def _ragas(record: Record) -> Record:
    case = _Builder(record)
    case.text("user_input", "question")
    case.answers("response", "answer")
    case.answers("reference", "golden_answer")
    case.answers("ground_truth", "golden_answer")
    case.answers("ground_truths", "golden_answer")
    if "retrieved_contexts" in case.rest:
        case.out["trace"] = {"context": case.take("retrieved_contexts")}
    case.keep("reference_contexts", "multi_responses", "rubrics", "reference_tool_calls")
    return case.done()


# promptfoo assertion types whose value is the reference answer, or what a good answer does.
_GOLDEN_ASSERTS = ("equals", "factuality", "similar", "levenshtein", "rouge-n", "bleu")
_BEHAVIOUR_ASSERTS = ("llm-rubric", "g-eval", "model-graded-closedqa")
_ASSERT_TEXT = re.compile(r"^([a-z][a-z-]*)(?:\([^)]*\))?:\s*(.*)$", re.DOTALL)


def _assertion(text: str) -> dict[str, Any]:
    """A promptfoo CSV ``__expected`` cell: ``type: value``, or an ``equals`` value."""
    found = _ASSERT_TEXT.match(text)
    if found is None:
        return {"type": "equals", "value": text}
    return {"type": found.group(1), "value": found.group(2)}


def _promptfoo(record: Record) -> Record:
    record = dict(record)
    # A promptfoo CSV row: variables as columns, __expected[N] / __description / __metadata:*.
    variables = dict(_typed(record, "vars", dict, {}))
    asserts = list(_typed(record, "assert", list, []))
    metadata = dict(_typed(record, "metadata", dict, {}))
    for key in list(record):
        if key.startswith("__expected"):
            asserts.append(_assertion(str(record.pop(key))))
        elif key.startswith("__metadata:"):
            metadata[key.removeprefix("__metadata:")] = record.pop(key)
        elif key == "__description":
            record["description"] = record.pop(key)
        elif key not in ("description", "options", "threshold", "provider", "providerOutput"):
            variables[key] = record.pop(key)
    case = _Builder(variables)
    for key in _QUESTION_KEYS:
        if "question" not in case.out:
            case.text(key, "question")
    if "question" not in case.out and len(case.rest) == 1:
        case.text(next(iter(case.rest)), "question")
    case.answers("answer", "answer")
    if "providerOutput" in record:
        case.out["answer"] = record.pop("providerOutput")
    golden = [a.get("value") for a in asserts if isinstance(a, Mapping) and a.get("type") in
              _GOLDEN_ASSERTS]  # fmt: skip
    if golden:
        case.out["golden_answer"] = _one_of(golden)
    behaviour = [str(a.get("value")) for a in asserts if isinstance(a, Mapping) and
                 a.get("type") in _BEHAVIOUR_ASSERTS]  # fmt: skip
    if behaviour:
        case.out["expected_behaviour"] = "\n".join(behaviour)
    if case.rest:
        case.metadata["vars"] = case.rest
        case.rest = {}
    if asserts:
        case.metadata["assert"] = asserts
    for key in ("description", "options", "threshold", "provider"):
        if key in record:
            case.metadata[key] = record.pop(key)
    case.metadata.update(metadata)
    return case.done()


def promptfoo_tests(config: Mapping[str, Any], name: str) -> list[Any]:
    """A promptfoo configuration's tests, each merged with its ``defaultTest``."""
    tests, default = config.get("tests"), config.get("defaultTest") or {}
    for key, value in (("tests", tests), ("defaultTest", default)):
        if isinstance(value, str):
            raise ConfigError(
                f"{name}: {key} points to another file ({value}): give that file to jury instead"
            )
    if not isinstance(tests, list) or not isinstance(default, Mapping):
        raise ConfigError(f"{name}: tests: expected a list of tests")
    merged = []
    for given in tests:
        if not isinstance(given, Mapping):
            merged.append(given)
            continue
        test = dict(given)
        for key in ("vars", "metadata", "options"):
            if isinstance(default.get(key), Mapping):
                test[key] = {**default[key], **(test.get(key) or {})}
        if isinstance(default.get("assert"), list):
            test["assert"] = [*default["assert"], *(test.get("assert") or [])]
        merged.append(test)
    return merged


_RAGAS_KEYS = (
    "user_input",
    "retrieved_contexts",
    "reference_contexts",
    "ground_truth",
    "ground_truths",
)
_DEEPEVAL_KEYS = (
    "actual_output",
    "retrieval_context",
    "tools_called",
    "expected_tools",
    "additional_metadata",
)


def _is_inspect(record: Record) -> bool:
    # A text target is a case's golden answer already; a list of them, choices or chat
    # messages are Inspect's own.
    if "target" not in record:
        return False
    target, chat = record.get("target"), _is_chat(record.get("input"))
    return "choices" in record or not isinstance(target, str) or chat


def _has(*keys: str) -> Callable[[Record], bool]:
    wanted = frozenset(keys)
    return lambda record: not record.keys().isdisjoint(wanted)


#: The shapes, in the order they are tried: (name, recognises, reads).
SHAPES: tuple[tuple[str, Callable[[Record], bool], Callable[[Record], Record]], ...] = (
    ("OpenTelemetry traces", lambda r: trace_format(r) == "OpenTelemetry traces", trace_record),
    ("MLflow traces", lambda r: trace_format(r) == "MLflow traces", trace_record),
    ("promptfoo tests", _has("vars", "assert", "__expected", "__expected1"), _promptfoo),
    ("LangSmith examples", lambda r: isinstance(r.get("inputs"), Mapping), _langsmith),
    ("RAGAS samples", _has(*_RAGAS_KEYS), _ragas),
    ("DeepEval test cases", _has(*_DEEPEVAL_KEYS, *_SNAKE), _deepeval),
    ("Braintrust records", _has("expected"), _braintrust),
    ("OpenAI evals samples", _has("ideal"), _openai_evals),
    ("Inspect samples", _is_inspect, _inspect),
    ("chat samples", lambda r: _is_chat(r.get("input")), _openai_evals),
)


# Keys one of the shapes is recognised by: a record with none of them (and no chat input) is in
# a case's own fields, told at the cost of one set operation (this runs for every record).
_SIGNS = frozenset(
    {"vars", "assert", "__expected", "__expected1", "inputs", "expected", "ideal", "target"}
    | {*_RAGAS_KEYS, *_DEEPEVAL_KEYS, *_SNAKE}
    | {key for keys in TRACE_KEYS.values() for key in keys}
)


def recognise(record: Record) -> tuple[str | None, Record]:
    """The shape a record is in (None: a case's own fields) and the record as a case's."""
    if record.keys().isdisjoint(_SIGNS) and not isinstance(record.get("input"), list):
        return None, record
    for name, matches, read in SHAPES:
        if matches(record):
            try:
                return name, read(record)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{exc} (read as {name})") from None
    return None, record
