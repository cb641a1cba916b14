"""Agreement between human labellers: the kappas and alpha the reference libraries give for
the same labels, the humans' majority, and the labeller who disagrees far more than judges."""

from __future__ import annotations

import random

import numpy as np
from extras import needs

from jury import CaseVerdict, Verdict, Vote, VoteStatus
from jury.adapters import Metric
from jury.agreement import Bootstrap
from jury.agreement._people import majority, people_agreement

PASS = Metric(name="pass", level="nominal", values=(False, True))
SCORE = Metric(name="correctness", level="ordinal", values=(1, 2, 3, 4, 5))

# Two labellers, twenty cases: pass/fail and a 1-5 score each.
ANA_PASS = [True, True, False, True, False, False, True, True, True, False] * 2
BO_PASS = [True, False, False, True, False, True, True, True, False, False] * 2
ANA_SCORE = [5, 4, 1, 4, 2, 1, 5, 4, 4, 2, 3, 4, 1, 5, 2, 2, 4, 5, 4, 1]
BO_SCORE = [5, 3, 2, 4, 2, 3, 4, 4, 2, 1, 3, 5, 1, 4, 1, 2, 4, 5, 3, 1]


def _two() -> dict[str, dict[str, dict[str, object]]]:
    return {
        f"c{n}": {
            "ana": {"pass": ANA_PASS[n], "correctness": ANA_SCORE[n]},
            "bo": {"pass": BO_PASS[n], "correctness": BO_SCORE[n]},
        }
        for n in range(20)
    }


@needs("test")
def test_two_labellers_get_the_kappa_scikit_learn_gives() -> None:
    import krippendorff
    from sklearn.metrics import cohen_kappa_score

    found = people_agreement(_two(), {"pass": PASS, "correctness": SCORE})
    kappa = found.keys["pass"].cohen_kappa
    assert kappa is not None
    assert kappa.value is not None
    assert np.isclose(kappa.value, cohen_kappa_score(ANA_PASS, BO_PASS))
    weighted = found.keys["correctness"].cohen_kappa
    assert weighted is not None
    assert weighted.value is not None
    # Linear weights on the declared 1-5 scale, as for the jurors against the labels.
    expected = cohen_kappa_score(ANA_SCORE, BO_SCORE, weights="linear", labels=[1, 2, 3, 4, 5])
    assert np.isclose(weighted.value, expected)
    assert found.keys["pass"].fleiss_kappa is None  # two labellers: Cohen's kappa
    alpha = found.keys["correctness"].alpha.value
    reference = krippendorff.alpha(
        reliability_data=[ANA_SCORE, BO_SCORE], level_of_measurement="ordinal"
    )
    assert alpha is not None
    assert np.isclose(alpha, reference)


@needs("test")
def test_three_labellers_get_fleiss_kappa_and_alpha_with_intervals() -> None:
    import krippendorff
    from statsmodels.stats.inter_rater import aggregate_raters
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    rng = random.Random(3)
    truth = [rng.random() < 0.5 for _ in range(30)]
    table = [[t if rng.random() < 0.8 else not t for _ in range(3)] for t in truth]
    labels = {
        f"c{n}": {who: {"pass": row[k]} for k, who in enumerate(("ana", "bo", "cy"))}
        for n, row in enumerate(table)
    }
    found = people_agreement(labels, {"pass": PASS}, bootstrap=Bootstrap(300))
    fleiss = found.keys["pass"].fleiss_kappa
    assert fleiss is not None
    assert fleiss.value is not None
    counts, _ = aggregate_raters(np.array(table, dtype=int))
    assert np.isclose(fleiss.value, sm_fleiss(counts))
    assert fleiss.low is not None
    assert fleiss.high is not None
    assert fleiss.low < fleiss.value < fleiss.high
    alpha = found.keys["pass"].alpha
    data = np.array(table, dtype=float).T
    assert alpha.value is not None
    assert np.isclose(alpha.value, krippendorff.alpha(data, level_of_measurement="nominal"))
    assert found.keys["pass"].cohen_kappa is None


