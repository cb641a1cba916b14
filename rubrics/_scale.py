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

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, create_model

from jury import Ballot, Case, MetricResult, Verdict
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
            fields[metric.name] = (StrictInt, ...)
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
        reply = validate_model(self.reply_model, data)
        values = dict(reply.__dict__)  # the validated fields (model_dump is 7x slower)
        reason = values.pop("reason").strip()
        if not reason:
            raise InvalidReply("reason: empty")
        problems = [
            f"{name}: {value} is outside {self.low}..{self.high}"
            for name, value in values.items()
            if not self.low <= value <= self.high
        ]
        if problems:
            raise InvalidReply("; ".join(problems))
        return Ballot(scores=values, reason=reason)

    def reference_reply(self, case: Case, prompt: Prompt, judge: ReferenceJudge) -> dict[str, Any]:
        """Each metric rated by its name, from the judge's 1-5 onto this rubric's scale."""
        ratings = judge.rate(case.answer or "", [m.name for m in self.spec.metrics])
        scores: dict[str, int] = {}
        reasons: list[str] = []
        for metric in self.spec.metrics:
            rating = ratings[metric.name]
            scores[metric.name] = round(self.low + (rating.value - 1) * (self.high - self.low) / 4)
            reasons.append(f"{metric.name} {scores[metric.name]}: {rating.why}")
        return {"reason": f"[{judge.name}] " + "; ".join(reasons), **scores}

    def decide(self, case: Case, results: Mapping[str, MetricResult]) -> Decision:
        failed: list[str] = []
        open_: list[str] = []
        for metric in self._metrics:
            result = results[metric.name]
            if result.passed is False:
                failed.append(f"{metric.name} {_fmt(result)} < {self.thresholds[metric.name]:g}")
            elif result.passed is None:
                open_.append(
                    f"{metric.name}: jurors split between {result.low} and {result.high} "
                    f"across the threshold {self.thresholds[metric.name]:g}"
                )
        # A definite failure outranks an open tie: the case fails either way.
        if failed:
            return Decision(Verdict.FAIL, tuple(failed))
        if open_:
            return Decision(Verdict.INCONCLUSIVE, tuple(open_))
        return Decision(Verdict.PASS)

    def verdict_of(self, case: Case, scores: Mapping[str, Score]) -> Verdict:
        # The same rule as `decide` on one juror's values (no ties are possible), without
        # building per-metric results: this runs for every vote.
        thresholds = self.thresholds
        if all(scores[name] >= limit for name, limit in thresholds.items()):  # type: ignore[operator]
            return Verdict.PASS
        return Verdict.FAIL

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


def _fmt(result: MetricResult) -> str:
    value = result.value
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def from_toml(data: dict[str, Any], source: str) -> ScaleRubric:
    return build(ScaleRubric, ScaleFile, data, source)
