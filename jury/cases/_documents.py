"""A JSON or YAML document as a list of records: where in it the cases are.

A list is the cases; ``{"cases": [...]}`` too; a promptfoo configuration's ``tests`` are
(`jury.cases._promptfoo`), and so is an MLflow table (``{"columns", "data"}``, as
``mlflow.log_table`` writes it: a row of cells under the columns' names). Another object
is refused with the keys it has and, when they are another tool's, which file it looks like,
and ``root`` (``--root``) points at the list inside it: ``samples``, ``testCases``,
``examples``, ``rows`` or any dotted path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from .._errors import ConfigError
from .._problems import LineError
from ._promptfoo import Loader, promptfoo_tests
from ._trace_formats import trace_format

__all__ = ["items"]

Item = tuple[int, "dict[str, Any] | LineError"]

#: Files of other tools whose top is an object: (its keys, what it is, where its cases are).
_TOOLS: tuple[tuple[frozenset[str], str, str | None], ...] = (
    (frozenset({"eval", "samples", "status"}), "an Inspect eval log", "samples"),
    (frozenset({"eval", "status"}), "an Inspect eval log written without its samples", None),
    (frozenset({"testCases"}), "a DeepEval test run", "testCases"),
    (frozenset({"conversationalTestCases"}), "a DeepEval test run", "conversationalTestCases"),
    (frozenset({"goldens"}), "a DeepEval dataset", "goldens"),
    (frozenset({"run_type", "inputs"}), "one LangSmith run", None),
    (frozenset({"examples"}), "a LangSmith dataset export", "examples"),
    (frozenset({"rows"}), "a table of rows", "rows"),
)


#: Keys of a case's own: an object that has one is one case, not a file of them.
_ONE_CASE = frozenset({"question", "answer", "golden_answer", "goldenAnswer", "turns"})


def _kind(value: Any) -> str:
    kinds = {list: "a list", str: "text", bool: "true or false", type(None): "null"}
    return kinds.get(type(value), "a number" if isinstance(value, int | float) else "a value")


def _mlflow_table(value: Any) -> list[Any] | None:
    """An MLflow table's rows as records, or None when `value` is not one."""
    if not (isinstance(value, Mapping) and set(value) == {"columns", "data"}):
        return None
    columns, data = value["columns"], value["data"]
    if not (isinstance(columns, list) and isinstance(data, list)):
        return None
    return [dict(zip(columns, row, strict=False)) if isinstance(row, list) else row for row in data]


def _lists_in(document: Mapping[str, Any]) -> list[str]:
    return [
        f"{key} ({len(value)} item{'s' if len(value) != 1 else ''})"
        for key, value in document.items()
        if isinstance(value, list) and value and isinstance(value[0], Mapping)
    ]


def _refusal(document: Any, name: str, kind: str, hint: str) -> ConfigError:
    if not isinstance(document, Mapping):
        return ConfigError(
            f'{name}: a {kind} cases file holds a list of cases, or {{"cases": [...]}}; this '
            f"one holds {_kind(document)}{hint}"
        )
    keys = ", ".join(list(document)[:12]) + (", ..." if len(document) > 12 else "")
    said = f"{name}: the file holds an object (keys {keys}), not a list of cases"
    for wanted, tool, where in _TOOLS:
        if wanted <= document.keys():
            said += f"; it looks like {tool}"
            if where is not None:
                return ConfigError(f"{said}: read its cases with --root {where}")
            if tool == "one LangSmith run":
                return ConfigError(f"{said}: give it as a list ([...]) or as a line of JSONL")
            return ConfigError(said)
    if not document.keys().isdisjoint(_ONE_CASE):
        # The README's one case, pretty-printed into a .json file: its turns are no list of
        # cases to point --root at.
        return ConfigError(
            f"{said}; it looks like one case: give it as a list ([...]) or as a line of JSONL"
        )
    lists = _lists_in(document)
    if lists:
        first = lists[0].split(" ")[0]
        return ConfigError(f"{said}; lists of records in it: {', '.join(lists)}: --root {first}")
    return ConfigError(f'{said} (or {{"cases": [...]}}){hint}')


def _at(document: Any, root: str, name: str) -> Any:
    value = document
    for part in root.split("."):
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif (
            isinstance(value, list)
            and part.lstrip("-").isdigit()
            and -len(value) <= int(part) < len(value)
        ):
            value = value[int(part)]
        else:
            found = ", ".join(value) if isinstance(value, Mapping) else _kind(value)
            raise ConfigError(f"{name}: --root {root}: no {part!r} there (found {found})")
    table = _mlflow_table(value)
    if table is not None:
        return table
    if not isinstance(value, list):
        raise ConfigError(f"{name}: --root {root}: {_kind(value)}, not a list of cases")
    return value


def items(
    document: Any,
    name: str,
    kind: str,
    hint: Callable[[], str],
    load: Loader,
    root: str | None = None,
) -> Iterator[Item]:
    """The records of a JSON or YAML document (`hint` says, when asked, whether the file
    looks like another format; `load` reads a file a promptfoo configuration names)."""
    unit = "item"
    if root:
        document = _at(document, root, name)
    elif trace_format(document) is not None:  # one trace (or an OTLP export): one record
        document = [document]
    elif isinstance(document, dict) and "tests" in document and "cases" not in document:
        document, unit = promptfoo_tests(document, name, load), "test"
    elif isinstance(document, dict) and "cases" in document:
        extra = sorted(set(document) - {"cases"})
        if extra:
            raise ConfigError(f"{name}: a cases document holds only 'cases'; found also {extra}")
        document = document["cases"]
    elif _mlflow_table(document) is not None:
        document, unit = _mlflow_table(document), "row"
    if not isinstance(document, list):
        raise _refusal(document, name, kind, hint() if not isinstance(document, dict) else "")
    for number, item in enumerate(document, start=1):
        if isinstance(item, dict):
            yield number, item
        else:
            yield (
                number,
                LineError(number, "", f"a case must be an object, not {_kind(item)}", unit),
            )