def test_the_humans_majority_is_the_label_and_a_tie_is_none() -> None:
    assert majority([True, True, False]) == (True, True)
    assert majority([True, False]) == (False, None)
    labels = {
        "c1": {"ana": {"pass": True}, "bo": {"pass": True}, "cy": {"pass": False}},
        "c2": {"ana": {"pass": True}, "bo": {"pass": False}},
    }
    found = people_agreement(labels, {"pass": PASS})
    assert found.majority == {"c1": {"pass": True}}
    assert found.ties == ("c2 · pass",)


def _juror_votes(case_id: str, said: bool) -> CaseVerdict:
    verdict = Verdict.PASS if said else Verdict.FAIL
    votes = tuple(
        Vote(juror=name, status=VoteStatus.VALID, verdict=verdict) for name in ("j1", "j2")
    )
    return CaseVerdict(case_id=case_id, verdict=verdict, votes=votes)


def test_a_labeller_who_disagrees_far_more_than_the_judges_is_named() -> None:
    truth = [n % 3 != 0 for n in range(12)]
    labels = {}
    for n, t in enumerate(truth):
        careless = t if n % 2 else not t  # wrong on half the cases
        labels[f"c{n}"] = {"ana": {"pass": t}, "bo": {"pass": t}, "dan": {"pass": careless}}
    verdicts = [_juror_votes(f"c{n}", t) for n, t in enumerate(truth)]
    found = people_agreement(labels, {"pass": PASS}, verdicts)
    key = found.keys["pass"]
    assert key.outliers == ("dan",)
    assert key.disagreement["dan"] == 0.5
    assert key.jurors["dan"] == {"j1": 0.0, "j2": 0.0}
    assert key.disagreement["ana"] == 0.0


def test_of_two_labellers_the_one_the_judges_side_against_is_named() -> None:
    truth = [n % 3 != 0 for n in range(12)]
    labels = {
        f"c{n}": {"ana": {"pass": t}, "bo": {"pass": t if n % 2 else not t}}
        for n, t in enumerate(truth)
    }
    siding_with_bo = [_juror_votes(f"c{n}", labels[f"c{n}"]["bo"]["pass"]) for n in range(12)]
    found = people_agreement(labels, {"pass": PASS}, siding_with_bo)
    assert found.keys["pass"].outliers == ("ana",)


def test_no_labeller_is_named_when_the_judges_disagree_with_them_as_much() -> None:
    truth = [n % 3 != 0 for n in range(12)]
    labels = {
        f"c{n}": {"ana": {"pass": t}, "bo": {"pass": t if n % 2 else not t}}
        for n, t in enumerate(truth)
    }
    # Jurors that side with ana on some cases and with bo on others.
    mixed = [_juror_votes(f"c{n}", n % 2 == 0) for n in range(12)]
    found = people_agreement(labels, {"pass": PASS}, mixed)
    assert found.keys["pass"].outliers == ()


def test_one_labeller_leaves_every_statistic_undefined_saying_why() -> None:
    alone = {
        f"c{n}": {"ana": {"pass": ANA_PASS[n], "correctness": ANA_SCORE[n]}} for n in range(20)
    }
    found = people_agreement(alone, {"pass": PASS, "correctness": SCORE})
    for key in ("pass", "correctness"):
        cell = found.keys[key]
        for estimate in (cell.cohen_kappa, cell.fleiss_kappa, cell.alpha):
            assert estimate is not None
            assert estimate.value is None  # never a 1.0 for ana agreeing with herself
            assert estimate.reason is not None
            assert estimate.reason.startswith("only ana labelled")
        assert cell.cases == 0
    cohen = found.keys["pass"].cohen_kappa
    assert cohen is not None
    assert "needs two labellers" in (cohen.reason or "")
    assert found.majority["c0"] == {"pass": ANA_PASS[0], "correctness": ANA_SCORE[0]}


def test_a_key_only_one_of_two_labellers_gave_is_undefined_for_that_key_alone() -> None:
    labels = _two()
    for given in labels.values():
        del given["bo"]["correctness"]
    found = people_agreement(labels, {"pass": PASS, "correctness": SCORE})
    assert found.keys["pass"].cohen_kappa is not None
    assert found.keys["pass"].cohen_kappa.value is not None
    alpha = found.keys["correctness"].alpha
    assert alpha.value is None
    assert alpha.reason == "only ana labelled: alpha needs a case labelled by two or more people"
