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
                  (`jury.cases._mlflow`); evaluation rows and dataset records
                  (``inputs``, ``outputs``, ``expectations``...; `jury.cases._shapes_mlflow`)
OpenAI evals      ``input`` (chat messages; few-shot ``name``s ``example_user`` and
                  ``example_assistant`` as those roles), ``ideal`` (one answer or a list);
                  a labelled model-graded sample's ``completion`` and ``choice`` (a label)
Inspect           ``input`` (text or chat messages), ``target`` (text or list), ``choices``
                  (a list, or a CSV cell of comma-separated choices)
LangSmith         ``inputs`` (``messages``: a conversation), ``outputs`` and
                  ``reference_outputs`` (tables); in a dataset's examples (no
                  ``reference_outputs``) ``outputs`` is the reference
Braintrust        ``input``, ``output``, ``expected``, ``metadata``, ``tags``; a logged row's
                  ``id``, ``span_id``, ``created``, ``metrics``, ``context``... (metadata)
DeepEval          ``input``, ``actual_output``, ``expected_output``, ``retrieval_context``,
                  ``context`` (the ideal context), ``tools_called``, ``expected_tools``,
                  ``additional_metadata``; its CSV export's ``|``-joined list cells; a
                  ``ConversationalGolden`` (``scenario``, ``expected_outcome``, ``turns``)
RAGAS             ``user_input``, ``response``, ``retrieved_contexts``, ``reference``,
                  ``reference_contexts``, ``reference_tool_calls`` (one: ``expected_tool``
                  and its argument; several: ``expected_tool_calls``, names, arguments and
                  order); older ``question``, ``contexts``, ``ground_truth``
promptfoo         a test's ``vars``, ``assert`` (``equals``/``factuality``/``similar``: the
                  golden answer; ``llm-rubric``: the expected behaviour), ``description``;
                  in CSV, the ``__expected*``, ``__description``, ``__threshold`` and
                  ``__metadata:*`` columns (`jury.cases._promptfoo`)
MT-Bench          a question's ``turns`` (a list of texts), ``question_id``, ``reference``;
                  a model answer's ``choices[0].turns``, joined to its question
                  (`jury.cases._mt_bench`)
AlpacaEval        ``instruction``, ``output``, ``generator``, ``dataset``, ``datasplit``
ShareGPT          ``conversations`` of ``{"from", "value"}``
================  ==========================================================================
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ._promptfoo import is_column, is_promptfoo, promptfoo
from ._shape_base import ORIGINS, Record, is_chat
from ._shapes_chat import (
    alpaca_eval,
    inspect,
    is_inspect,
    is_mt_bench,
    is_mt_bench_answer,
    mt_bench,
    mt_bench_answer,
    openai_evals,
    sharegpt,
)
from ._shapes_mlflow import MLFLOW_KEYS, is_mlflow_row, mlflow_row
from ._shapes_rag import (
    DEEPEVAL_KEYS,
    GOLDEN_KEYS,
    RAGAS_KEYS,
    SNAKE,
    braintrust,
    deepeval,
    deepeval_golden,
    langsmith,
    ragas,
)
from ._trace_formats import TRACE_KEYS, trace_format, trace_record

__all__ = ["SHAPES", "SHAPE_KEYS", "recognise"]


def _has(*keys: str) -> Callable[[Record], bool]:
    wanted = frozenset(keys)
    return lambda record: not record.keys().isdisjoint(wanted)


def _is_openai_evals(record: Record) -> bool:
    return "ideal" in record or {"completion", "choice"} <= record.keys()


_BRAINTRUST_SIGNS = ("expected", "span_id", "root_span_id", "_xact_id")

#: The shapes, in the order they are tried: (name, recognises, reads).
SHAPES: tuple[tuple[str, Callable[[Record], bool], Callable[[Record], Record]], ...] = (
    ("OpenTelemetry traces", lambda r: trace_format(r) == "OpenTelemetry traces", trace_record),
    ("MLflow traces", lambda r: trace_format(r) == "MLflow traces", trace_record),
    ("promptfoo tests", is_promptfoo, promptfoo),
    ("MLflow evaluation rows", is_mlflow_row, mlflow_row),
    ("LangSmith examples", lambda r: isinstance(r.get("inputs"), Mapping), langsmith),
    ("DeepEval conversational goldens", _has(*GOLDEN_KEYS), deepeval_golden),
    ("RAGAS samples", _has(*RAGAS_KEYS), ragas),
    ("DeepEval test cases", _has(*DEEPEVAL_KEYS, *SNAKE), deepeval),
    ("Braintrust records", _has(*_BRAINTRUST_SIGNS), braintrust),
    ("OpenAI evals samples", _is_openai_evals, openai_evals),
    ("Inspect samples", is_inspect, inspect),
    ("MT-Bench questions", is_mt_bench, mt_bench),
    ("MT-Bench answers", is_mt_bench_answer, mt_bench_answer),
    ("ShareGPT conversations", lambda r: isinstance(r.get("conversations"), list), sharegpt),
    ("AlpacaEval outputs", _has("generator", "datasplit"), alpaca_eval),
    ("chat samples", lambda r: is_chat(r.get("input")), openai_evals),
)


# Keys one of the shapes is recognised by: a record with none of them (and no chat input) is in
# a case's own fields, told at the cost of one set operation (this runs for every record).
_SIGNS = frozenset(
    {"vars", "assert", "inputs", "ideal", "target", "completion", "turns", "conversations"}
    | {"question_id"}
    | {"generator", "datasplit", *_BRAINTRUST_SIGNS, *GOLDEN_KEYS}
    | {*RAGAS_KEYS, *DEEPEVAL_KEYS, *SNAKE, *MLFLOW_KEYS}
    | {key for keys in TRACE_KEYS.values() for key in keys}
)

#: Keys none of which a JSON record in a case's own fields has (a table row may have other
#: signs: promptfoo's ``__`` columns): the shapes' signs, and ``input``, which may be a chat.
#: A record with none of them is read as it is, told by one set operation (`_source`).
SHAPE_KEYS = _SIGNS | {"input"}


def recognise(
    record: Record, table: bool = False, renamed: Mapping[str, str] | None = None
) -> tuple[str | None, Record, dict[str, str]]:
    """The shape a record is in (None: a case's own fields), the record as a case's, and the
    record's key each case field was read from (where it is another). `table`: the record is a
    CSV or TSV row, which may be a promptfoo test CSV's (told by its own columns; their names
    are looked for only there, as a scan of every key of every record costs a tenth more).
    `renamed`: the field map's paths by case field, for the promptfoo reader to render a
    mapped var's ``{{name}}``."""
    if (
        record.keys().isdisjoint(_SIGNS)
        and not isinstance(record.get("input"), list)
        and not (table and any(key[:2] == "__" and is_column(key) for key in record))
    ):
        return None, record, {}
    for name, matches, read in SHAPES:
        if matches(record):
            try:
                data = promptfoo(record, renamed) if read is promptfoo else read(record)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{exc} (read as {name})") from None
            origins: Any = data.pop(ORIGINS, None) or {}
            return name, data, origins
    return None, record, {}
