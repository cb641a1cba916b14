"""The fitting behind the learned jury, checked against independent implementations:
scikit-learn's logistic regression and isotonic regression, brute-force naive Bayes for
Dawid-Skene's table, and simulation for the fixed-sequence guarantee."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from extras import needs

from jury.agreement._learn import (
    columns_of,
    design,
    fit_dawid_skene,
    fit_logistic,
    fit_stacked,
    fit_weights,
    softmax,
)
from jury.agreement._selective import calibrated, curve, fixed_sequence, isotonic_steps
from jury.decide._learned import SourceKey


def src(juror: str) -> SourceKey:
    return (juror, None)


@needs("test")
@pytest.mark.parametrize("classes", [2, 3, 5])
@pytest.mark.parametrize("penalty", [0.01, 1.0, 100.0])
def test_stacked_logistic_regression_is_scikit_learns(classes: int, penalty: float) -> None:
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(classes)
    x = (rng.random((240, 12)) < 0.3).astype(np.float64)
    y = rng.integers(0, classes, 240)
    intercept, coef = fit_logistic(x, y, classes, penalty)
    reference = LogisticRegression(C=penalty, tol=1e-10, max_iter=10_000).fit(x, y)
    ours = softmax(x @ coef + intercept)
    assert np.abs(ours - reference.predict_proba(x)).max() < 1e-6
    if classes > 2:
        # The coefficients are identified (the penalty centres them across classes).
        assert np.abs(coef - reference.coef_.T).max() < 1e-4


def test_the_stacked_model_is_reproducible_for_a_seed() -> None:
    rows = [{src("a"): "PASS" if i % 3 else "FAIL", src("b"): "PASS"} for i in range(60)]
    labels = [int(i % 3 != 0) for i in range(60)]
    first, c1 = fit_stacked(rows, labels, 2, folds=5, rng=np.random.default_rng(4))
    second, c2 = fit_stacked(rows, labels, 2, folds=5, rng=np.random.default_rng(4))
    assert c1 == c2
    assert np.array_equal(first.coef, second.coef)


def test_log_odds_weights_follow_the_smoothed_accuracy() -> None:
    keys = ["FAIL", "PASS"]
    # "good" is right on 9 of 10, "coin" on 5 of 10, "liar" on 1 of 10.
    rows = []
    labels = []
    for i in range(10):
        truth = i % 2
        rows.append(
            {
                src("good"): keys[truth] if i else keys[1 - truth],
                src("coin"): keys[truth] if i < 5 else keys[1 - truth],
                src("liar"): keys[1 - truth] if i else keys[truth],
            }
        )
        labels.append(truth)
    model = fit_weights(rows, labels, keys)
    assert model.weights is not None
    weight, accuracy, rated = model.weights[src("good")]
    assert (accuracy, rated) == ((9 + 1) / (10 + 2), 10)
    assert weight == pytest.approx(math.log(accuracy / (1 - accuracy)))
    assert model.weights[src("coin")][0] == pytest.approx(0.0)
    assert model.weights[src("liar")][0] < 0  # a juror wrong more than chance counts against


def test_a_missing_vote_adds_nothing_to_any_class() -> None:
    rows = [{src("a"): "PASS", src("b"): "FAIL"}, {src("a"): "FAIL"}]
    columns = columns_of(rows)
    matrix = design(rows, columns)
    assert matrix[1].sum() == 1  # b's missing vote is a row of zeros, never a "FAIL"
    model = fit_weights(rows * 5, [1, 0] * 5, ["FAIL", "PASS"])
    scores = model.scores([{src("a"): "FAIL"}])
    alone = model.scores([{src("a"): "FAIL", src("b"): "nonsense"}])
    assert np.array_equal(scores, alone)  # a value never seen adds nothing either


def test_dawid_skene_recovers_the_raters_accuracies_without_labels() -> None:
    rng = np.random.default_rng(0)
    accuracy = {"a": 0.9, "b": 0.75, "c": 0.6, "d": 0.55}
    truth = rng.integers(0, 2, 3000)
    keys = ["FAIL", "PASS"]
    rows = [
        {src(r): keys[t if rng.random() < p else 1 - t] for r, p in accuracy.items()} for t in truth
    ]
    model, posterior = fit_dawid_skene(rows, keys)
    prior = np.exp(model.intercept)
    for rater, p in accuracy.items():
        # Its confusion matrix's diagonal, weighted by the class priors: its accuracy.
        right = [
            np.exp(model.coef[model.columns.index((src(rater), key)), k])
            for k, key in enumerate(keys)
        ]
        assert float(prior @ np.array(right)) == pytest.approx(p, abs=0.03)
    assert np.mean(posterior.argmax(1) == truth) >= 0.88
    # The table decides as naive Bayes with its own parameters: score = log prior + sum log theta.
    assert np.allclose(softmax(model.scores(rows)), posterior, atol=1e-6)


@needs("test")
def test_isotonic_steps_are_scikit_learns_fit() -> None:
    from sklearn.isotonic import IsotonicRegression

    rng = np.random.default_rng(1)
    probability = np.round(rng.random(400), 2)
    correct = rng.random(400) < probability * 0.6 + 0.3
    steps = isotonic_steps(probability.tolist(), correct.tolist())
    reference = IsotonicRegression(increasing=True).fit(probability, correct.astype(float))
    for p in np.unique(probability):
        assert calibrated(steps, np.array([p]))[0] == pytest.approx(
            reference.predict([p])[0], abs=1e-9
        )
    # Rising, and mapping any probability (below the first step too).
    assert all(a[1] < b[1] for a, b in itertools.pairwise(steps))
    assert calibrated(steps, np.array([-1.0]))[0] == steps[0][1]


def test_fixed_sequence_testing_keeps_its_promise_in_simulation() -> None:
    # Confidence c: right with probability c. A threshold whose decided cases agree less than
    # the target must be chosen in at most `risk` of the trials (checked with a margin).
    rng = np.random.default_rng(2)
    target, risk, trials = 0.8, 0.1, 300
    broken = empty = 0
    for _ in range(trials):
        confidence = rng.uniform(0.5, 1.0, 300)
        correct = rng.random(300) < confidence
        kept = fixed_sequence(confidence.tolist(), correct.tolist(), target, risk)
        if kept is None:
            empty += 1
            continue
        # True agreement above threshold t, for c ~ U(0.5, 1): (1 + t) / 2.
        broken += (1 + kept.value) / 2 < target
    assert broken / trials <= risk
    assert empty < trials / 10  # and it is not vacuous: it usually decides


def test_fixed_sequence_testing_decides_nothing_when_the_target_is_out_of_reach() -> None:
    confidence = [0.9] * 50 + [0.6] * 50
    correct = [i % 2 == 0 for i in range(100)]  # 50 % right at every level
    assert fixed_sequence(confidence, correct, 0.85, 0.1) is None


def test_a_curve_reads_coverage_against_accuracy_most_confident_first() -> None:
    points = curve([0.9, 0.9, 0.6, None], [True, True, False, False])
    assert points == [(0.5, 1.0), (0.75, pytest.approx(2 / 3))]
