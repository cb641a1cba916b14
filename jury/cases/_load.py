"""Reading a source of cases: checked whole, streamed, or loaded (the front door's
`jury.iter_cases`, `jury.load_cases` and `jury.validate_cases`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ._case import Case
from ._source import CaseSource

__all__ = ["iter_cases", "load_cases", "validate_cases"]


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
