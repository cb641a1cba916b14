"""PandaLM's recorded judges as a jury: a one-prompt preference rubric (1, 2 or a tie) and
replay records of gpt-3.5 and PandaLM-7B, with the three annotators' majority as the label.

PandaLM recorded one presentation order only, so this rubric asks one prompt; gpt-3.5's
"garbage" replies (25) are served as they were and read as invalid votes.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from jury import Ballot, Case, MetricResult, Verdict
from jury.adapters import Decision, Metric, Prompt, Rubric, case_fence, validate_model
from jury.providers.replay import Record

DATA_FILE = "pandalm_testset_multirater.jsonl"
LABEL = {0: "tie", 1: "1", 2: "2"}


class _Reply(BaseModel):
    reason: str
    winner: Literal["1", "2", "tie"]


class PreferenceRubric(Rubric):
    """Which response is better, in one order: "1", "2" or "tie"; PASS when response 1 wins."""

    kind = name = "pandalm-preference"
    winner = Metric(name="winner", level="nominal", values=("2", "tie", "1"))
    system = "Say which response is better. Reply with JSON only."

    def metrics(self, case: Case) -> tuple[Metric, ...]:
        return (self.winner,)

    def prompts(self, case: Case) -> tuple[Prompt, ...]:
        code = case_fence(case.answer or "", case.answer_b or "")
        user = (
            f"<r1-{code}>\n{case.answer}\n</r1-{code}>\n<r2-{code}>\n{case.answer_b}\n</r2-{code}>"
        )
        return (Prompt("answer", self.system, user, _Reply.model_json_schema(), self.name),)

    def read(self, case: Case, prompt: Prompt, data: Any) -> Ballot:
        reply = validate_model(_Reply, data)
        return Ballot(scores={"winner": reply.winner}, reason=reply.reason)

    def decide(self, case: Case, results: Mapping[str, MetricResult]) -> Decision:
        winner = results["winner"].value
        verdict = Verdict.INCONCLUSIVE if winner is None else Verdict.FAIL
        if winner == "1":
            verdict = Verdict.PASS
        return Decision(verdict, (f"winner: {winner}",))


PREFERENCE = PreferenceRubric()


def load_items(data: Path) -> list[dict[str, Any]]:
    with open(data / DATA_FILE, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def majority(item: Mapping[str, Any]) -> str | None:
    (label, count), *_ = Counter(item["human"]).most_common(1)
    return LABEL[label] if count >= 2 else None


def cases(items: Sequence[Mapping[str, Any]]) -> list[Case]:
    out = []
    for item in items:
        label = majority(item)
        out.append(
            Case(
                id=f"pandalm#{item['idx']}",
                question=f"{item['instruction']}\n{item['input']}",
                answer=str(item["response1"]),
                answer_b=str(item["response2"]),
                labels={"winner": label} if label else {},
            )
        )
    return out


def said(item: Mapping[str, Any], judge: str) -> str | None:
    """The judge's verdict as the rubric's value; None for an unreadable reply."""
    raw = item["gpt35_raw" if judge == "gpt35" else judge]
    if judge == "pandalm7b":
        return LABEL[int(raw)]
    return {"1": "1", "2": "2", "Tie": "tie"}.get(raw)


def records(items: Sequence[Mapping[str, Any]], judge: str) -> list[Record]:
    out = []
    for item in items:
        value = said(item, judge)
        reply = (
            json.dumps({"reason": f"recorded PandaLM verdict of {judge}", "winner": value})
            if value is not None
            else "garbage"
        )
        out.append(Record(case=f"pandalm#{item['idx']}", reply=reply, model=judge))
    return out
