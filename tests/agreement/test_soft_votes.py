"""The learned jury reads a seat's soft vote (the probability of its verdict, from
log-probabilities or the share of its samples) beside its hard vote (issue 21, item 3)."""

from __future__ import annotations

import numpy as np

from jury import Case, CaseVerdict, Verdict, Vote, VoteStatus, load_rubric
from jury.agreement._evidence import labelled_table
from jury.agreement._fitting import fit_jury
from jury.decide._learned import SOFT, signals

RUBRIC = load_rubric("grounded-answer")
OTHER = {Verdict.PASS: Verdict.FAIL, Verdict.FAIL: Verdict.PASS}


def soft_vote(juror: str, verdict: Verdict, probability: float | None) -> Vote:
    """A valid criterion vote; with `probability`, the probability it gave its verdict."""
    if probability is None:
        return Vote(
            juror=juror,
            status=VoteStatus.VALID,
            scores={"pass": verdict is Verdict.PASS},
            verdict=verdict,
        )
    other = OTHER[verdict]
    return Vote(
        juror=juror,
        status=VoteStatus.VALID,
        scores={"pass": verdict is Verdict.PASS},
        verdict=verdict,
        probability=probability,
        distribution={verdict.value: probability, other.value: 1 - probability},
        probability_from="logprobs",
    )


def tied_but_unequally_sure(
    with_probabilities: bool, count: int = 160
) -> tuple[list[Case], list[CaseVerdict]]:
    """Two seats that disagree on every case, so their hard votes are always tied; the seat
    that is right is the surer one (0.9 against 0.6)."""
    rng = np.random.default_rng(3)
    cases, verdicts = [], []
    for i in range(count):
        truth = Verdict.PASS if rng.random() < 0.5 else Verdict.FAIL
        right_one = "left" if rng.random() < 0.5 else "right"
        votes = []
        for juror in ("left", "right"):
            correct = juror == right_one
            said = truth if correct else OTHER[truth]
            sure = (0.9 if correct else 0.6) if with_probabilities else None
            votes.append(soft_vote(juror, said, sure))
        cases.append(Case(id=f"c{i}", answer="a", labels={"verdict": truth.value}))
        verdicts.append(
            CaseVerdict(case_id=f"c{i}", verdict=Verdict.INCONCLUSIVE, votes=tuple(votes))
        )
    return cases, verdicts


def test_a_soft_vote_is_a_source_beside_the_hard_vote() -> None:
    case = Case(id="c", answer="a")
    found = signals(case, [soft_vote("left", Verdict.FAIL, 0.7)], RUBRIC, "pass")
    # P(PASS) = 0.3: the bin from 0.2.
    assert found == {("left", None): "FAIL", ("left", SOFT): "0.2"}
    assert signals(case, [soft_vote("left", Verdict.FAIL, None)], RUBRIC, "pass") == {
        ("left", None): "FAIL"
    }


def test_a_fit_on_probability_carrying_votes_beats_the_hard_fit_where_hard_votes_tie() -> None:
    tiers = {"left": 1, "right": 1}
    accuracy = {}
    for soft in (False, True):
        cases, verdicts = tied_but_unequally_sure(with_probabilities=soft)
        table = labelled_table(cases, verdicts, RUBRIC, "pass")
        result = fit_jury(table, tiers, RUBRIC, model="stacked")
        accuracy[soft] = result.stages[0].method("stacked").accuracy_all
        if soft:
            assert result.fit is not None
            sources = {(s.juror, s.order) for s in result.fit.stage[0].source}
            assert ("left", SOFT) in sources
            assert ("right", SOFT) in sources
    # Hard votes alone cannot beat a coin here; the probabilities tell which seat is right.
    assert accuracy[False] <= 0.6
    assert accuracy[True] >= 0.95
