"""Loading cases from the formats people have.

A source is a file (JSONL, JSON as a list or ``{"cases": [...]}``, CSV, TSV, YAML, Parquet
with ``aiojury[parquet]``), ``-`` for standard input, ``hf://owner/name[:split]`` for a Hugging
Face dataset (``aiojury[datasets]``), or a ``datasets.Dataset`` object. The format comes from
the file's extension, else from its content. Records in other tools' shapes (OpenAI evals,
Inspect, LangSmith, Braintrust, DeepEval, RAGAS, promptfoo) and agent traces (OpenTelemetry
GenAI spans as OTLP JSON, MLflow traces) load as they are; a field map
(``{"golden_answer": "expected.answer"}``) says where a case's fields are in anything else.

A source with bad records is refused as a whole, with every problem of every record named
(`CaseFileError`); a case without an ID gets a stable one from its content.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ._case import Case
from ._fields import field_map_problems, parse_map
from ._images import placeholder
from ._read import FORMATS
from ._source import CaseSource, content_id

__all__ = [
    "FORMATS",
    "CaseSource",
    "content_id",
    "field_map_problems",
    "iter_cases",
    "load_cases",
    "parse_map",
    "placeholder",
    "validate_cases",
]


def validate_cases(
    source: Any,
    *,
    fields: Mapping[str, str] | None = None,
    format: str | None = None,
    root: str | None = None,
) -> int:
    """Check every case of a source without keeping them in memory; the number of cases.

    Raises `CaseFileError` listing every bad record, so a file is refused as a whole rather
    than run with some cases silently missing. `root` is the dotted path of the list of cases
    inside a JSON or YAML document (``samples`` of an Inspect eval log).
    """
    cases = CaseSource(source, fields=fields, format=format, root=root)
    try:
        return cases.validate()
    finally:
        cases.close()


def iter_cases(
    source: Any,
    *,
    validate: bool = True,
    fields: Mapping[str, str] | None = None,
    format: str | None = None,
    root: str | None = None,
) -> Iterator[Case]:
    """Stream the cases of a source, one at a time (for sources too big to hold).

    With `validate` (the default) the whole source is checked first, so a bad record refuses
    it before a single judge is paid.
    """
    cases = CaseSource(source, fields=fields, format=format, root=root)
    try:
        if validate:
            cases.validate()
        yield from cases
    finally:
        cases.close()


def load_cases(
    source: Any,
    *,
    fields: Mapping[str, str] | None = None,
    format: str | None = None,
    root: str | None = None,
) -> list[Case]:
    """Every case of a source, or `CaseFileError` listing every bad record."""
    cases = CaseSource(source, fields=fields, format=format, root=root)
    try:
        return cases.load()
    finally:
        cases.close()
