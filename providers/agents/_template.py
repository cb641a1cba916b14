"""Templates filled from a case, in promptfoo's ``{{var}}`` syntax (spaces allowed inside the
braces, https://www.promptfoo.dev/docs/configuration/parameters/#prompts).

A name is looked up as: ``id``, ``question``, ``category``; ``vars.KEY`` and ``metadata.KEY``
(dotted paths go further in); a bare ``KEY`` is the case's promptfoo variable of that name
(``metadata.vars``), else its metadata's. The golden answer and the expectations are never
offered: the system under test must not see what it is graded against.
"""

from __future__ import annotations

import json
import re
from typing import Any

from jury import Case
from jury.adapters import AgentError
from jury.cases import placeholder

__all__ = ["lookup", "render", "render_value", "shown", "variables"]

_VAR = re.compile(r"\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}")
_MISSING = object()


def _walk(value: Any, path: list[str]) -> Any:
    for part in path:
        if not isinstance(value, dict) or part not in value:
            return _MISSING
        value = value[part]
    return value


def lookup(case: Case, name: str) -> Any:
    """The value `name` stands for in `case` (see the module's text); `AgentError` when the
    case has none."""
    head, *rest = name.split(".")
    found: Any = _MISSING
    if head in ("id", "question", "category") and not rest:
        found = getattr(case, head)
    elif head == "vars":
        found = _walk(case.metadata.get("vars") or {}, rest)
    elif head == "metadata":
        found = _walk(case.metadata, rest)
    else:
        variables = case.metadata.get("vars")
        if isinstance(variables, dict) and head in variables:
            found = _walk(variables, [head, *rest])
        else:
            found = _walk(case.metadata, [head, *rest])
    if found is _MISSING or found is None:
        raise AgentError(f"the template names {{{{{name}}}}}, which case {case.id!r} has not")
    return found


def shown(case: Case) -> list[int]:
    """The numbers (from 1) of the images of `case` the system under test is shown: all but
    those only the recorded answer marks (the assistant turn an agent's answer replaces: what
    it drew is no part of the question)."""
    asked = [case.question or "", *(turn.content for turn in case.history)]
    return [
        n
        for n in range(1, len(case.images) + 1)
        if placeholder(n) not in (case.answer or "")
        or any(placeholder(n) in text for text in asked)
    ]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def variables(template: str) -> list[str]:
    """The names `template` gives in ``{{name}}``, in order."""
    return _VAR.findall(template)


def render(template: str, case: Case) -> str:
    """`template` with every ``{{name}}`` replaced by its text in `case`."""
    return _VAR.sub(lambda m: _text(lookup(case, m.group(1))), template)


def render_value(value: Any, case: Case, extra: dict[str, Any]) -> Any:
    """A JSON body template filled from `case`: a string that is one ``{{name}}`` becomes that
    value as it is (a list, a table); `extra` holds names the body may use beside the case's
    (``messages``)."""
    if isinstance(value, dict):
        return {key: render_value(item, case, extra) for key, item in value.items()}
    if isinstance(value, list):
        return [render_value(item, case, extra) for item in value]
    if not isinstance(value, str):
        return value
    whole = _VAR.fullmatch(value.strip())
    if whole:
        name = whole.group(1)
        return extra[name] if name in extra else lookup(case, name)

    def one(found: re.Match[str]) -> str:
        name = found.group(1)
        return _text(extra[name] if name in extra else lookup(case, name))

    return _VAR.sub(one, value)
