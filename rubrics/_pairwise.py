"""The pairwise kind: which of two answers is better, A (the case's ``answer``) or B
(its ``answer_b``), or a tie where the rubric allows one.

Judges prefer whichever answer they read first (or second) far more often than chance, so
every juror judges both orders: prompt "AB" shows A first, prompt "BA" shows B first. A juror
whose two verdicts disagree abstains (the conservative rule of Zheng et al. 2023, "Judging
LLM-as-a-judge"): its preference is an artefact of the order, not a judgement of the answers.
Each vote keeps both orders' verdicts in ``details["ballots"]`` (abstentions too), and
`position_consistency` reads a juror's consistency back from the verdicts.

What PASS means for a gate: the panel's winner is one of `pass_when`. The default,
``["A", "tie"]``, reads A as the candidate and B as the baseline: a case passes when the
candidate is at least as good as the baseline. ``["A"]`` asks for a strict win.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, field_validator

from jury import Ballot, Case, CaseVerdict, MetricResult, Verdict
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

__all__ = [
    "ORDERS",
    "PairwiseFile",
    "PairwiseRubric",
    "PositionConsistency",
    "from_toml",
    "position_consistency",
]

METRIC = "winner"
Winner = Literal["A", "B", "tie"]
#: The two prompts: which answer is shown first.
ORDERS = ("AB", "BA")
#: What "1" and "2" (the positions the judge sees) mean in each order.
_SHOWN = {"AB": {"1": "A", "2": "B"}, "BA": {"1": "B", "2": "A"}}

_DEFAULT_CRITERIA = """\
The better answer is the one that answers the question correctly and completely, agrees \
with the golden answer and the expected behaviour when they are given, asserts nothing the \
evidence does not support, and lets the user act on it."""


class PairwiseFile(BaseModel):
    model_config = FILE

    kind: Literal["pairwise"]
    name: str = Field(pattern=r"^[A-Za-z0-9_-]+$")
    description: str = ""
    #: What makes one answer better than the other.
    criteria: str = _DEFAULT_CRITERIA
    instructions: str = ""
    allow_tie: StrictBool = True
    #: The panel's winners that make a case PASS (A is the case's answer, B its answer_b).
    pass_when: tuple[Winner, ...] = Field(default=("A", "tie"), min_length=1)
    #: Show the judge the golden answer and expected behaviour when the case has them.
    reference: StrictBool = True

    @field_validator("pass_when")
    @classmethod
    def _distinct(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(value)) != len(value):
            raise ValueError("a winner is listed twice")
        return value


class _PairwiseReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    reason: Annotated[StrictStr, Field(min_length=1)]
    winner: Literal["1", "2", "tie"]


_SYSTEM = """\
You are one judge on a panel that compares two answers to the same question and decides \
which one is better.

{rules}
{instructions}
What makes an answer better:
{criteria}

The two answers are in <answer_1-CODE> and <answer_2-CODE>. Their order is arbitrary: do not \
prefer an answer for coming first or second, nor for being longer, and do not let the style \
of an answer outweigh what it says.

