"""What a fit learns from: each presentation order of a pairwise juror as a source of its own
(position bias learned, not ignored), and a metric of several values as the target."""

from __future__ import annotations

import numpy as np
import pytest

from jury import Case, CaseVerdict, ConfigError, Verdict, Vote, VoteStatus, load_rubric
from jury.agreement._evidence import Labelled, labelled_table
from jury.agreement._fitting import fit_jury, unheard, unlearnable
from jury.rubrics._pairwise import PairwiseFile, PairwiseRubric

PAIRWISE = PairwiseRubric(
    PairwiseFile(kind="pairwise", name="ab", allow_tie=False, pass_when=("A",))
)


def pairwise_vote(juror: str, ab: str, ba: str) -> Vote:
    ballots = {"AB": {"winner": ab}, "BA": {"winner": ba}}
    if ab != ba:
        return Vote(juror=juror, status=VoteStatus.ABSTAINED, details={"ballots": ballots})
    verdict = Verdict.PASS if ab == "A" else Verdict.FAIL
    return Vote(
        juror=juror,
        status=VoteStatus.VALID,
        scores={"winner": ab},
        verdict=verdict,
        details={"ballots": ballots},
    )


def test_each_presentation_order_is_weighed_on_its_own() -> None:
    rng = np.random.default_rng(0)
    other = {"A": "B", "B": "A"}

    def said(gold: str, accuracy: float) -> str:
        return gold if rng.random() < accuracy else other[gold]

    cases, verdicts = [], []
    for i in range(300):
        gold = "A" if rng.random() < 0.5 else "B"
        votes = (
            # Reads the answers when A is shown first; names whatever is shown first otherwise.
            pairwise_vote("half", said(gold, 0.9), "B"),
            # Names whatever is shown first, in both orders: no information at all.
            pairwise_vote("first", "A", "B"),
            pairwise_vote("fair", said(gold, 0.7), said(gold, 0.7)),
        )
        cases.append(Case(id=f"c{i}", answer="a", answer_b="b", labels={"winner": gold}))
        verdicts.append(CaseVerdict(case_id=f"c{i}", verdict=Verdict.PASS, votes=votes))
    table = labelled_table(cases, verdicts, PAIRWISE, "winner")
    result = fit_jury(table, dict.fromkeys(("half", "first", "fair"), 1), PAIRWISE, model="weights")
    assert result.fit is not None
    weights = {(s.juror, s.order): s.weight or 0.0 for s in result.fit.stage[0].source}
    assert weights[("half", "AB")] > 1.5
    assert abs(weights[("half", "BA")]) < 0.4
    assert abs(weights[("first", "AB")]) < 0.4
    assert abs(weights[("first", "BA")]) < 0.4
    stage = result.stages[0]
    learned = stage.method("weights").accuracy_all
    # The swap-abstain majority throws "half" away whenever its orders disagree.
    assert learned > stage.method("naive majority").accuracy_all + 0.15
    assert learned > stage.method("fair").accuracy_all


def test_a_metric_of_five_values_is_learned_as_five_classes() -> None:
    rubric = load_rubric("five-metric")
    rng = np.random.default_rng(1)
    cases, verdicts = [], []
    for i in range(200):
        truth = int(rng.integers(1, 6))
        votes = []
        for juror, noise in (("sharp", 0.1), ("soft", 0.6), ("blunt", 0.8)):
            value = truth if rng.random() > noise else int(rng.integers(1, 6))
            scores = dict.fromkeys(("relevance", "faithfulness", "helpfulness"), 4)
            scores |= {"correctness": value, "hallucinationFree": 4}
            votes.append(
                Vote(juror=juror, status=VoteStatus.VALID, scores=scores, verdict=Verdict.PASS)
            )
        cases.append(Case(id=f"c{i}", answer="a", labels={"correctness": truth}))
        verdicts.append(CaseVerdict(case_id=f"c{i}", verdict=Verdict.PASS, votes=tuple(votes)))
    table = labelled_table(cases, verdicts, rubric, "correctness")
    assert table.classes == (1, 2, 3, 4, 5)
    result = fit_jury(table, dict.fromkeys(("sharp", "soft", "blunt"), 1), rubric, model="stacked")
    assert result.fit is not None
    assert all(len(s.scores["3"]) == 5 for s in result.fit.stage[0].source if "3" in s.scores)
    stage = result.stages[0]
    assert stage.method("stacked").accuracy_all >= stage.method("naive majority").accuracy_all
    assert stage.method("stacked").accuracy_all > 0.85


def test_a_target_no_juror_gives_a_value_is_unheard_and_fit_jury_refuses_it() -> None:
    table = Labelled("winner", ("A", "B"), labels=[0, 1] * 15, rows=[{} for _ in range(30)])
    assert unlearnable([table.keys[i] for i in table.labels]) is None  # labels enough to learn
    assert unheard(table) == (
        "no juror's vote gives it a value on any labelled case (nothing to learn from)"
    )
    with pytest.raises(ConfigError, match=r"^winner: no juror's vote gives it a value"):
        fit_jury(table, {"a": 1}, PAIRWISE)
