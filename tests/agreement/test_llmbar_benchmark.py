"""The LLMBar benchmark's figures: single judges as the authors computed them, and the jury
through the engine and the replay provider, checked against a direct computation."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from benchmarks import llmbar
from jury import Verdict, VoteStatus

DATA = llmbar.find_data()
pytestmark = pytest.mark.skipif(
    DATA is None, reason="the LLMBar data (../shared/data/llmbar) is not on this machine"
)


@pytest.fixture(scope="module")
def items() -> list[dict[str, Any]]:
    assert DATA is not None
    return llmbar.load_items(DATA)


def test_every_published_single_judge_figure_is_reproduced(items: list[dict[str, Any]]) -> None:
    assert DATA is not None
    rows, mismatches = llmbar.check_published(items, DATA)
    assert rows == 349
    assert mismatches == []


def test_the_authors_count_none_against_accuracy_and_none_none_as_agreement(
    items: list[dict[str, Any]],
) -> None:
    # PaLM2 on LLMEval^2, where it has the most unparseable verdicts: the published figures
    # (66.0, 81.0) come out of these rules and not out of the obvious alternatives.
    judge = "PaLM2/Vanilla_NoRules"
    subset = [i for i in items if i["subset"] == "Processed/LLMEval^2"]
    figures = llmbar.alone(subset, judge)
    assert (figures.n, figures.accuracy, figures.positional_agreement) == (200, 66.0, 81.0)
    assert figures.unparseable == 36
    pairs = [
        (i["judges"][judge]["noswap"], i["judges"][judge]["swap"], str(i["gold"])) for i in subset
    ]
    readable = [(v, g) for a, b, g in pairs for v in (a, b) if v != "None"]
    without_none = 100 * sum(v == g for v, g in readable) / len(readable)
    none_never_agrees = 100 * sum(a == b != "None" for a, b, _ in pairs) / len(pairs)
    assert round(without_none, 1) != 66.0
    assert none_never_agrees == 72.5


def expected_vote(item: dict[str, Any], judge: str) -> tuple[VoteStatus, str | None]:
    """The swap-abstain rule, straight from the data."""
    verdicts = item["judges"][judge]
    if "None" in (verdicts["noswap"], verdicts["swap"]):
        return VoteStatus.INVALID, None
    if verdicts["noswap"] != verdicts["swap"]:
        return VoteStatus.ABSTAINED, None
    return VoteStatus.VALID, "A" if verdicts["noswap"] == "1" else "B"


async def test_the_jury_through_the_engine_matches_the_rule_applied_to_the_data(
    items: list[dict[str, Any]], tmp_path: Path
) -> None:
    verdicts = await llmbar.judge_with_jury(items, tmp_path, llmbar.JUDGES, quorum=1)
    by_case = {v.case_id: v for v in verdicts}
    assert len(by_case) == len(items) == 885
    for item in items:
        verdict = by_case[llmbar.case_id(item)]
        expected = {judge: expected_vote(item, judge) for judge in llmbar.JUDGES}
        votes = {vote.juror: vote for vote in verdict.votes}
        for judge, (status, winner) in expected.items():
            assert votes[judge].status is status, (item["subset"], item["idx"], judge)
            if winner is not None:
                assert votes[judge].scores == {"winner": winner}
        tally = Counter(w for _, w in expected.values() if w is not None)
        if not tally or tally["A"] == tally["B"]:
            assert verdict.verdict is Verdict.INCONCLUSIVE
        else:
            assert verdict.metrics["winner"].value == tally.most_common(1)[0][0]
    rows = llmbar.summarise(items, verdicts, list(llmbar.JUDGES))
    overall = rows[-1]
    assert overall.name == "all"
    assert overall.n == 885
    # Position consistency through the engine equals the data's on readable pairs.
    for judge in llmbar.JUDGES:
        readable = [i for i in items if "None" not in i["judges"][judge].values()]
        agree = sum(i["judges"][judge]["noswap"] == i["judges"][judge]["swap"] for i in readable)
        assert overall.consistency[judge] == (agree, len(readable))
        unparseable = sum(1 for i in items if "None" in i["judges"][judge].values())
        assert overall.invalid[judge] == unparseable
