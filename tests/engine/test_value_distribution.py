"""A vote carries each metric's distribution over its values (`Vote.value_distribution`),
read from the same log-probabilities or samples as its verdict's: what a learned jury fitted
on a metric reads as its soft source (issue 21)."""

from __future__ import annotations

import json
import math

import pytest

from conftest import case, scores, scripted
from jury import Juror, Jury, Panel
from jury.adapters import JudgeReply, JudgeRequest, TokenLogprob, Usage
from jury.testing import ScriptedModel


def unsure_correctness(request: JudgeRequest) -> JudgeReply:
    """A five-metric reply whose correctness is 4 with probability 0.6, 3 with 0.4; every
    other token near certain."""
    text = json.dumps(scores(5, correctness=4))
    head, _, tail = text.partition('"correctness": 4')
    sure = math.log(0.9999)
    pieces = [
        TokenLogprob(head, sure, ((head, sure),)),
        TokenLogprob('"correctness":', sure, (('"correctness":', sure),)),
        TokenLogprob(" 4", math.log(0.6), ((" 4", math.log(0.6)), (" 3", math.log(0.4)))),
        TokenLogprob(tail, sure, ((tail, sure),)),
    ]
    return JudgeReply(text=text, model="scripted/judge", usage=Usage(1, 1), logprobs=tuple(pieces))


async def test_a_vote_read_with_logprobs_carries_each_metrics_distribution() -> None:
    panel = Panel(
        jurors=(Juror(model=ScriptedModel(unsure_correctness), logprobs=True),),
        rubric="five-metric",
    )
    async with Jury(panel) as jury:
        vote = (await jury.judge(case())).votes[0]
    assert vote.value_distribution is not None
    assert vote.value_distribution["correctness"] == pytest.approx({"3": 0.4, "4": 0.6})
    # A metric the judge wrote without alternatives is certain of its value.
    assert vote.value_distribution["relevance"] == pytest.approx({"5": 1.0})


async def test_without_logprobs_each_metrics_distribution_is_the_share_of_samples() -> None:
    replies = [scores(5), scores(5), scores(2), scores(5)]
    panel = Panel(
        jurors=(Juror(model=scripted(replies, cycle=False), samples=4),), rubric="five-metric"
    )
    async with Jury(panel) as jury:
        vote = (await jury.judge(case())).votes[0]
    assert vote.value_distribution is not None
    assert vote.value_distribution["correctness"] == pytest.approx({"2": 0.25, "5": 0.75})


async def test_a_single_sample_without_logprobs_has_no_value_distribution() -> None:
    panel = Panel(jurors=(Juror(model=scripted([scores(5)])),), rubric="five-metric")
    async with Jury(panel) as jury:
        vote = (await jury.judge(case())).votes[0]
    assert vote.value_distribution is None
