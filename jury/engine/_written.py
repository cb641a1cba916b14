"""What a judge wrote besides its scores: the thinking that cut a reply short, and its
strategy's fields (questions, its own answer, its reasoning)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .._verdict import Ballot
from ..adapters._request import JudgeReply
from ..adapters._rubric import Prompt

__all__ = ["generated_fields", "thought"]


def thought(reply: JudgeReply) -> str:
    """How much of a cut reply's output went on thinking, and, when most of it did (the
    budget went on thinking, not on the reply), what to change."""
    usage = reply.usage
    said = f", {usage.thinking_tokens} of the {usage.output_tokens} output tokens spent thinking"
    if usage.thinking_tokens * 2 >= usage.output_tokens:
        said += ": the budget went on thinking (raise the juror's max_tokens or lower its effort)"
    return said


def generated_fields(ballots: Sequence[tuple[Prompt, Ballot]]) -> Mapping[str, str]:
    """What the seat's strategy wrote before its verdicts, over one sample's prompts: each
    field by its name, or as ``<prompt>.<field>`` when the rubric asks several (pairwise
    asks both orders, and each order writes its own)."""
    if len(ballots) == 1:
        return ballots[0][1].generated
    return {f"{p.key}.{name}": text for p, b in ballots for name, text in b.generated.items()}
