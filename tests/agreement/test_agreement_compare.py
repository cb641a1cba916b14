"""Paired decisions on constructed runs: McNemar (exact), the sign test, Wilcoxon, and noise
measured between repeats of the same side."""

from __future__ import annotations

import pytest
from scipy.stats import binomtest, wilcoxon

from jury import CaseVerdict, MetricResult, Verdict
from jury.agreement._compare import compare_runs
from jury.panel._panel import CompareRules

P, F, UNDECIDED = Verdict.PASS, Verdict.FAIL, Verdict.INCONCLUSIVE


def run(
    verdicts: dict[str, Verdict], scores: dict[str, float] | None = None
) -> dict[str, CaseVerdict]:
    out = {}
    for case_id, verdict in verdicts.items():
        score = None if scores is None else scores.get(case_id)
        metrics = (
            {} if score is None else {"correctness": MetricResult(name="correctness", value=score)}
        )
        out[case_id] = CaseVerdict(case_id=case_id, verdict=verdict, metrics=metrics, score=score)
    return out


def ids(n: int) -> list[str]:
    return [f"c{i:03}" for i in range(n)]


def test_mcnemar_exact_on_discordant_cases() -> None:
    cases = ids(40)
    a = dict.fromkeys(cases, P)
    b = dict(a)
    for c in cases[:9]:
        b[c] = F  # 9 pass -> fail
    b[cases[9]] = F
    a[cases[10]] = F  # 1 fail -> pass
    result = compare_runs([run(a)], [run(b)])
    pass_rate = result.quantities[0]
    assert pass_rate.name == "pass rate"
    assert pass_rate.test == "McNemar (exact)"
    assert (pass_rate.improved, pass_rate.worsened) == (1, 10)
    assert pass_rate.p_value == pytest.approx(binomtest(1, 11, 0.5).pvalue)
    assert pass_rate.effect == pytest.approx(-9 / 40)
    assert pass_rate.call == "worse"
    assert [c.case_id for c in result.changes] == sorted(cases[:11])
    assert all(c.consistent for c in result.changes)
    assert result.worse == (pass_rate,)


def test_few_discordant_cases_are_not_significant_rather_than_noise() -> None:
    cases = ids(40)
    a = dict.fromkeys(cases, P)
    b = dict(a)
    b[cases[0]] = b[cases[1]] = F  # exact p = 0.5 for 2 vs 0
    result = compare_runs([run(a)], [run(b)])
    # No noise was measured (one run a side): the words say what the test found.
    assert result.quantities[0].noise_source == "none"
    assert result.quantities[0].call == "not significant"
    assert result.quantities[0].why == "p = 0.5 >= 0.05: not significant"


def test_inconclusive_cases_are_not_pairs() -> None:
    a = run({"x": P, "y": UNDECIDED})
    b = run({"x": F, "y": P, "z": P})
    result = compare_runs([a], [b])
    assert result.quantities[0].cases == 1
    assert result.only_b == ("z",)
    assert [c.case_id for c in result.changes] == ["x", "y"]


def test_ordinal_scores_use_the_sign_test_interval_scores_wilcoxon() -> None:
    cases = ids(30)
    a_scores = dict.fromkeys(cases, 3.0)
    b_scores = {c: 4.0 if i < 20 else 3.0 for i, c in enumerate(cases)}
    verdicts = dict.fromkeys(cases, P)
    result = compare_runs(
        [run(verdicts, a_scores)], [run(verdicts, b_scores)], levels={"correctness": "ordinal"}
    )
    by_name = {q.name: q for q in result.quantities}
    assert by_name["correctness"].test == "sign test"
    assert by_name["correctness"].p_value == pytest.approx(binomtest(20, 20, 0.5).pvalue)
    assert by_name["correctness"].call == "better"
    score = by_name["score"]
    assert score.test == "Wilcoxon signed-rank"
    assert score.p_value == pytest.approx(wilcoxon([1.0] * 20).pvalue)
    assert score.effect == pytest.approx(20 / 30)


def test_minimum_effect_is_applied_before_calling_a_change() -> None:
    cases = ids(200)
    a = dict.fromkeys(cases, P)
    b = dict(a)
    for c in cases[:12]:
        b[c] = F
    rules = CompareRules(min_effect=0.1)
    result = compare_runs([run(a)], [run(b)], rules)
    pass_rate = result.quantities[0]
    assert pass_rate.p_value is not None
    assert pass_rate.p_value < 0.05
    assert pass_rate.call == "below minimum effect"
    assert "minimum effect the rules set (0.1)" in pass_rate.why


def test_a_change_within_the_noise_between_repeats_is_not_called() -> None:
    cases = ids(100)
    # Side A, run twice with nothing changed: 30 cases flip between the repeats.
    a1 = dict.fromkeys(cases, P)
    a2 = {c: F if i < 30 else P for i, c in enumerate(cases)}
    # Side B fails those 30 in both repeats: significant, but no more than A's own noise.
    b = {c: F if i < 30 else P for i, c in enumerate(cases)}
    result = compare_runs([run(a1), run(a2)], [run(b), run(b)])
    pass_rate = result.quantities[0]
    assert pass_rate.test == "sign test"
    assert pass_rate.noise == pytest.approx(0.30)
    assert pass_rate.noise_source == "repeats"
    assert pass_rate.p_value is not None
    assert pass_rate.p_value < 0.05
    assert pass_rate.effect == pytest.approx(-0.15)
    assert pass_rate.call == "within noise"
    assert pass_rate.moved_between_repeats == 30
    assert "within the noise measured between repeats (0.3; 30 case(s) moved" in pass_rate.why
    assert result.unstable_a == tuple(cases[:30])
    assert result.unstable_b == ()
    assert len(result.changes) == 30
    assert not any(c.consistent for c in result.changes)
    assert {c.kind for c in result.changes} == {"flaky"}
    assert result.outcome == "passed"

    # The same loss against a side that does not move is called.
    steady = compare_runs([run(a1), run(a1)], [run(b), run(b)])
    assert steady.quantities[0].noise == 0
    assert steady.quantities[0].call == "worse"
    assert all(c.kind == "regression" for c in steady.changes)
    assert steady.outcome == "failed"


def test_noise_floor_from_the_rules_when_there_are_no_repeats() -> None:
    cases = ids(100)
    a = dict.fromkeys(cases, P)
    b = {c: F if i < 12 else P for i, c in enumerate(cases)}
    result = compare_runs([run(a)], [run(b)], CompareRules(noise=0.15))
    assert result.quantities[0].noise_source == "rules"
    assert result.quantities[0].call == "within noise"
    assert "noise floor the rules set (0.15)" in result.quantities[0].why
    assert compare_runs([run(a)], [run(b)]).quantities[0].noise_source == "none"
