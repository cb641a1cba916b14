"""MLflow's evaluation data, read as cases: the rows ``mlflow.genai.evaluate(data=...)`` takes,
an evaluation dataset's records, and the older ``mlflow.evaluate`` tables.

The shapes, as MLflow's own code writes and takes them (mlflow 3, ``mlflow/genai``):

- ``mlflow.genai.evaluate`` rows (``genai/evaluation/constant.py`` ``InputDatasetColumn``):
  ``inputs`` (the keyword arguments of the app: ``question``, ``messages``...), ``outputs``,
  ``expectations`` (``AgentEvaluationReserverKey``: ``expected_response``, ``expected_facts``,
  ``guidelines``, ``expected_retrieved_context``, and any of the user's own), ``tags``,
  ``trace`` (a trace, or its JSON text, which MLflow reads its inputs and outputs from), and
  ``request_id``;
- an evaluation dataset's records (``entities/evaluation_dataset.py`` ``to_df``,
  ``entities/dataset_record.py`` ``to_dict``): the same with ``source``, ``source_type``,
  ``source_id``, ``created_time``, ``last_update_time``, ``dataset_record_id``,
  ``dataset_id``, ``created_by``, ``last_updated_by``;
- the older ``mlflow.evaluate`` tables: ``inputs``, ``outputs`` or ``predictions``, and the
  target column (``ground_truth``, ``expected``, ``targets``).

What is read: ``inputs`` is the question (a chat of several messages, the conversation);
``outputs``/``predictions`` the answer; ``expected_response`` (or the target column) the
golden answer; each of ``expected_facts`` a point the answer must make (a points rubric's
reference); ``guidelines`` the expected behaviour; a row's trace, when it has no ``inputs``,
the conversation. The rest is kept in metadata and named in the notice.

LangSmith's rows also have ``inputs`` and ``outputs``, but both always tables and, in a run,
``reference_outputs``: a row is MLflow's when it has one of MLflow's own keys, or an
``inputs`` or ``outputs`` that is no table.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping
from typing import Any

from ._shape_base import KEPT, ORIGINS, Builder, Record
from ._trace_formats import trace_fields

__all__ = ["MLFLOW_KEYS", "is_mlflow_row", "mlflow_row"]

#: Keys of MLflow's evaluation rows no other shape has beside ``inputs``.
_TARGETS = ("ground_truth", "expected", "targets")
_DATASET = (
    "source", "source_type", "source_id", "created_time", "last_update_time", "dataset_id",
    "created_by", "last_updated_by", "dataset_record_id",
)  # fmt: skip
#: The signs of an MLflow row beside its ``inputs`` (``expectations`` also without them).
#: Not ``dataset_id``: a LangSmith example has one too.
MLFLOW_KEYS = ("expectations", "predictions", "request_id", *_TARGETS, *_DATASET)
_OWN = frozenset(MLFLOW_KEYS) - {"dataset_id"}
#: Decoded when given as text: only a trace (MLflow's ``to_df()`` keeps it as JSON text). A
#: table's cells are decoded as they are read (`jury.cases._read`), and a string given for
#: ``inputs`` or ``outputs`` in a JSON record is the text the app was asked or returned.
_STRUCTURED = ("trace",)


def is_mlflow_row(record: Record) -> bool:
    if "reference_outputs" in record:  # a LangSmith run's row
        return False
    if "inputs" not in record:
        # A genai row may give only its trace, with the expectations beside it.
        return "expectations" in record and ("trace" in record or "outputs" in record)
    if not record.keys().isdisjoint(_OWN):
        return True
    return not isinstance(record["inputs"], Mapping) or (
        "outputs" in record and not isinstance(record["outputs"], Mapping)
    )


def _structured(value: Any) -> Any:
    """A table given as text: JSON (a CSV cell MLflow's Spark tables write), or the Python
    form pandas' ``to_csv`` writes a dict column in (``{'question': 'x'}``)."""
    if not isinstance(value, str) or value.strip()[:1] not in ("{", "["):
        return value
    try:
        return json.loads(value)
    except ValueError:
        pass
    try:
        parsed = ast.literal_eval(value.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return value
    return parsed if isinstance(parsed, dict | list) else value


def _as_text(value: Any) -> Any:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _guidelines(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return "\n".join(f"- {v}" for v in value)
    return None


def _expectations(case: Builder, expectations: Mapping[str, Any], kept: list[str]) -> None:
    rest = dict(expectations)
    golden = rest.pop("expected_response", None)
    if golden is not None:
        case.put("golden_answer", _as_text(golden), "expectations.expected_response")
    facts = rest.pop("expected_facts", None)
    if isinstance(facts, str):
        facts = [facts]
    if isinstance(facts, list) and facts and all(isinstance(f, str) for f in facts):
        points = [{"id": f"fact-{n}", "says": f} for n, f in enumerate(facts, start=1)]
        case.put("points", points, "expectations.expected_facts")
    elif facts is not None:
        rest["expected_facts"] = facts
    guidelines = _guidelines(rest.get("guidelines"))
    if guidelines is not None:
        del rest["guidelines"]
        case.put("expected_behaviour", guidelines, "expectations.guidelines")
    if rest:  # the user's own expectations, and expected_retrieved_context
        case.metadata["expectations"] = rest
        kept.extend(f"expectations.{key}" for key in rest)


def mlflow_row(record: Record) -> Record:
    # A null cell of a table is no value given (the column is there for other rows).
    record = {
        k: _structured(v) if k in _STRUCTURED else v for k, v in record.items() if v is not None
    }
    case = Builder(record)
    kept: list[str] = []
    for key in ("dataset_record_id", "request_id"):
        if key in case.rest and "id" not in case.rest and "id" not in case.out:
            case.put("id", str(case.rest[key]), key)
    trace = trace_fields(case.rest.get("trace"))
    if trace is not None and "inputs" not in case.rest:
        # MLflow reads a row's inputs and outputs from its trace when the row has none.
        del case.rest["trace"]
        case.put("turns", trace["turns"], "trace")
        if "id" in trace and "id" not in case.rest and "id" not in case.out:
            case.put("id", trace["id"], "trace")
        if "golden_answer" in trace:
            case.put("golden_answer", trace["golden_answer"], "trace")
        case.metadata["trace"] = trace["metadata"]
    case.question("inputs")
    for key in ("outputs", "predictions"):
        if key in case.rest and "answer" not in case.out:
            case.answers(key, "answer")
    expectations = case.take("expectations")
    if isinstance(expectations, Mapping):
        _expectations(case, expectations, kept)
    elif expectations is not None:
        case.metadata["expectations"] = expectations
        kept.append("expectations")
    for key in _TARGETS:
        if key in case.rest and "golden_answer" not in case.out:
            case.answers(key, "golden_answer")
    # What no field takes is kept, and named in the notice (the judges do not see it).
    # A trace beside the inputs is kept whole; a ``trace`` that is no MLflow trace is the
    # case's own (retrieved sources, tool calls), left for the case to read.
    own = [*_TARGETS, *_DATASET, "request_id", "tags", "outputs", "predictions"]
    own += ["trace"] if trace is not None else []
    kept = [key for key in own if key in case.rest] + kept
    case.keep(*own)
    for field in ("question", "answer", "golden_answer"):
        value = case.out.get(field)
        if value is not None and not isinstance(value, str):  # a number, a table: as JSON text
            case.out[field] = _as_text(value)
    out = case.done()
    if kept:
        origins = out.setdefault(ORIGINS, {})
        before = origins.get(KEPT)
        origins[KEPT] = ", ".join([*kept, *([before] if before else [])])
    return out
