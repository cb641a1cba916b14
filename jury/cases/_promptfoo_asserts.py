"""promptfoo's deterministic assertions as a case's ``must_find``, and what is not applied.

An assertion that an ``if`` can test is tested so, before any judge is paid: each of these
becomes one regular expression of ``must_find`` that matches where promptfoo's assertion
passes (https://www.promptfoo.dev/docs/configuration/expected-outputs/deterministic/):

=================================  ================================================
promptfoo                          passes when the answer
=================================  ================================================
``equals``                         is the value, exactly (also the judges' golden answer)
``contains`` / ``icontains``       contains the value (``i``: case ignored)
``contains-any`` / ``-all``        contains one / every value (``icontains-…`` too)
``starts-with``                    starts with the value
``regex``                          has a match of the pattern (JavaScript's syntax; one
                                   Python cannot compile is not applied, and said)
``not-`` each of the above         does not do what the assertion without it asks
=================================  ================================================

Matching is promptfoo's: a substring, case kept unless ``i``; not ``must_find``'s phrases
(case ignored, whole words). Any other assertion (``javascript``, ``python``, ``is-json``,
``cost``, an assertion with a ``transform``, a value read from a ``file://``...) is not
applied: the loader says which, by type and count, rather than let a gate pass without it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

__all__ = ["GOLDEN", "JUDGED", "applied"]

#: Assertion types whose value is the reference answer (given to the judges).
GOLDEN = ("equals", "factuality", "similar", "levenshtein", "rouge-n", "bleu")
#: Assertion types whose value says what a good answer does (the judges' criteria).
JUDGED = (*GOLDEN, "llm-rubric", "g-eval", "model-graded-closedqa")
_ANY = r"[\s\S]*?"  # any text, newlines too, shortest first


def _values(value: Any) -> list[str] | None:
    # promptfoo splits a text value of the -any / -all types at its commas.
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(v, str) for v in items):
        return None
    return [v.strip() if isinstance(value, str) else v for v in items]


def _positive(kind: str, value: Any) -> str | None:
    """The pattern that finds what a `kind` assertion (without ``not-``) asks for."""
    base = kind.removeprefix("i") if kind.startswith("icontains") else kind
    if base in ("contains-any", "contains-all"):
        values = _values(value)
        if values is None:
            return None
        parts = [re.escape(v) for v in values]
        if base == "contains-any":
            body = "|".join(parts)
        else:
            body = "".join(f"(?={_ANY}{p})" for p in parts)
            body = rf"\A{body}"
        return f"(?i:{body})" if kind.startswith("i") else f"(?:{body})"
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    text = str(value)
    if text.startswith("file://"):  # promptfoo reads the value from that file
        return None
    if kind == "regex":
        try:
            re.compile(text)
        except re.error:
            return None
        return f"(?:{text})"
    escaped = re.escape(text)
    return {
        "contains": escaped,
        "icontains": f"(?i:{escaped})",
        "starts-with": rf"\A{escaped}",
        "equals": rf"\A{escaped}\Z",
    }.get(kind)


def _must_find(assertion: Mapping[str, Any]) -> dict[str, Any] | None:
    kind = str(assertion.get("type", ""))
    if "transform" in assertion or "contextTransform" in assertion:
        return None  # promptfoo tests a transformed answer, which jury does not compute
    negated = kind.startswith("not-")
    pattern = _positive(kind.removeprefix("not-"), assertion.get("value"))
    if pattern is None:
        return None
    if negated:
        pattern = rf"\A(?!{_ANY}(?:{pattern}))"
    label = f"promptfoo {kind}: {assertion.get('value')}"
    return {"regex": pattern, "label": label, "phrases": ()}


def applied(asserts: list[Any]) -> tuple[list[dict[str, Any]], Counter[str]]:
    """The ``must_find`` items of the deterministic `asserts`, and the number of each type
    applied neither so nor by the judges (their golden answer, their criteria)."""
    found: list[dict[str, Any]] = []
    unapplied: Counter[str] = Counter()
    for assertion in asserts:
        if not isinstance(assertion, Mapping):
            unapplied["(not an assertion)"] += 1
            continue
        item = _must_find(assertion)
        if item is not None:
            found.append(item)
        elif assertion.get("type") not in JUDGED:
            # A $ref the configuration does not resolve is named as one.
            kind = assertion.get("type") or ("$ref" if "$ref" in assertion else "(no type)")
            unapplied[str(kind)] += 1
    return found, unapplied
