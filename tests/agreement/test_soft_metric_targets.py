"""The soft source for every target the learned jury fits, not only "pass" (issue 21): where a
vote carries its metric's distribution (`Vote.value_distribution`, from log-probabilities or
samples), each class's probability is a source beside the hard votes."""

from __future__ import annotations

import numpy as np

from jury import Case, CaseVerdict, Verdict, Vote, VoteStatus, load_rubric
from jury.agreement._evidence import labelled_table
from jury.agreement._fitting import fit_jury
from jury.decide._learned import SOFT, signals

PAIRWISE = load_rubric("pairwise-preference")
SCALE = load_rubric("five-metric")


def pairwise_vote(juror: str, winner: str, sure: float | None) -> Vote:
    """A pairwise vote that named `winner` in both orders; with `sure`, the probability it
    gave that winner (the rest to the other answer)."""
    other = "B" if winner == "A" else "A"
    return Vote(
        juror=juror,
        status=VoteStatus.VALID,
        scores={"winner": winner},
        verdict=Verdict.PASS if winner == "A" else Verdict.FAIL,
        details={"ballots": {"AB": {"winner": winner}, "BA": {"winner": winner}}},
        value_distribution=None if sure is None else {"winner": {winner: sure, other: 1 - sure}},
    )


def tied_pairwise(soft: bool, count: int = 160) -> tuple[list[Case], list[CaseVerdict]]:
    """Two seats that name opposite winners on every case (their hard votes always tie); the
    seat that is right is the surer one (0.9 against 0.6)."""
    rng = np.random.default_rng(11)
    cases, verdicts = [], []
    for i in range(count):
        truth = "A" if rng.random() < 0.5 else "B"
        wrong = "B" if truth == "A" else "A"
        right_one = "left" if rng.random() < 0.5 else "right"
        votes = tuple(
            pairwise_vote(
                juror,
                truth if juror == right_one else wrong,
                (0.9 if juror == right_one else 0.6) if soft else None,
            )
            for juror in ("left", "right")
        )
        cases.append(Case(id=f"c{i}", answer="a", answer_b="b", labels={"winner": truth}))
        verdicts.append(CaseVerdict(case_id=f"c{i}", verdict=Verdict.INCONCLUSIVE, votes=votes))
    return cases, verdicts


def test_a_pairwise_vote_gives_each_winner_its_probability_as_a_source() -> None:
    case = Case(id="c", answer="a", answer_b="b")
    found = signals(case, [pairwise_vote("left", "B", 0.7)], PAIRWISE, "winner")
    # Three classes (A, B, tie): a source per class, each its probability's bin.
    assert found == {
        ("left", "AB"): "B",
        ("left", "BA"): "B",
        ("left", f"{SOFT}:A"): "0.2",
        ("left", f"{SOFT}:B"): "0.6",
        ("left", f"{SOFT}:tie"): "0.0",
    }
    hard = signals(case, [pairwise_vote("left", "B", None)], PAIRWISE, "winner")
    assert hard == {("left", "AB"): "B", ("left", "BA"): "B"}


def test_a_winner_fit_on_probabilities_separates_what_its_hard_votes_cannot() -> None:
    accuracy = {}
    for soft in (False, True):
        cases, verdicts = tied_pairwise(soft)
        table = labelled_table(cases, verdicts, PAIRWISE, "winner")
        result = fit_jury(table, {"left": 1, "right": 1}, PAIRWISE, model="stacked")
        accuracy[soft] = result.stages[0].method("stacked").accuracy_all
        if soft:
            assert result.fit is not None
            orders = {s.order for s in result.fit.stage[0].source}
            assert {f"{SOFT}:A", f"{SOFT}:B"} <= orders
    # Hard votes alone are a coin here; the probabilities tell which seat is right.
    assert accuracy[False] <= 0.6
    assert accuracy[True] >= 0.95


def test_a_score_target_reads_the_probability_of_each_score() -> None:
    case = Case(id="c", answer="a")
    vote = Vote(
        juror="j",
        status=VoteStatus.VALID,
        scores={"correctness": 4},
        verdict=Verdict.PASS,
        value_distribution={"correctness": {"4": 0.6, "3": 0.4}},
    )
    found = signals(case, [vote], SCALE, "correctness")
    assert found[("j", None)] == "4"
    soft = {order: value for (_, order), value in found.items() if order is not None}
    assert soft == {
        f"{SOFT}:1": "0.0",
        f"{SOFT}:2": "0.0",
        f"{SOFT}:3": "0.4",
        f"{SOFT}:4": "0.6",
        f"{SOFT}:5": "0.0",
    }
    # The pass target still reads the verdict's distribution alone, as before.
    assert ("j", SOFT) not in signals(case, [vote], SCALE, "pass")
