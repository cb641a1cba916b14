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

`jury.iter_cases`, `jury.load_cases` and `jury.validate_cases` read a source (their home is
the front door); this module holds what a tool that reads cases itself needs: the formats,
`CaseSource`, field maps and case IDs.
"""

from __future__ import annotations

from types import FunctionType

from ._fields import field_map_problems, parse_map
from ._images import placeholder
from ._read import FORMATS
from ._source import CaseSource, content_id

__all__ = [
    "FORMATS",
    "CaseSource",
    "content_id",
    "field_map_problems",
    "parse_map",
    "placeholder",
]


# Each public name says where to import it from (jury.cases.X), not its private module.
for _name in __all__:
    if isinstance(_value := globals()[_name], type | FunctionType):
        _value.__module__ = __name__
del _name, _value
