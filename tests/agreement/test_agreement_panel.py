"""Ratings from verdicts, the juror x juror matrix, each juror against the panel and against
labels, the effective number of judges, stability across samples, and the run summary."""

from __future__ import annotations

import numpy as np
import pytest

from agreement_helpers import METRICS, case, judge, juror, vote
from jury import Case, Verdict, VoteStatus, load_rubric
from jury.adapters import Metric
from jury.agreement import (
    VERDICT,
    Ratings,
    cohen_kappa,
    effective_judges,
    juror_agreement,
    krippendorff_alpha,
    pairwise,
    stability,
    summarize_agreement,
)


def _metrics() -> tuple[Metric, ...]:
    return load_rubric("five-metric").metrics(Case(id="any", answer=""))


def _metric(name: str = "correctness") -> Metric:
    return next(m for m in _metrics() if m.name == name)


def test_only_valid_votes_are_ratings_everything_else_is_missing() -> None:
    verdicts = [
        case(
            "c1",
            vote("a", correctness=5),
            vote("b", VoteStatus.UNAVAILABLE),
            vote("c", VoteStatus.INVALID),
        ),
        case("c2", vote("a", correctness=2), vote("b", correctness=3), vote("c", correctness=3)),
        case("c3", vote("a", VoteStatus.ABSTAINED), vote("b", correctness=1)),
    ]
    ratings = Ratings.from_verdicts(verdicts, _metric())
    assert ratings.raters == ("a", "b", "c")
    assert ratings.units == ("c1", "c2", "c3")
    assert ratings.rows() == [[5, None, None], [2, 3, 3], [None, 1, None]]
    assert ratings.level == "ordinal"
    # The declared 1-5 scale is the value domain, used or not.
    assert ratings.values == (1, 2, 3, 4, 5)


def test_an_unavailable_juror_is_missing_not_zero() -> None:
    agreeing = [
        case(f"c{i}", vote("a", correctness=s), vote("b", correctness=s))
        for i, s in enumerate([1, 2, 3, 4, 5, 4, 3])
    ]
    down = [case("x", vote("a", correctness=5), vote("b", VoteStatus.UNAVAILABLE))]
    alpha = krippendorff_alpha(Ratings.from_verdicts(agreeing + down, _metric()))
    # Had the missing vote been a 0 (or 1, "fail"), agreement would drop below 1.
    assert alpha.value == 1.0
    assert alpha.units == 7


def test_verdict_ratings_use_each_jurors_own_pass_fail() -> None:
    verdicts = [
        case("c1", vote("a", verdict=Verdict.PASS), vote("b", verdict=Verdict.FAIL)),
        case("c2", vote("a", verdict=Verdict.INCONCLUSIVE), vote("b", verdict=Verdict.PASS)),
    ]
    ratings = Ratings.from_verdicts(verdicts, VERDICT)
    assert ratings.rows() == [["PASS", "FAIL"], [None, "PASS"]]
    assert ratings.level == "nominal"


def test_pairwise_matrix_and_the_juror_that_disagrees_most() -> None:
    rng = np.random.default_rng(1)
    truth = rng.integers(1, 6, size=80)
    noisy = np.where(rng.random(80) < 0.7, rng.integers(1, 6, size=80), truth)
    rows = [[int(t), int(t), int(t), int(n)] for t, n in zip(truth, noisy, strict=True)]
    rows[0][1] = None  # type: ignore[call-overload]
    ratings = Ratings.from_rows(
        rows, level="ordinal", values=[1, 2, 3, 4, 5], raters=["a", "b", "c", "odd"]
    )
    matrix = pairwise(ratings)
    assert matrix.statistic == "cohen_kappa[linear]"
    assert matrix.get("a", "b").value == 1.0
    assert matrix.get("a", "b").units == 79
    assert matrix.get("a", "odd") == matrix.get("odd", "a")
    assert matrix.get("a", "odd").value == pytest.approx(
        cohen_kappa(ratings.select(["a", "odd"]), weights="linear").value
    )
    jurors = juror_agreement(ratings, matrix)
    assert jurors[0].juror == "odd"
    overall = krippendorff_alpha(ratings).value
    assert overall is not None
    assert jurors[0].alpha_without.value == 1.0 > overall
    assert jurors[-1].alpha_without.value is not None
    assert jurors[-1].alpha_without.value < 1.0


