"""The scale kind: named metrics, each scored on an integer scale with described levels.

A case passes when every aggregated metric reaches its threshold: a high helpfulness score
cannot make up for a low correctness score (the seed article's rule, all five >= 4).
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Mapping
from functools import cached_property
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    TypeAdapter,
    ValidationError,
    create_model,
)

from jury import Ballot, Case, MetricResult, Verdict
from jury.adapters import (
    Decision,
    InvalidReply,
    Metric,
    Prompt,
    ReferenceJudge,
    Rubric,
    Score,
    pydantic_reason,
    validate_model,
)

from ._common import EVIDENCE_RULES, build, render_case

__all__ = ["ScaleRubric", "from_toml"]

_FILE = ConfigDict(extra="forbid", frozen=True)


class ScaleMetric(BaseModel):
    model_config = _FILE

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    description: str
    #: One description per level, lowest first.
    levels: tuple[str, ...]
    threshold: float | None = None


class ScaleFile(BaseModel):
    model_config = _FILE

    kind: str
    name: str
    description: str = ""
    scale: tuple[int, int] = (1, 5)
    threshold: float = 4
    #: A spread of scores this wide between jurors flags disagreement.
    spread_alert: int = 2
    instructions: str = ""
    metrics: tuple[ScaleMetric, ...] = Field(min_length=1)


class ScaleRubric(Rubric):
    kind = "scale"

    def __init__(self, spec: ScaleFile, source: str = "") -> None:
        low, high = spec.scale
        if low >= high:
            raise ValueError(f"scale: {low}..{high} is empty")
        for metric in spec.metrics:
            if len(metric.levels) != high - low + 1:
                raise ValueError(
                    f"metrics.{metric.name}.levels: {len(metric.levels)} given for a "
                    f"{low}..{high} scale"
                )
        names = [m.name for m in spec.metrics]
        if len(set(names)) != len(names) or "reason" in names:
            raise ValueError("metrics: names must be unique and not 'reason'")
        # A threshold off the scale would fail (or pass) every case without a word.
        if not low <= spec.threshold <= high:
            raise ValueError(f"threshold: {spec.threshold:g} is outside the scale {low}..{high}")
        for index, metric in enumerate(spec.metrics):
            if metric.threshold is not None and not low <= metric.threshold <= high:
                raise ValueError(
                    f"metrics[{index}].threshold: {metric.threshold:g} is outside the scale "
                    f"{low}..{high}"
                )
        self.spec = spec
        self.source = source
        self.name = spec.name
        self.low, self.high = low, high
        self.thresholds = {m.name: m.threshold or spec.threshold for m in spec.metrics}
        self._metrics = tuple(
            Metric(
                name=m.name,
                level="ordinal",
                values=tuple(range(low, high + 1)),
                threshold=self.thresholds[m.name],
                spread_alert=spec.spread_alert,
            )
            for m in spec.metrics
        )
        self._metric_names = frozenset(m.name for m in spec.metrics)

    # --- what the judge sees -------------------------------------------------------------

    @cached_property
    def system(self) -> str:
        lines = [
            "You are one judge on a panel that grades an AI assistant's answer to a user. "
            f"Score the answer on each metric below with an integer from {self.low} to "
            f"{self.high}; higher is always better.",
            "",
            EVIDENCE_RULES,
        ]
        if self.spec.instructions:
            lines += ["", self.spec.instructions.strip()]
        lines += ["", "Metrics:"]
        for metric in self.spec.metrics:
            lines += ["", f"{metric.name}: {metric.description}"]
            lines += [f"  {self.low + i}: {text}" for i, text in enumerate(metric.levels)]
        example = ", ".join(
            f'"{m.name}": <integer {self.low}-{self.high}>' for m in self.spec.metrics
        )
        lines += [
            "",
            "Reply with one JSON object and nothing else, in this form:",
            f'{{"reason": "<why you gave these scores; name any unsupported claim>", {example}}}',
        ]
        return "\n".join(lines)

    @cached_property
    def reply_model(self) -> type[BaseModel]:
        fields: dict[str, Any] = {
            "reason": (Annotated[StrictStr, Field(min_length=1)], ...),
        }
        for metric in self.spec.metrics:
            fields[metric.name] = (_SCORE, ...)
        model: type[BaseModel] = create_model(
            f"{self.name}-reply".replace("-", "_"),
            __config__=ConfigDict(extra="ignore"),
            **fields,
        )
        return model

    @cached_property
    def schema(self) -> dict[str, Any]:
        properties: dict[str, Any] = {"reason": {"type": "string"}}
        for metric in self.spec.metrics:
            properties[metric.name] = {
                "type": "integer",
                "minimum": self.low,
                "maximum": self.high,
                "description": metric.description,
            }
        return {
            "type": "object",
            "properties": properties,
            "required": list(properties),
            "additionalProperties": False,
        }

    def metrics(self, case: Case) -> tuple[Metric, ...]:
        return self._metrics

    def prompts(self, case: Case) -> tuple[Prompt, ...]:
        if case.answer is None:
            raise ValueError("the case has no answer to judge")
        body, code = render_case(case, {"answer": case.answer})
        user = f"{body}\n\nScore the answer in <answer-{code}> now."
        return (Prompt("answer", self.system, user, self.schema, self.name),)

    # --- reading replies and deciding ----------------------------------------------------

    def read(self, case: Case, prompt: Prompt, data: Any) -> Ballot:
        # A metric the juror says it could not measure (null, and named in `not_measured`,
        # as an offline juror does with no golden answer) is abstained on; a null it does
        # not explain stays an invalid reply.
        abstained = _abstained(data, self._metric_names)
        if abstained:
            data = {**data, **dict.fromkeys(abstained, self.low)}
        reply = validate_model(self.reply_model, data)
        values = dict(reply.__dict__)  # the validated fields (model_dump is 7x slower)
        reason = values.pop("reason").strip()
        if not reason:
            raise InvalidReply("reason: empty")
        for name in abstained:
            del values[name]
        if not values:
            raise InvalidReply("not_measured: every metric, so nothing was scored")
        problems = [
            f"{name}: {value} is outside {self.low}..{self.high}"
            for name, value in values.items()
            if not self.low <= value <= self.high
        ]
        if problems:
            raise InvalidReply("; ".join(problems))
        return Ballot(scores=values, reason=reason)

    def read_value(
        self, case: Case, prompt: Prompt, ballot: Ballot, path: tuple[str, ...], value: Any
    ) -> Ballot | None:
        # A metric's score is validated alone, by the reply model's own type for it, and
        # checked against the scale as `read` checks it; nothing else of the reply depends
        # on it. A null (which `not_measured` may make an abstention) is left to `read`.
        name = path[0] if len(path) == 1 else ""
        if value is None or name not in ballot.scores or name not in self._metric_names:
            return None
        try:
            score = _SCORE_VALIDATOR.validate_python(value, strict=True)
        except ValidationError as exc:
            raise InvalidReply(pydantic_reason(exc)) from None
        if not self.low <= score <= self.high:
            raise InvalidReply(f"{name}: {score} is outside {self.low}..{self.high}")
        # Built directly: `dataclasses.replace` costs four times as much, once per value.
        return Ballot(
            scores={**ballot.scores, name: score},
            reason=ballot.reason,
            details=ballot.details,
            verdict=ballot.verdict,
            generated=ballot.generated,
        )

    def reference_reply(self, case: Case, prompt: Prompt, judge: ReferenceJudge) -> dict[str, Any]:
        """Each metric rated by its name, from the judge's 1-5 onto this rubric's scale."""
        ratings = judge.rate(case.answer or "", [m.name for m in self.spec.metrics])
        scores: dict[str, int | None] = {}
        reasons: list[str] = []
        for metric in self.spec.metrics:
            rating = ratings[metric.name]
            if not rating.measured:  # not measurable here: abstains on it
                scores[metric.name] = None
                reasons.append(f"{metric.name} not measured: {rating.why}")
                continue
            scores[metric.name] = round(self.low + (rating.value - 1) * (self.high - self.low) / 4)
            reasons.append(f"{metric.name} {scores[metric.name]}: {rating.why}")
        unmeasured = [name for name, value in scores.items() if value is None]
        extra = {"not_measured": unmeasured} if unmeasured else {}
        return {"reason": f"[{judge.name}] " + "; ".join(reasons), **scores, **extra}

    def decide(self, case: Case, results: Mapping[str, MetricResult]) -> Decision:
        failed: list[str] = []
        open_: list[str] = []
        unmeasured: list[str] = []
        for metric in self._metrics:
            result = results.get(metric.name)
            if result is None or not result.votes:
                # Every juror abstained on it (no golden answer to measure correctness by):
                # it leaves the pass rule, and the verdict says so.
                unmeasured.append(metric.name)
                continue
            if result.passed is False:
                failed.append(f"{metric.name} {_fmt(result)} < {self.thresholds[metric.name]:g}")
            elif result.passed is None:
                open_.append(
                    f"{metric.name}: jurors split between {result.low} and {result.high} "
                    f"across the threshold {self.thresholds[metric.name]:g}"
                )
        notes = (
            (f"not measured by any juror, left out of the pass rule: {', '.join(unmeasured)}",)
            if unmeasured
            else ()
        )
        # A definite failure outranks an open tie: the case fails either way.
        if failed:
            return Decision(Verdict.FAIL, (*failed, *notes))
        if open_:
            return Decision(Verdict.INCONCLUSIVE, (*open_, *notes))
        if len(unmeasured) == len(self._metrics):
            return Decision(Verdict.INCONCLUSIVE, notes)
        return Decision(Verdict.PASS, notes)

    def verdict_of(self, case: Case, scores: Mapping[str, Score]) -> Verdict:
        # The same rule as `decide` on one juror's values (no ties are possible), without
        # building per-metric results: this runs for every vote.
        # A metric the juror abstained on is not in its scores, and not in its pass rule. One
        # plain loop (not any() and all() over generators): soft confidence asks this for
        # every alternative reply.
        measured = False
        for name, limit in self.thresholds.items():
            if name in scores:
                if not scores[name] >= limit:  # type: ignore[operator]
                    return Verdict.FAIL
                measured = True
        return Verdict.PASS if measured else Verdict.INCONCLUSIVE

    def with_thresholds(self, thresholds: Mapping[str, float]) -> ScaleRubric:
        names = {m.name for m in self.spec.metrics}
        unknown = set(thresholds) - names - {"*"}
        if unknown:
            close = [difflib.get_close_matches(n, sorted(names), n=1, cutoff=0.7) for n in unknown]
            hint = f" (did you mean {close[0][0]!r}?)" if len(unknown) == 1 and close[0] else ""
            raise KeyError(f"no metric named {', '.join(sorted(unknown))}{hint}")
        for name, value in thresholds.items():
            if not self.low <= value <= self.high:
                which = "" if name == "*" else f"{name}: "
                raise ValueError(
                    f"{which}{value:g} is outside the scale {self.low}..{self.high} of {self.name}"
                )
        every = thresholds.get("*")
        metrics = tuple(
            m.model_copy(update={"threshold": thresholds.get(m.name, every)})
            if m.name in thresholds or every is not None
            else m
            for m in self.spec.metrics
        )
        return ScaleRubric(self.spec.model_copy(update={"metrics": metrics}), self.source)

    def fingerprint(self) -> str:
        return hashlib.sha256(self.spec.model_dump_json().encode()).hexdigest()[:16]


#: A metric's score in the reply model, and its validator alone (`read_value`).
_SCORE = StrictInt
#: (Its core validator: `TypeAdapter.validate_python`'s wrapper costs as much again.)
_SCORE_VALIDATOR = TypeAdapter(_SCORE).validator


def _abstained(data: Any, metrics: frozenset[str]) -> list[str]:
    """The metrics a reply gives as null and names in its ``not_measured`` list."""
    if not isinstance(data, dict) or not isinstance(data.get("not_measured"), list):
        return []
    named = {name for name in data["not_measured"] if isinstance(name, str)}
    return [name for name in metrics & named if name in data and data[name] is None]


def _fmt(result: MetricResult) -> str:
    value = result.value
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def from_toml(data: dict[str, Any], source: str) -> ScaleRubric:
    return build(ScaleRubric, ScaleFile, data, source)
