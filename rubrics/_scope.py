"""What a rubric judges in a conversation: its end, or each assistant reply (``scope``).

``scope = "conversation"`` (the default) judges a conversation's answer, the assistant's last
reply, as a reply to the whole conversation: the judge sees every turn before it. Any kind
judges that way unchanged.

``scope = "turn"`` judges every assistant turn that says something, one prompt per turn.
Each turn is judged as if the conversation ended there: the judge sees the turns before it,
the tool calls made up to it, and the case's golden answer, expected behaviour and points
only for the last reply (they describe how the conversation should end, not each step). The
tools a turn calls without a word to the user are judged with the reply that follows them.

Each turn's metrics are named ``turn<N>.<metric>`` (N its position in ``turns``, from 1),
so the jurors' votes are aggregated turn by turn, and the rule is then stated once:

- the conversation FAILS when any turn fails (each failed turn says why);
- otherwise it is INCONCLUSIVE when any turn is;
- it PASSES when every turn passes.

A case that is not a conversation is one turn, judged as the inner rubric judges it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from jury import Ballot, Case, MetricResult, Verdict
from jury.adapters import Decision, Metric, Prompt, ReferenceJudge, Rubric

__all__ = ["PerTurn", "per_turn", "turn_views"]


def turn_views(case: Case) -> tuple[tuple[int, Case], ...]:
    """(turn number, the case as if it ended at that turn) for every reply to judge."""
    turns = case.turns
    if not turns:
        return ((0, case),)
    views: list[tuple[int, Case]] = []
    spoken = [i for i, t in enumerate(case.history) if t.role == "assistant" and t.content]
    from_turns = any(t.tool_calls for t in turns)
    with_context = any(t.context for t in turns)
    for index in spoken:
        upto = turns[: index + 1]
        asked = [t.content for t in upto if t.role == "user" and t.content]
        trace: dict[str, Any] = {}
        if from_turns:
            trace["tool_calls"] = tuple(c for t in upto for c in t.tool_calls)
        if with_context:
            trace["context"] = tuple(c for t in upto for c in t.context)
        view = case.model_copy(
            update={
                "turns": upto,
                "answer": turns[index].content,
                "question": asked[-1] if asked else "",
                "trace": case.trace.model_copy(update=trace),
                "golden_answer": None,
                "expected_behaviour": None,
                "expect_refusal": None,
                "points": (),
                "penalties": (),
                "shared": (),
                "labels": {},
            }
        )
        views.append((index + 1, view))
    last = len(turns) if turns[-1].role == "assistant" else len(turns) + 1
    views.append((last, case))
    return tuple(views)


def _prefix(number: int) -> str:
    return f"turn{number}." if number else ""


class PerTurn(Rubric):
    """A rubric of any kind, judging each assistant reply of a conversation (rules above)."""

    def __init__(self, inner: Rubric) -> None:
        self.inner = inner
        self.name = inner.name
        self.kind = inner.kind

    def _views(self, case: Case) -> dict[str, tuple[int, Case]]:
        return {f"turn{n}" if n else "answer": (n, view) for n, view in turn_views(case)}

    def _view(self, case: Case, key: str) -> tuple[int, Case, str]:
        head, _, inner_key = key.partition("/")
        number, view = self._views(case)[head]
        return number, view, inner_key

    def metrics(self, case: Case) -> tuple[Metric, ...]:
        return tuple(
            replace(metric, name=_prefix(number) + metric.name)
            for number, view in turn_views(case)
            for metric in self.inner.metrics(view)
        )

    def prompts(self, case: Case) -> tuple[Prompt, ...]:
        return tuple(
            replace(prompt, key=f"{head}/{prompt.key}")
            for head, (_, view) in self._views(case).items()
            for prompt in self.inner.prompts(view)
        )

    def read(self, case: Case, prompt: Prompt, data: Any) -> Ballot:
        _, view, inner_key = self._view(case, prompt.key)
        return self.inner.read(view, replace(prompt, key=inner_key), data)

    def combine(self, case: Case, ballots: Sequence[tuple[Prompt, Ballot]]) -> Ballot | str:
        by_turn: dict[str, list[tuple[Prompt, Ballot]]] = {}
        for prompt, ballot in ballots:
            head, _, inner_key = prompt.key.partition("/")
            by_turn.setdefault(head, []).append((replace(prompt, key=inner_key), ballot))
        views = self._views(case)
        scores: dict[str, Any] = {}
        reasons: list[str] = []
        details: dict[str, Any] = {}
        for head, turn_ballots in by_turn.items():
            number, view = views[head]
            combined = self.inner.combine(view, turn_ballots)
            label = f"turn {number}" if number else "answer"
            if isinstance(combined, str):
                return f"{label}: {combined}"
            scores.update({_prefix(number) + k: v for k, v in combined.scores.items()})
            reasons.append(f"{label}: {combined.reason}" if number else combined.reason)
            if combined.details:
                details[head] = dict(combined.details)
        return Ballot(scores=scores, reason=" | ".join(reasons), details=details)

    def decide(self, case: Case, results: Mapping[str, MetricResult]) -> Decision:
        failed: list[str] = []
        open_: list[str] = []
        for number, view in turn_views(case):
            prefix = _prefix(number)
            own = {m.name: results[prefix + m.name] for m in self.inner.metrics(view)}
            decision = self.inner.decide(view, own)
            label = f"turn {number}: " if number else ""
            why = tuple(label + reason for reason in decision.reasons)
            if decision.verdict is Verdict.FAIL:
                failed.extend(why or (f"{label}failed",))
            elif decision.verdict is Verdict.INCONCLUSIVE:
                open_.extend(why or (f"{label}undecided",))
        if failed:
            return Decision(Verdict.FAIL, tuple(failed))
        if open_:
            return Decision(Verdict.INCONCLUSIVE, tuple(open_))
        return Decision(Verdict.PASS)

    def reference_reply(self, case: Case, prompt: Prompt, judge: ReferenceJudge) -> dict[str, Any]:
        _, view, inner_key = self._view(case, prompt.key)
        return self.inner.reference_reply(view, replace(prompt, key=inner_key), judge.about(view))

    def with_thresholds(self, thresholds: Mapping[str, float]) -> PerTurn:
        return PerTurn(self.inner.with_thresholds(thresholds))

    def fingerprint(self) -> str:
        return hashlib.sha256(f"{self.inner.fingerprint()}|turn".encode()).hexdigest()[:16]


def per_turn(rubric: Rubric) -> PerTurn:
    """``scope = "turn"``: `rubric` judging each reply. A kind that judges a whole answer
    (points describe how it should end, pairwise compares two of them) cannot."""
    if rubric.kind in ("pairwise", "points"):
        raise ValueError(
            f"a {rubric.kind} rubric judges a whole answer, not each turn "
            "(use scope = 'conversation')"
        )
    return PerTurn(rubric)
