"""What the reports show of a conversation (a case with ``turns``): every turn in order, the
tools each assistant turn called (arguments, result, error), and, for a ``scope = "turn"``
rubric, the votes each judged turn got; in the terminal, one line.

A turn "failed" where the records say so: a judged turn whose aggregate failed a metric
(``turn<N>.<metric>``, `jury.rubrics._scope`), or a turn whose tool call returned an error. Other
checks read every turn at once (``pii``, ``tool_order``...) and do not say which one: no
turn is named for them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from .._verdict import CaseVerdict, VoteStatus
from ..cases._case import Case
from ..cases._turns import ToolCall
from ._views import number

__all__ = ["conversation_line", "conversation_view", "failing_turns"]

#: A conversation longer than this opens folded: its summary line says what is in it.
OPEN_TURNS = 10
#: A per-turn metric's name: ``turn3.correctness`` (`jury.rubrics._scope`).
_TURN_METRIC = re.compile(r"turn(\d+)\.(.+)")


def _text(value: Any) -> str:
    """A tool's arguments, result or error as text: JSON as compact JSON, text as it is."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _per_turn(names: Iterable[str]) -> dict[int, list[tuple[str, str]]]:
    """(metric name, its per-turn name) by turn number, for the names of a per-turn rubric."""
    turns: dict[int, list[tuple[str, str]]] = {}
    for name in names:
        found = _TURN_METRIC.fullmatch(name)
        if found:
            turns.setdefault(int(found.group(1)), []).append((found.group(2), name))
    return turns


def _errored(call: ToolCall) -> bool:
    return call.error is not None and call.error != ""


def _tool_calls(case: Case) -> tuple[int, int]:
    """How many tool calls the conversation made, and how many of them errored."""
    calls = [call for turn in case.turns for call in turn.tool_calls]
    return len(calls), sum(map(_errored, calls))


def failing_turns(case: Case, verdict: CaseVerdict) -> tuple[int, ...]:
    """The turns (numbered from 1) known to have failed: a judged turn that failed a metric,
    a turn whose tool call errored."""
    failed = {
        turn
        for turn, metrics in _per_turn(verdict.metrics).items()
        if any(verdict.metrics[name].passed is False for _, name in metrics)
    }
    failed.update(
        n for n, turn in enumerate(case.turns, start=1) if any(map(_errored, turn.tool_calls))
    )
    return tuple(sorted(failed))


def _vote_part(reason: str, turn: int) -> str:
    """The part of a per-turn vote's reason about `turn` (the rubric joins them with " | ")."""
    head = f"turn {turn}: "
    return next(
        (part.removeprefix(head) for part in reason.split(" | ") if part.startswith(head)), ""
    )


def _judged(verdict: CaseVerdict, turn: int, metrics: list[tuple[str, str]]) -> dict[str, Any]:
    """What the jury made of one turn: the aggregate of each metric and each juror's vote."""
    votes = []
    for vote in verdict.votes:
        if vote.status is not VoteStatus.VALID:
            continue
        given = [(short, vote.scores[name]) for short, name in metrics if name in vote.scores]
        if given:
            scores = " · ".join(f"{short} {number(value)}" for short, value in given)
            reason = _vote_part(vote.reason, turn)
            votes.append({"juror": vote.juror, "scores": scores, "reason": reason})
    return {
        "metrics": [
            {
                "name": short,
                "value": number(verdict.metrics[name].value),
                "failed": verdict.metrics[name].passed is False,
            }
            for short, name in metrics
        ],
        "votes": votes,
    }


def conversation_view(case: Case | None, verdict: CaseVerdict) -> dict[str, Any] | None:
    """The conversation of a case card, or None for a case without turns."""
    if case is None or not case.turns:
        return None
    judged = _per_turn(verdict.metrics)
    failing = failing_turns(case, verdict)
    turns: list[dict[str, Any]] = []
    for n, turn in enumerate(case.turns, start=1):
        turns.append(
            {
                "number": n,
                "role": turn.role,
                "content": turn.content,
                "calls": [
                    {
                        "name": call.name,
                        "arguments": _text(call.arguments),
                        "result": _text(call.result),
                        "error": _text(call.error) if _errored(call) else "",
                    }
                    for call in turn.tool_calls
                ],
                "context": list(turn.context),
                "judged": _judged(verdict, n, judged[n]) if n in judged else None,
                "failed": n in failing,
            }
        )
    calls, errors = _tool_calls(case)
    return {
        "turns": turns,
        "count": len(turns),
        "calls": calls,
        "errors": errors,
        "failing": list(failing),
        "judged": sorted(judged),
        "open": len(turns) <= OPEN_TURNS,
    }


def conversation_line(case: Case, verdict: CaseVerdict) -> str:
    """A conversation in a few words: "conversation: 7 turns, 3 tool calls (1 errored);
    failing turn 4"."""
    calls, errors = _tool_calls(case)
    line = f"conversation: {len(case.turns)} turn{'s' * (len(case.turns) != 1)}"
    if calls:
        line += f", {calls} tool call{'s' * (calls != 1)}"
        line += f" ({errors} errored)" if errors else ""
    failing = failing_turns(case, verdict)
    if failing:
        line += f"; failing turn{'s' * (len(failing) != 1)} " + ", ".join(map(str, failing))
    return line
