"""The points kind (the RAG-agent evals seed article): one yes / no / can't-tell per point.

A case lists what a good answer must say (``must``), may say (``optional``), what every answer
should do (``shared``, defined once in the rubric file and referenced by ID), and what it must
not say (``penalties``). The judge sees each point by a short ID and answers every one, quoting
the answer's exact words for a "yes". The score is computed (`_points_score`), never by the judge:

    score = (weights of points met + weights of penalties that apply) / weights of all points

with weights +3 / +1 / +1 / -3 by default, so a penalty subtracts. The score is not clamped:
an answer that earns nothing and says two wrong things scores below zero, and reads so.
A case passes when every must point is met (``strict``, the default) and the score reaches the
threshold.

Each point is a nominal metric, so jurors vote per point (the engine takes the majority, and
a tie follows the panel's tie policy); only then is the score computed, from the panel's
answer to each point.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr

from jury import Ballot, Case, MetricResult, Point
from jury.adapters import (
    Decision,
    InvalidReply,
    Metric,
    Prompt,
    ReferenceJudge,
    Rubric,
    Score,
    validate_model,
)

from ._common import EVIDENCE_RULES, FILE, build, fingerprint, render_case
from ._points_score import Item, Need, decision, metric_of

__all__ = ["PointsFile", "PointsRubric", "from_toml", "quote_occurs"]

Answer = Literal["yes", "no", "cant_tell"]


class Weights(BaseModel):
    model_config = FILE

    must: float = Field(default=3, gt=0)
    optional: float = Field(default=1, gt=0)
    shared: float = Field(default=1, gt=0)
    #: Negative: a penalty that applies subtracts its weight.
    penalty: float = Field(default=-3, lt=0)


class SharedPoint(BaseModel):
    """A point every case can reference by ID, such as "reaches a conclusion"."""

    model_config = FILE

    id: str = Field(min_length=1)
    says: str = Field(min_length=1)
    weight: float | None = Field(default=None, gt=0)


class PointsFile(BaseModel):
    model_config = FILE

    kind: Literal["points"]
    name: str = Field(pattern=r"^[A-Za-z0-9_-]+$")
    description: str = ""
    instructions: str = ""
    weights: Weights = Weights()
    #: The score a case needs to pass (earned / total, penalties subtracted): a share, 0..1.
    threshold: float = Field(default=0.7, ge=0, le=1)
    #: Also require every must point to be met.
    strict: StrictBool = True
    shared: tuple[SharedPoint, ...] = ()


class _PointAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore")

    verdict: Answer
    quotes: list[StrictStr]
    reason: Annotated[StrictStr, Field(min_length=1)]


class _PointsReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    points: dict[str, _PointAnswer]


def _squash(text: str) -> str:
    return " ".join(text.split())


def quote_occurs(quote: str, answer: str) -> bool:
    """Whether `quote` is in `answer`, word for word, ignoring differences of whitespace."""
    needle = _squash(quote)
    return bool(needle) and needle in _squash(answer)


_SYSTEM = """\
You are one judge on a panel that checks an AI assistant's answer against a list of \
statements. For each statement, decide whether the answer states it.

{rules}
{instructions}
How to answer for each statement, by its ID in <points-CODE>:
- "yes": the answer states it (in any wording). Give in "quotes" the exact words of the \
answer that show it, copied character for character from <answer-CODE>; a quote that is \
not in the answer does not count.
- "no": the answer does not state it, or states something different.
- "cant_tell": the answer is too vague or ambiguous to decide.
Judge each statement on its own and against the answer only: the context and tool results \
show what the assistant saw, but a statement counts only if the answer itself makes it. Some \
statements describe mistakes; answer them the same way, "yes" when the answer makes the \
mistake.

