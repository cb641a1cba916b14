"""Where each field's value is in a judge's reply text: what soft confidence
(`jury.engine._soft`) weighs the tokens of."""

from __future__ import annotations

import json

__all__ = ["Path", "Span", "field_spans"]

_WHITE = " \t\n\r"
# Not strict: a raw line break inside a string is read as the reply parser reads it.
_DECODER = json.JSONDecoder(strict=False)


#: Where a field's value is in the reply text: (start, end, is_string), the span inside the
#: quotes for a string.
Span = tuple[int, int, bool]
#: A field by its keys from the top of the reply ("points", "p1", "verdict").
Path = tuple[str, ...]


def field_spans(text: str) -> dict[Path, Span] | None:
    """Where each field's value is in a JSON object's text, objects inside it included
    (a points rubric's per-point answers), by path. None when the text is not one JSON
    object."""
    spans: dict[Path, Span] = {}
    at = len(text) - len(text.lstrip(_WHITE))
    try:
        _object(text, at, (), spans)
    except (ValueError, TypeError, IndexError):
        return None
    return spans


def _object(text: str, at: int, path: Path, spans: dict[Path, Span]) -> int:
    """Read the object at `at` (its fields' spans into `spans`); the index after it."""
    if text[at] != "{":
        raise ValueError("not an object")
    at += 1
    while True:
        while text[at] in _WHITE + ",":
            at += 1
        if text[at] == "}":
            return at + 1
        key, at = _DECODER.raw_decode(text, at)
        if not isinstance(key, str):
            raise TypeError("a key is not a string")
        while text[at] in _WHITE:
            at += 1
        if text[at] != ":":
            raise ValueError("no colon")
        at += 1
        while text[at] in _WHITE:
            at += 1
        if text[at] == "{":
            at = _object(text, at, (*path, key), spans)
            continue
        _, end = _DECODER.raw_decode(text, at)
        quoted = text[at] == '"'
        spans[(*path, key)] = (at + 1, end - 1, True) if quoted else (at, end, False)
        at = end