Reply with one JSON object and nothing else, in this form:
{{"reason": "<why, naming what decides it>", "winner": {choices}}}
{meaning}"""


class PairwiseRubric(Rubric):
    kind = "pairwise"

    def __init__(self, spec: PairwiseFile, source: str = "") -> None:
        self.spec = spec
        self.source = source
        self.name = spec.name
        base: tuple[Winner, ...] = ("B", "tie", "A") if spec.allow_tie else ("B", "A")
        # Worst to best for the gate: outcomes that fail first, so that ties=fail settles a
        # tie on a failing winner and ties=pass on a passing one, whatever `pass_when` says.
        order = tuple(w for w in base if w not in spec.pass_when) + tuple(
            w for w in base if w in spec.pass_when
        )
        self._metrics = (Metric(name=METRIC, level="nominal", values=order),)

    def metrics(self, case: Case) -> tuple[Metric, ...]:
        return self._metrics

    @cached_property
    def system(self) -> str:
        instructions = self.spec.instructions.strip()
        if self.spec.allow_tie:
            choices = '"1" | "2" | "tie"'
            meaning = (
                '"winner" is "1" when the answer in <answer_1-CODE> is better, "2" when the '
                'answer in <answer_2-CODE> is better, and "tie" when neither is better.'
            )
        else:
            choices = '"1" | "2"'
            meaning = (
                '"winner" is "1" when the answer in <answer_1-CODE> is better and "2" when the '
                "answer in <answer_2-CODE> is better. You must pick one."
            )
        return _SYSTEM.format(
            rules=EVIDENCE_RULES,
            instructions=f"\n{instructions}\n" if instructions else "",
            criteria=" ".join(self.spec.criteria.split()),
            choices=choices,
            meaning=meaning,
        )

    @cached_property
    def schema(self) -> dict[str, Any]:
        winners = ["1", "2", "tie"] if self.spec.allow_tie else ["1", "2"]
        return {
            "type": "object",
            "properties": {
                "reason": {"type": "string"},
                "winner": {"type": "string", "enum": winners},
            },
            "required": ["reason", "winner"],
            "additionalProperties": False,
        }

    def prompts(self, case: Case) -> tuple[Prompt, ...]:
        if case.answer is None or case.answer_b is None:
            raise ValueError("a pairwise case needs both answer (A) and answer_b (B)")
        texts = {"A": case.answer, "B": case.answer_b}
        prompts = []
        for key in ORDERS:
            shown = _SHOWN[key]
            body, code = render_case(
                case,
                {"answer_1": texts[shown["1"]], "answer_2": texts[shown["2"]]},
                reference=self.spec.reference,
            )
            user = f"{body}\n\nCompare <answer_1-{code}> with <answer_2-{code}> now."
            prompts.append(Prompt(key, self.system, user, self.schema, self.name))
        return tuple(prompts)

    def read(self, case: Case, prompt: Prompt, data: Any) -> Ballot:
        if prompt.key not in _SHOWN:
            raise ValueError(f"pairwise prompt key {prompt.key!r} is not one of {ORDERS}")
        reply = validate_model(_PairwiseReply, data)
        reason = reply.reason.strip()
        if not reason:
            raise InvalidReply("reason: empty")
        if reply.winner == "tie" and not self.spec.allow_tie:
            raise InvalidReply('winner: "tie" is not allowed; choose "1" or "2"')
        winner = "tie" if reply.winner == "tie" else _SHOWN[prompt.key][reply.winner]
        return Ballot(
            scores={METRIC: winner},
            reason=reason,
            details={"order": prompt.key, "said": reply.winner},
        )

    def reference_reply(self, case: Case, prompt: Prompt, judge: ReferenceJudge) -> dict[str, Any]:
        """The judge's preference between the answers in the order this prompt shows them."""
        texts = {"A": case.answer or "", "B": case.answer_b or ""}
        shown = _SHOWN[prompt.key]
        found = judge.prefer(texts[shown["1"]], texts[shown["2"]])
        winner = found.winner
        if winner == "tie" and not self.spec.allow_tie:
            # A judge that cannot tell them apart, and may not say so, names the answer shown
            # first: its two orders then disagree, and it abstains.
            winner = "1"
        return {"reason": f"[{judge.name}] {found.why}", "winner": winner}

    def combine(self, case: Case, ballots: Sequence[tuple[Prompt, Ballot]]) -> Ballot | str:
        by_order = {prompt.key: ballot for prompt, ballot in ballots}
        if sorted(by_order) != sorted(ORDERS) or len(ballots) != len(ORDERS):
            raise ValueError(f"pairwise expects one ballot per order {ORDERS}")
        first, second = (by_order[key].scores[METRIC] for key in ORDERS)
        if first != second:
            return (
                f"position bias: with A shown first it chose {first}, with B shown first "
                f"{second}; a juror whose two orders disagree abstains"
            )
        return Ballot(
            scores={METRIC: first},
            reason=f"A first: {by_order['AB'].reason} | B first: {by_order['BA'].reason}",
            details={
                "ballots": {key: dict(by_order[key].scores) for key in ORDERS},
                "position_consistent": True,
            },
        )

    def decide(self, case: Case, results: Mapping[str, MetricResult]) -> Decision:
        result = results[METRIC]
        if result.value is not None:
            return self._decision(result.value)
        # An even split the tie policy left open still decides the case when every tied
        # winner gives the same verdict (a tie between A and "tie" passes by default).
        split = f"jurors split evenly between {' and '.join(map(str, result.tied))}"
        outcomes = {self._decision(value).verdict for value in result.tied}
        if len(outcomes) == 1:
            return Decision(outcomes.pop(), (split,))
        return Decision(Verdict.INCONCLUSIVE, (split,))

    def _decision(self, winner: Score) -> Decision:
        said = "a tie" if winner == "tie" else f"{winner} is better"
        if winner in self.spec.pass_when:
            return Decision(Verdict.PASS, (said,))
        wanted = " or ".join("a tie" if w == "tie" else w for w in self.spec.pass_when)
        return Decision(Verdict.FAIL, (f"{said}; a pass needs {wanted}",))

    def fingerprint(self) -> str:
        return fingerprint(self.spec)


@dataclass(frozen=True, slots=True)
class PositionConsistency:
    """How often one juror's two orders agreed: `consistent` of `judged` cases."""

    consistent: int = 0
    judged: int = 0

    @property
    def rate(self) -> float | None:
        return self.consistent / self.judged if self.judged else None


def position_consistency(verdicts: Iterable[CaseVerdict]) -> dict[str, PositionConsistency]:
    """Each juror's position consistency over pairwise verdicts.

    A case counts for a juror when both its orders were read (a valid vote or an abstention
    for position bias); invalid and unavailable votes say nothing about order and are left
    out. With several samples, a vote's ballots are those of its deciding sample.
    """
    counts: dict[str, list[int]] = {}
    for verdict in verdicts:
        for vote in verdict.votes:
            ballots = vote.details.get("ballots")
            if not isinstance(ballots, Mapping) or not all(k in ballots for k in ORDERS):
                continue
            tally = counts.setdefault(vote.juror, [0, 0])
            tally[1] += 1
            tally[0] += ballots["AB"].get(METRIC) == ballots["BA"].get(METRIC)
    return {juror: PositionConsistency(c, n) for juror, (c, n) in sorted(counts.items())}


def from_toml(data: dict[str, Any], source: str) -> PairwiseRubric:
    return build(PairwiseRubric, PairwiseFile, data, source)