Reply with one JSON object and nothing else, answering every ID exactly once, in this form:
{{"points": {{"<ID>": {{"verdict": "yes" | "no" | "cant_tell", "quotes": ["<exact words \
of the answer>"], "reason": "<one sentence>"}}, ...}}}}"""


class PointsRubric(Rubric):
    kind = "points"

    def __init__(self, spec: PointsFile, source: str = "") -> None:
        ids = [p.id for p in spec.shared]
        if len(set(ids)) != len(ids):
            raise ValueError("shared: two shared points have the same id")
        self.spec = spec
        self.source = source
        self.name = spec.name
        self._shared = {p.id: p for p in spec.shared}

    # --- the case's points -------------------------------------------------------------

    def _weight(self, point: Point, need: Need) -> float:
        weight = point.weight if point.weight is not None else getattr(self.spec.weights, need)
        if need == "penalty" and weight >= 0:
            raise ValueError(f"penalty {point.id}: weight {weight:g} must be below 0")
        if need != "penalty" and weight <= 0:
            raise ValueError(f"point {point.id}: weight {weight:g} must be above 0")
        return float(weight)

    def items(self, case: Case) -> tuple[Item, ...]:
        """The case's points in the order the judge sees them, numbered 1, 2, 3...

        Order: the case's `points`, then its `shared` points, then its `penalties`. Raises
        `ValueError` (the case cannot be judged) for an unknown shared ID, a repeated ID, a
        penalty weighed as a gain, or a case with nothing to earn.
        """
        given: list[tuple[Point, Need]] = [(p, p.need) for p in case.points]
        for ref in case.shared:
            if isinstance(ref, str):
                shared = self._shared.get(ref)
                if shared is None:
                    known = ", ".join(self._shared) or "none"
                    raise ValueError(f"shared point {ref!r} is not defined by the rubric ({known})")
                point = Point(id=shared.id, says=shared.says, need="shared", weight=shared.weight)
            else:
                point = ref
            given.append((point, "shared"))
        given.extend((p, "penalty") for p in case.penalties)
        if not given:
            raise ValueError("the case has no points")
        items = tuple(
            Item(str(number), point, need, self._weight(point, need))
            for number, (point, need) in enumerate(given, start=1)
        )
        ids = [i.metric for i in items]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise ValueError(f"point id {', '.join(repeated)} is used twice")
        if not any(i.need != "penalty" for i in items):
            raise ValueError("the case has only penalties: there is nothing to earn")
        return items

    def metrics(self, case: Case) -> tuple[Metric, ...]:
        return tuple(metric_of(item) for item in self.items(case))

    # --- what the judge sees -------------------------------------------------------------

    @cached_property
    def system(self) -> str:
        instructions = self.spec.instructions.strip()
        return _SYSTEM.format(
            rules=EVIDENCE_RULES, instructions=f"\n{instructions}\n" if instructions else ""
        )

    def schema(self, items: tuple[Item, ...]) -> dict[str, Any]:
        # One property per short ID, all required: a provider that enforces the schema then
        # guarantees every point is answered exactly once. Each carries its statement as its
        # description, which is also how offline jurors learn what to look for.
        answer = {
            "type": "object",
            "properties": {
                "verdict": {"type": "string", "enum": ["yes", "no", "cant_tell"]},
                "quotes": {"type": "array", "items": {"type": "string"}},
                "reason": {"type": "string"},
            },
            "required": ["verdict", "quotes", "reason"],
            "additionalProperties": False,
        }
        points = {item.short: {**answer, "description": item.point.says} for item in items}
        return {
            "type": "object",
            "properties": {
                "points": {
                    "type": "object",
                    "properties": points,
                    "required": list(points),
                    "additionalProperties": False,
                }
            },
            "required": ["points"],
            "additionalProperties": False,
        }

    def prompts(self, case: Case) -> tuple[Prompt, ...]:
        if case.answer is None:
            raise ValueError("the case has no answer to judge")
        items = self.items(case)
        statements = "\n".join(f"{item.short}: {_squash(item.point.says)}" for item in items)
        # No golden answer: the points are the reference, and a judge shown the gold tends
        # to credit the gold instead of the answer.
        body, code = render_case(
            case, {"answer": case.answer}, reference=False, sections=[("points", statements)]
        )
        user = (
            f"{body}\n\nCheck each statement in <points-{code}> against the answer in "
            f"<answer-{code}> now."
        )
        return (Prompt("answer", self.system, user, self.schema(items), self.name),)

    # --- reading replies and deciding ----------------------------------------------------

    def read(self, case: Case, prompt: Prompt, data: Any) -> Ballot:
        reply = validate_model(_PointsReply, data)
        items = self.items(case)
        shorts = [item.short for item in items]
        problems = [f"points.{s}: missing" for s in shorts if s not in reply.points]
        problems += [
            f"points.{s}: no such point (the IDs are {', '.join(shorts)})"
            for s in reply.points
            if s not in shorts
        ]
        if problems:
            raise InvalidReply("; ".join(problems))
        answer = case.answer or ""
        scores: dict[str, Score] = {}
        points: dict[str, dict[str, Any]] = {}
        downgraded: dict[str, str] = {}
        lines = []
        for item in items:
            given = reply.points[item.short]
            if not given.reason.strip():
                raise InvalidReply(f"points.{item.short}.reason: empty")
            verdict: str = given.verdict
            if verdict == "yes":
                missing = [q for q in given.quotes if not quote_occurs(q, answer)]
                if not given.quotes:
                    downgraded[item.metric] = "a yes without a quote"
                elif missing:
                    downgraded[item.metric] = f"quote not in the answer: {missing[0]!r}"
                if item.metric in downgraded:
                    verdict = "cant_tell"
            scores[item.metric] = verdict
            points[item.metric] = {
                "id": item.short,
                "verdict": given.verdict,
                "quotes": list(given.quotes),
                "reason": given.reason.strip(),
            }
            note = downgraded.get(item.metric)
            flag = f" [{note}: counted as cant_tell]" if note else ""
            lines.append(f"{item.short} {given.verdict}{flag}: {given.reason.strip()}")
        details: dict[str, Any] = {"points": points}
        if downgraded:
            details["downgraded"] = downgraded
        return Ballot(scores=scores, reason=" | ".join(lines), details=details)

    def reference_reply(self, case: Case, prompt: Prompt, judge: ReferenceJudge) -> dict[str, Any]:
        """Whether the answer states each point (a penalty: makes the mistake), by short ID."""
        answer = case.answer or ""
        points: dict[str, dict[str, Any]] = {}
        for item in self.items(case):
            found = judge.states(item.point.says, answer)
            points[item.short] = {
                "verdict": found.verdict,
                "quotes": [found.quote] if found.quote else [],
                "reason": f"[{judge.name}] {found.why}",
            }
        return {"points": points}

    def decide(self, case: Case, results: Mapping[str, MetricResult]) -> Decision:
        # The score is computed from the panel's answers, never by a judge (`_points_score`).
        spec = self.spec
        return decision(self.items(case), results, threshold=spec.threshold, strict=spec.strict)

    def with_thresholds(self, thresholds: Mapping[str, float]) -> PointsRubric:
        unknown = set(thresholds) - {"score", "*"}
        if unknown:
            raise KeyError(
                f"points rubrics have one threshold, 'score' (not {', '.join(sorted(unknown))})"
            )
        if not thresholds:
            return self
        value = thresholds.get("score", thresholds.get("*"))
        if value is None or not 0 <= value <= 1:
            raise ValueError(f"{value:g} is outside 0..1, the share of points {self.name} scores")
        return PointsRubric(self.spec.model_copy(update={"threshold": value}), self.source)

    def fingerprint(self) -> str:
        return fingerprint(self.spec)


def from_toml(data: dict[str, Any], source: str) -> PointsRubric:
    return build(PointsRubric, PointsFile, data, source)
