"""The run summary and the exit codes of the gate."""

from __future__ import annotations

import pytest

from jury import CallStats, CaseVerdict, Gate, Verdict, Vote, VoteStatus, summarize


def verdict(case_id: str, outcome: Verdict, category: str = "c") -> CaseVerdict:
    votes = (
        Vote(
            juror="a",
            status=VoteStatus.VALID,
            calls=CallStats(attempts=1, input_tokens=10, output_tokens=2, cost=None),
        ),
        Vote(juror="b", status=VoteStatus.UNAVAILABLE, calls=CallStats(attempts=3), error="503"),
    )
    return CaseVerdict(case_id=case_id, category=category, verdict=outcome, votes=votes)


@pytest.mark.parametrize(
    ("outcomes", "min_pass_rate", "code"),
    [
        ("PPP", 1.0, 0),
        ("PPF", 1.0, 1),
        ("PPI", 1.0, 3),
        ("PFI", 1.0, 1),  # a definite failure outranks inconclusive
        ("PPF", 0.6, 0),
        ("PFF", 0.6, 1),
        ("PIF", 0.6, 3),  # 1/3 for sure, 2/3 if the inconclusive one passes
        ("", 1.0, 0),
    ],
)
def test_exit_codes(outcomes: str, min_pass_rate: float, code: int) -> None:
    kinds = {"P": Verdict.PASS, "F": Verdict.FAIL, "I": Verdict.INCONCLUSIVE}
    summary = summarize(verdict(f"c{i}", kinds[o]) for i, o in enumerate(outcomes))
    assert summary.exit_code(Gate(min_pass_rate=min_pass_rate)) == code


def test_summary_counts_categories_and_jurors() -> None:
    summary = summarize(
        [
            verdict("a", Verdict.PASS, "policy"),
            verdict("b", Verdict.FAIL, "policy"),
            verdict("c", Verdict.INCONCLUSIVE, "tool"),
        ]
    )
    assert (summary.total, summary.passed, summary.failed, summary.inconclusive) == (3, 1, 1, 1)
    assert summary.by_category["policy"].failed_ids == ["b"]
    assert summary.by_category["tool"].inconclusive_ids == ["c"]
    assert [n.case_id for n in summary.failures] == ["b"]
    assert summary.jurors["a"].valid == 3
    assert summary.jurors["b"].unavailable == 3
    assert summary.jurors["b"].calls.attempts == 9
    assert summary.jurors["a"].calls.input_tokens == 30
    # A live juror's price is unknown here: the cost is unknown, never zero.
    assert summary.cost is None
