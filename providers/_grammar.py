"""Schemas a grammar can hold: what a compatible server is sent in place of a rubric's schema.

Local servers enforce a reply's schema by turning it into a grammar (llama.cpp's
json-schema-to-grammar, which llama-server, llama-cpp-python and Ollama use; vLLM's guided
decoding). A grammar holds an ``enum`` and a string's ``maxLength``, but llama-cpp-python's
does not hold ``minimum``/``maximum`` (it let ``relevance: 1289476922222222`` through on
2026-12-04), and free text with no bound lets a small model ramble in ``reason`` until the
output limit cuts the reply. So a bounded integer (a scale score) is sent as the ``enum`` of
its values, and every free-text field gets a ``maxLength``. The engine still checks every
reply against the rubric's own schema: nothing is clamped.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

__all__ = ["MAX_ENUM", "grammar_schema"]

#: The widest integer range sent as an enum (a 0-100 scale is 101 values).
MAX_ENUM = 101
_KEPT = 64
#: Shaped schemas, by the rubric schema's identity and the limit: one shaping per rubric
#: prompt, not one per call (the rubric schema is kept in the value, so its id stays its own).
_SHAPED: OrderedDict[tuple[int, int], tuple[dict[str, Any], dict[str, Any]]] = OrderedDict()


def grammar_schema(schema: dict[str, Any], text_limit: int) -> dict[str, Any]:
    """`schema` with bounded integers as enums and free text at most `text_limit` characters."""
    key = (id(schema), text_limit)
    found = _SHAPED.get(key)
    if found is not None and found[0] is schema:
        _SHAPED.move_to_end(key)
        return found[1]
    shaped: dict[str, Any] = _shape(schema, text_limit)
    _SHAPED[key] = (schema, shaped)
    if len(_SHAPED) > _KEPT:
        _SHAPED.popitem(last=False)
    return shaped


def _shape(node: Any, limit: int) -> Any:
    if isinstance(node, list):
        return [_shape(item, limit) for item in node]
    if not isinstance(node, dict):
        return node
    shaped = {key: _shape(value, limit) for key, value in node.items()}
    low, high = node.get("minimum"), node.get("maximum")
    if (
        node.get("type") == "integer"
        and "enum" not in node
        and isinstance(low, int)
        and isinstance(high, int)
        and 0 <= high - low < MAX_ENUM
    ):
        del shaped["minimum"], shaped["maximum"]
        shaped["enum"] = list(range(low, high + 1))
    elif node.get("type") == "string" and not {"enum", "const", "maxLength"} & set(node):
        shaped["maxLength"] = limit
    return shaped
