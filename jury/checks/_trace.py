"""Checks of what the agent did: the trace's tool calls and retrieved sources.

Each applies only when the case says what to expect; otherwise it is not applicable, never a
silent pass. The rules, as `jury.checks` documents them:

- *tool choice*: the expected tool was called. An explicit ``expected_tool: null`` means no
  tool should be called, so any call fails (the seed article's shipping-policy question).
- *tool order*: in ``expected_tool_order`` each tool's first call comes after the first call
  of the tool before it, and every one of them is called. Other calls may come in between.
- *tool argument*: some call of the expected tool (of any tool when none is named) got the
  expected argument. Dicts match when every key the case gives matches (extra keys the agent
  passed are allowed), recursively; lists match item by item; strings match after trimming
  whitespace, case kept. A single value matches a call whose arguments are exactly one
  value: ``"ORD-101"`` matches ``"ORD-101"``, ``{"order_id": "ORD-101"}`` and
  ``["ORD-101"]``. Arguments given as a JSON string (as some SDKs report them) are decoded, the
  call's and the expected ones alike.
- *tool calls*: each of ``expected_tool_calls`` is made, in that order (other calls may come
  between, as in *tool order*), with arguments that match by the *tool argument* rule; an
  expected call without arguments (or with ``{}``) matches any call of its tool. Each
  expected call takes the first call after the one the previous expected call matched, so a
  tool expected twice must be called twice. A failure names the first expected call not
  made: never called, called only before the call expected ahead of it, or called (after
  it) with other arguments, which it quotes.
- *tools healthy*: no tool call carries an ``error``.
- *source*: the expected document is among the retrieved sources.
- *cites only what it read*: every source the answer cites was retrieved. Cited sources are
  the trace's ``cited_sources`` and, unless turned off, citations in the answer's text:
  ``[source: name]`` (also ``sources:``, ``cite:``, ``citation:``, ``ref:``; several names
  split by ";" or ",") and a bracketed file name such as ``[return-policy.md]``, in every
  assistant turn of a conversation.

In a conversation, the trace is every turn's tool calls in order: a tool called at any step
counts, the order runs across steps, and an error at any step is an error.

Two source names are the same document when they are equal ignoring case, a ``#fragment``
and a leading ``./``, or when one is a path ending in the other (``docs/return-policy.md``
and ``return-policy.md``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any

from ..cases._case import Case, ExpectedToolCall, ToolCall
from ..cases._turns import decoded_arguments
from ._core import CheckFunction, Finding, clip, failed, not_applicable, passed
from ._settings import CitationRule

__all__ = [
    "arguments_match",
    "citations_in",
    "cites_only_what_it_read",
    "same_source",
    "source",
    "tool_argument",
    "tool_calls",
    "tool_choice",
    "tool_order",
    "tools_healthy",
]


def _names(names: Sequence[str]) -> str:
    return ", ".join(names) if names else "no tool"


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return repr(value)
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    except ValueError:
        return repr(value)


def _call_text(call: ToolCall | ExpectedToolCall) -> str:
    return f"{call.name}({'' if call.arguments is None else _as_text(call.arguments)})"


def tool_choice(case: Case) -> Finding:
    names = case.trace.tool_names
    if case.expects_no_tool:
        if names:
            return failed(f"no tool should be called, but it called {_names(names)}", _names(names))
        return passed("no tool called, as expected")
    expected = case.expected_tool
    if expected is None:
        return not_applicable("the case names no expected tool")
    if expected in names:
        return passed(f"{expected} was called", _names(names))
    return failed(
        f"{expected} was never called (it called {_names(names)})",
        _names(names),
    )


def tool_order(case: Case) -> Finding:
    order = case.expected_tool_order
    if not order:
        return not_applicable("the case gives no expected tool order")
    names = case.trace.tool_names
    first: dict[str, int] = {}
    for index, name in enumerate(names):
        first.setdefault(name, index)
    sequence = " → ".join(names) or "no tool"
    missing = [tool for tool in order if tool not in first]
    if missing:
        return failed(f"{', '.join(missing)} never called", sequence)
    for before, after in pairwise(order):
        if first[after] < first[before]:
            return failed(f"{after} was called before {before}", sequence)
    return passed(" before ".join(order), sequence)


def _same(expected: Any, actual: Any) -> bool:
    if isinstance(expected, Mapping):
        return isinstance(actual, Mapping) and all(
            key in actual and _same(value, actual[key]) for key, value in expected.items()
        )
    if isinstance(expected, (list, tuple)):
        return (
            isinstance(actual, (list, tuple))
            and len(actual) == len(expected)
            and all(_same(e, a) for e, a in zip(expected, actual, strict=True))
        )
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(expected, bool) and isinstance(actual, bool) and expected == actual
    if isinstance(expected, str) and isinstance(actual, str):
        return expected.strip() == actual.strip()
    return bool(expected == actual)


def arguments_match(expected: Any, arguments: Any) -> bool:
    """Whether a tool call's `arguments` meet the case's expected argument (rules above)."""
    # Both sides decoded alike: an expected argument written as JSON text, as a flattened
    # OpenAI tool call gives it, is the table it spells.
    expected = decoded_arguments(expected)
    arguments = decoded_arguments(arguments)
    if not isinstance(expected, (Mapping, list, tuple)):
        if isinstance(arguments, Mapping) and len(arguments) == 1:
            arguments = next(iter(arguments.values()))
        elif isinstance(arguments, (list, tuple)) and len(arguments) == 1:
            arguments = arguments[0]
    return _same(expected, arguments)


def tool_argument(case: Case) -> Finding:
    expected = case.expected_tool_argument
    if expected is None:
        return not_applicable("the case gives no expected tool argument")
    if case.expects_no_tool:
        return not_applicable("no tool is expected")
    tool = case.expected_tool
    calls = [c for c in case.trace.tool_calls if tool is None or c.name == tool]
    wanted = _as_text(expected)
    if not calls:
        return failed(f"{tool or 'no tool'} was never called, so not with {wanted}")
    for call in calls:
        if arguments_match(expected, call.arguments):
            return passed(f"called with {wanted}", _call_text(call))
    given = "; ".join(_call_text(call) for call in calls)
    return failed(f"expected {wanted}, it called {clip(given, 80)}", given)


def _expected_text(call: ExpectedToolCall) -> str:
    return call.name if call.arguments in (None, {}) else _call_text(call)


def _meets(expected: ExpectedToolCall, call: ToolCall) -> bool:
    if call.name != expected.name:
        return False
    return expected.arguments in (None, {}) or arguments_match(expected.arguments, call.arguments)


def _missed(number: int, expected: ExpectedToolCall, calls: Sequence[ToolCall], at: int) -> str:
    """Why expected call `number` (1-based) has no match among `calls` from index `at`."""
    wanted = f"call {number}, {_expected_text(expected)},"
    after = [call for call in calls[at:] if call.name == expected.name]
    if after:
        given = "; ".join(_call_text(call) for call in after)
        return f"{wanted} was made with other arguments: {clip(given, 80)}"
    if any(call.name == expected.name for call in calls):
        return f"{wanted} was made only before call {number - 1}: out of order"
    return f"{wanted} was never made"


def tool_calls(case: Case) -> Finding:
    expected = case.expected_tool_calls
    if not expected:
        return not_applicable("the case gives no expected tool calls")
    calls = case.trace.tool_calls
    made = " → ".join(_call_text(call) for call in calls) or "no tool"
    at = 0
    for number, wanted in enumerate(expected, 1):
        found = next((i for i in range(at, len(calls)) if _meets(wanted, calls[i])), None)
        if found is None:
            return failed(_missed(number, wanted, calls, at), made)
        at = found + 1
    return passed(f"{len(expected)} expected call{'s' * (len(expected) != 1)} made in order", made)


def _errored(call: ToolCall) -> bool:
    return call.error is not None and call.error is not False and call.error != ""


def tools_healthy(case: Case) -> Finding:
    calls = case.trace.tool_calls
    if not calls:
        return not_applicable("no tool was called")
    broken = [call for call in calls if _errored(call)]
    if broken:
        detail = "; ".join(f"{call.name}: {clip(str(call.error), 60)}" for call in broken)
        return failed(
            f"{len(broken)} of {len(calls)} tool calls errored: {clip(detail, 100)}", detail
        )
    return passed(f"{len(calls)} tool call{'s' * (len(calls) != 1)}, none errored")


def _norm_source(name: str) -> str:
    name = name.strip().split("#", 1)[0].casefold()
    return name.removeprefix("./")


def same_source(a: str, b: str) -> bool:
    """Whether two source names are the same document (rule above)."""
    a, b = _norm_source(a), _norm_source(b)
    if not a or not b:
        return False
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def source(case: Case) -> Finding:
    expected = case.expected_source
    if expected is None:
        return not_applicable("the case names no expected source")
    retrieved = case.trace.retrieved_sources
    listed = ", ".join(retrieved) if retrieved else "nothing"
    if any(same_source(expected, s) for s in retrieved):
        return passed(f"{expected} was retrieved", listed)
    return failed(f"{expected} was not retrieved (it retrieved {clip(listed, 80)})", listed)


_CITATION = re.compile(
    r"\[(?:sources?|cite|citation|ref)\s*:\s*([^\]]+)\]"
    r"|\[([\w./-]+\.(?:md|txt|pdf|html?|docx?|csv|json|rst))\]",
    re.IGNORECASE,
)


def citations_in(answer: str, pattern: re.Pattern[str] = _CITATION) -> list[str]:
    """The sources an answer's text cites, in order, by the pattern's first matching group."""
    cited: list[str] = []
    for match in pattern.finditer(answer):
        group = next((g for g in match.groups() if g), None)
        if group is None:
            continue
        cited.extend(part.strip() for part in re.split(r"[;,]", group) if part.strip())
    return cited


def cites_only_what_it_read(rule: CitationRule) -> CheckFunction:
    pattern = re.compile(rule.pattern) if rule.pattern else _CITATION

    def cites_only_what_it_read(case: Case) -> Finding:
        cited = list(case.trace.cited_sources)
        for reply in case.replies if rule.in_answer else ():
            if "[" in reply:
                cited += citations_in(reply, pattern)
        if not cited:
            return not_applicable("the answer cites no source")
        retrieved = case.trace.retrieved_sources
        unread = list(
            dict.fromkeys(c for c in cited if not any(same_source(c, s) for s in retrieved))
        )
        if unread:
            listed = ", ".join(unread)
            return failed(f"cites what it never read: {clip(listed, 100)}", listed)
        return passed(f"cites {len(set(cited))} source(s), all retrieved")

    return cites_only_what_it_read
