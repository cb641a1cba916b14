"""The criterion kind (the agenteval seed article): one prose criterion, pass or fail.

Criteria are written positively ("states a specific price"): judges are bad at negation, so a
rubric that wants the opposite sets ``refute = true`` and the verdict is inverted here. The
judge never sees `refute`; it only answers whether the positive criterion holds.

The judge's ``pass`` field is required: a reply without it is invalid and re-asked, never read
as false (nor as true).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr

from jury import Ballot, Case, MetricResult, Verdict
from jury.adapters import (
    Decision,
    InvalidReply,
    Metric,
    Prompt,
    ReferenceJudge,
    Rubric,
    validate_model,
)

from ._common import EVIDENCE_RULES, FILE, build, fingerprint, render_case

__all__ = ["CriterionFile", "CriterionRubric", "from_toml"]

#: The metric every ballot carries: whether the case passes (after `refute`).
METRIC = "pass"


class CriterionFile(BaseModel):
    model_config = FILE

    kind: Literal["criterion"]
    name: str = Field(pattern=r"^[A-Za-z0-9_-]+$")
    description: str = ""
    #: Written positively: what a good (or, with `refute`, a bad) answer does.
    criterion: str = Field(min_length=1)
    #: Pass when the criterion does NOT hold.
    refute: StrictBool = False
    instructions: str = ""
    #: Show the judge the golden answer and expected behaviour when the case has them.
    reference: StrictBool = True


class _CriterionReply(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=False)

    reason: Annotated[StrictStr, Field(min_length=1)]
    holds: StrictBool = Field(alias="pass")


_SYSTEM = """\
You are one judge on a panel that decides whether an AI assistant's answer meets one \
criterion.

{rules}
{instructions}
The criterion:
{criterion}

Decide whether the answer in <answer-CODE> meets the criterion. Reply with one JSON object \
and nothing else, in this form:
{{"reason": "<why, pointing to the words of the answer that decide it>", "pass": true | false}}
"pass" is true when the answer meets the criterion and false when it does not."""

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"reason": {"type": "string"}, "pass": {"type": "boolean"}},
    "required": ["reason", "pass"],
    "additionalProperties": False,
}


class CriterionRubric(Rubric):
    kind = "criterion"

    def __init__(self, spec: CriterionFile, source: str = "") -> None:
        self.spec = spec
        self.source = source
        self.name = spec.name
        self._metrics = (Metric(name=METRIC, level="nominal", values=(False, True)),)

    def metrics(self, case: Case) -> tuple[Metric, ...]:
        return self._metrics

    @cached_property
    def system(self) -> str:
        instructions = self.spec.instructions.strip()
        return _SYSTEM.format(
            rules=EVIDENCE_RULES,
            instructions=f"\n{instructions}\n" if instructions else "",
            criterion=" ".join(self.spec.criterion.split()),
        )

    def prompts(self, case: Case) -> tuple[Prompt, ...]:
        if case.answer is None:
            raise ValueError("the case has no answer to judge")
        body, code = render_case(case, {"answer": case.answer}, reference=self.spec.reference)
        user = f"{body}\n\nDecide whether the answer in <answer-{code}> meets the criterion now."
        return (Prompt("answer", self.system, user, _SCHEMA, self.name),)

    def read(self, case: Case, prompt: Prompt, data: Any) -> Ballot:
        reply = validate_model(_CriterionReply, data)
        reason = reply.reason.strip()
        if not reason:
            raise InvalidReply("reason: empty")
        passed = reply.holds is not self.spec.refute
        return Ballot(
            scores={METRIC: passed},
            reason=reason,
            details={"criterion_met": reply.holds, "refute": self.spec.refute},
        )

    def reference_reply(self, case: Case, prompt: Prompt, judge: ReferenceJudge) -> dict[str, Any]:
        """Whether the judge finds that the answer meets the criterion (as written: `refute`
        is applied when the reply is read)."""
        found = judge.meets(self.spec.criterion, case.answer or "")
        if found.verdict == "cant_tell":
            # The reply has no "can't tell": guessing either way would be a default vote.
            raise ValueError(f"it cannot tell whether the answer meets the criterion ({found.why})")
        holds = found.verdict == "yes"
        return {"reason": f"[{judge.name}] pass {str(holds).lower()}: {found.why}", "pass": holds}

    def decide(self, case: Case, results: Mapping[str, MetricResult]) -> Decision:
        result = results[METRIC]
        if result.value is True:
            return Decision(Verdict.PASS)
        if result.value is False:
            why = (
                "the answer does what the criterion describes, and the rubric refutes it"
                if self.spec.refute
                else "the answer does not meet the criterion"
            )
            return Decision(Verdict.FAIL, (why,))
        return Decision(Verdict.INCONCLUSIVE, ("jurors split evenly on the criterion",))

    def fingerprint(self) -> str:
        return fingerprint(self.spec)


def from_toml(data: dict[str, Any], source: str) -> CriterionRubric:
    return build(CriterionRubric, CriterionFile, data, source)
