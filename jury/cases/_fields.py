"""Field maps: where a case's fields are in records of another shape.

``golden_answer = "expected.answer"`` (the jury file's ``[fields]`` table, or ``--map
golden_answer=expected.answer``) moves the value at the dotted path ``expected.answer`` of each
record to the case's ``golden_answer``. Paths may index lists (``messages.-1.content``), and a
target may be nested (``metadata.source``, ``trace.context``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .._problems import spellings, suggest
from ._case import Case, Trace

__all__ = ["FieldMap", "field_map_problems", "parse_map"]

_CASE = spellings(Case)
_TRACE = spellings(Trace)
#: Targets whose values are free-form tables: anything may be put under them.
_OPEN = {"metadata", "labels", "judge"}
_MISSING = object()
#: Fields whose leftovers stay where they are once a path inside them has been read.
_KEPT_IN_PLACE = frozenset({"trace", "metadata", "labels", "judge"})


def field_map_problems(fields: Mapping[str, str]) -> list[str]:
    """What is wrong with a field map: targets that are no case field, empty sources."""
    found = []
    for target, source in fields.items():
        head, _, rest = target.partition(".")
        if head not in _CASE:
            found.append(f"{target} is not a case field{suggest(head, _CASE)}")
        elif rest and _CASE[head] == "trace" and rest.split(".")[0] not in _TRACE:
            found.append(f"{target} is not a trace field{suggest(rest, _TRACE)}")
        elif rest and _CASE[head] not in ("trace", *_OPEN):
            found.append(f"{target}: {head} has no fields of its own")
        if not isinstance(source, str) or not source.strip("."):
            found.append(f"{target}: the path to read it from is empty")
    return found


def parse_map(items: Iterable[str]) -> dict[str, str]:
    """``["golden_answer=expected.answer", ...]`` as a field map (``--map``)."""
    fields: dict[str, str] = {}
    for item in items:
        target, sep, source = item.partition("=")
        if not sep or not target.strip() or not source.strip():
            raise ValueError(f"{item!r}: expected FIELD=PATH (golden_answer=expected.answer)")
        fields[target.strip()] = source.strip()
    return fields


def _step(container: Any, part: str) -> tuple[Any, Any]:
    """The key or index `part` names in `container`, and the value there (or _MISSING)."""
    if isinstance(container, Mapping):
        return part, container.get(part, _MISSING)
    if isinstance(container, list):
        try:
            index = int(part)
            return index, container[index]
        except (ValueError, IndexError):
            return None, _MISSING
    return None, _MISSING


def _take(record: dict[str, Any], path: list[str]) -> Any:
    """Remove and return the value at `path`; parents left empty are removed too."""
    trail: list[tuple[Any, Any]] = []
    container: Any = record
    for part in path:
        key, value = _step(container, part)
        if value is _MISSING:
            return _MISSING
        trail.append((container, key))
        container = value
    parent, key = trail[-1]
    if isinstance(parent, dict):
        del parent[key]
        for outer, outer_key in reversed(trail[:-1]):
            if isinstance(outer, dict) and outer[outer_key] == {}:
                del outer[outer_key]
    return container


class FieldMap:
    """A field map applied to records; it counts, per target, the records that had its path,
    so that a path no record has (a typo) is reported instead of silently mapping nothing."""

    def __init__(self, fields: Mapping[str, str] | None = None) -> None:
        self.fields = dict(fields or {})
        self.hits = dict.fromkeys(self.fields, 0)

    def __bool__(self) -> bool:
        return bool(self.fields)

    def apply(self, record: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        """The record with each mapped value moved to its field, and (field, reason) problems."""
        found: list[tuple[str, str]] = []
        moved: list[tuple[str, Any]] = []
        for target, source in self.fields.items():
            value = _take(record, source.split("."))
            if value is not _MISSING:
                self.hits[target] += 1
                moved.append((target, value))
        self._keep_the_rest(record)
        for target, value in moved:
            *parents, last = target.split(".")
            container = record
            for part in parents:
                container = container.setdefault(part, {})
                if not isinstance(container, dict):
                    found.append((target, f"{part} is not a table"))
                    break
            else:
                if last in container:
                    source = self.fields[target]
                    found.append((target, f"given twice: in the record and as {source}"))
                else:
                    container[last] = value
        return record, found

    def _keep_the_rest(self, record: dict[str, Any]) -> None:
        # What is left of a record's value that a field was read from (`expected` once
        # `expected.answer` is the golden answer) is kept in metadata, not read as a field of
        # its own: a leftover `prompt` would otherwise be taken for the question.
        for source in self.fields.values():
            head = source.split(".")[0]
            if "." in source and head in record and _CASE.get(head) not in _KEPT_IN_PLACE:
                metadata = record.setdefault("metadata", {})
                if isinstance(metadata, dict):
                    metadata[head] = record.pop(head)

    def unused(self, keys: Iterable[str]) -> list[str]:
        """A problem for each mapping whose path no record had; `keys` are paths seen."""
        seen = sorted(set(keys))
        return [
            f"{target}={source}: no record has {source}{suggest(source, seen)}"
            for target, source in self.fields.items()
            if not self.hits[target]
        ]


def paths(record: Mapping[str, Any], prefix: str = "") -> Iterable[str]:
    """Every dotted path of a record's tables (for "did you mean" on an unused mapping)."""
    for key, value in record.items():
        path = f"{prefix}{key}"
        yield path
        if isinstance(value, Mapping):
            yield from paths(value, f"{path}.")