def test_effective_judges_nine_that_vote_like_two() -> None:
    rng = np.random.default_rng(2)
    units = 400
    gold = rng.integers(1, 6, size=units)
    # Two independent error sources; jurors 0-4 share the first, 5-8 the second.
    shared = [rng.normal(0, 1, size=units) for _ in range(2)]
    rows = []
    for u in range(units):
        row = []
        for j in range(9):
            error = shared[0 if j < 5 else 1][u] + rng.normal(0, 0.05)
            row.append(float(gold[u]) + error)
        rows.append(row)
    ratings = Ratings.from_rows(rows, level="interval")
    labels = {unit: float(g) for unit, g in zip(ratings.units, gold, strict=True)}
    result = effective_judges(ratings, labels, bootstrap=200)
    assert result.jurors == 9
    assert result.pairs == 36
    assert result.effective.value is not None
    # Within-group pairs correlate ~1, across groups ~0: mean r = 16/36, n_eff = 9/(1+8r) ~ 2.
    assert result.mean_error_correlation.value == pytest.approx(16 / 36, abs=0.05)
    assert result.effective.value == pytest.approx(9 / (1 + 8 * 16 / 36), abs=0.25)
    assert result.effective.low is not None
    assert result.effective.low <= result.effective.value

    independent = Ratings.from_rows(
        [[float(g) + rng.normal() for _ in range(9)] for g in gold], level="interval"
    )
    alone = effective_judges(independent, labels)
    assert alone.effective.value == pytest.approx(9, abs=1.5)


def test_effective_judges_undefined_when_no_errors_vary() -> None:
    ratings = Ratings.from_rows([[1, 1], [2, 2], [3, 3]], level="ordinal")
    labels = dict(zip(ratings.units, [1, 2, 3], strict=True))
    result = effective_judges(ratings, labels)
    assert result.effective.value is None
    assert result.effective.reason == "no pair of jurors has errors that vary on cases both rated"


async def test_stability_across_samples_from_a_real_run() -> None:
    # "steady" always gives 4; "wobbly" gives 4, 4, 2 on odd cases (samples split 2-1, so
    # its median is 4 and it still votes); "even" splits 2-2 on c3 and abstains.
    verdicts = await judge(
        ["c1", "c2", "c3", "c4"],
        [
            juror("steady", lambda c, s: 4),
            juror("wobbly", lambda c, s: 2 if c in ("c1", "c3") and s == 2 else 4),
            juror("even", lambda c, s: 5 if c == "c3" and s % 2 else 3),
        ],
        samples=4,
    )
    by_id = {v.case_id: v for v in verdicts}
    even_c3 = next(v for v in by_id["c3"].votes if v.juror == "even")
    assert even_c3.status is VoteStatus.ABSTAINED
    assert [b.verdict for b in even_c3.samples] == [
        Verdict.FAIL,
        Verdict.PASS,
        Verdict.FAIL,
        Verdict.PASS,
    ]
    result = {s.juror: s for s in stability(verdicts, _metrics())}
    assert set(result) == {"steady", "wobbly", "even"}
    assert result["steady"].identical_verdicts.value == 1.0
    assert result["steady"].samples == 4
    assert result["steady"].alpha["correctness"].value is None  # no variation at all
    assert result["wobbly"].identical_verdicts.value == 0.5
    assert result["wobbly"].identical["correctness"].value == 0.5
    assert result["even"].cases == 4  # the abstained vote's samples count
    assert result["even"].identical_verdicts.value == 0.75
    alpha = result["wobbly"].alpha["correctness"]
    assert alpha.value is not None
    assert alpha.value < 0.5


async def test_summary_of_a_real_run_with_labels() -> None:
    scores = {"c1": 5, "c2": 2, "c3": 4, "c4": 1, "c5": 3, "c6": 5}
    verdicts = await judge(
        sorted(scores),
        [
            juror("a", lambda c, s: scores[c]),
            juror("b", lambda c, s: scores[c] if c != "c5" else 5),
            juror("c", lambda c, s: None if c == "c1" else 6 - scores[c]),
        ],
    )
    labels = {c: {"pass": v >= 4, "correctness": v} for c, v in scores.items()}
    summary = summarize_agreement(
        verdicts,
        _metrics(),
        labels=labels,
        bootstrap=100,
    )
    assert summary.jurors == ("a", "b", "c")
    assert set(summary.metrics) == set(METRICS)
    correctness = summary.metrics["correctness"]
    # c's reply on c1 is garbage: an invalid vote, a missing rating.
    assert correctness.pairwise.get("a", "c").units == 5
    assert correctness.jurors[0].juror == "c"
    assert correctness.widest[0].ratings["c"] is not None
    assert correctness.labels is not None
    assert correctness.labels.kappa["a"].value == 1.0
    assert correctness.labels.accuracy["a"].value == 1.0
    assert summary.verdict.metric == "verdict"
    assert summary.verdict.labels is not None
    assert summary.verdict.labels.accuracy["a"].value == 1.0
    assert summary.stability == ()
    data = summary.model_dump(mode="json")
    assert data["metrics"]["correctness"]["alpha"]["resamples"] == 100
