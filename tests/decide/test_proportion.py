"""The pass rate's interval and the sample sizes of `jury plan`, held to the reference
libraries: SciPy's ``binomtest(...).proportion_ci`` for Wilson and Clopper-Pearson,
statsmodels' power functions, and a seeded simulation of the McNemar test `jury compare` runs."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from extras import needs
from scipy.stats import binomtest

from jury.agreement import Interval, proportion_interval
from jury.agreement._power import (
    cases_for_drop,
    cases_for_interval,
    cases_for_paired_drop,
    cases_for_width,
    detectable_drop,
    independent_discordance,
    mcnemar_power,
    paired_discordance,
)
from jury.decide._proportion import IntervalMethod, cases_to_decide

COUNTS = [(0, 1), (1, 1), (0, 10), (1, 10), (5, 10), (9, 10), (10, 10), (37, 40), (29, 30)]
COUNTS += [(98, 100), (100, 100), (0, 100), (12, 250), (999, 1000)]


@pytest.mark.parametrize("method", ["wilson", "exact"])
@pytest.mark.parametrize("level", [0.8, 0.9, 0.95, 0.99])
@pytest.mark.parametrize(("k", "n"), COUNTS)
def test_the_interval_is_scipys_proportion_ci(method: str, level: float, k: int, n: int) -> None:
    ours = proportion_interval(k, n, method=method, level=level)  # type: ignore[arg-type]
    theirs = binomtest(k, n).proportion_ci(confidence_level=level, method=method)
    assert ours.low == pytest.approx(theirs.low, abs=1e-10)
    assert ours.high == pytest.approx(theirs.high, abs=1e-10)
    assert ours.estimate == k / n


@pytest.mark.parametrize("a", [1e-3, 0.03, 0.5, 1, 1.5, 7, 1e3, 1e6, 5e7])
@pytest.mark.parametrize("b", [1e-3, 0.5, 1, 2, 9, 1e4, 1e7])
def test_the_beta_quantile_is_scipys_from_tail_to_tail(a: float, b: float) -> None:
    # Clopper-Pearson's bounds without SciPy (issue 36): the standard-library beta quantile,
    # for fractional counts too (a case's share of passing repeats), held to SciPy's ppf.
    from scipy.stats import beta

    from jury.decide._proportion import beta_quantile

    for p in (1e-9, 1e-5, 0.0005, 0.025, 0.3, 0.5, 0.975, 0.9995, 1 - 1e-9):
        ours = beta_quantile(p, a, b)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # Boost gives up at one point
            theirs = float(beta.ppf(p, a, b))
        if abs(ours - theirs) > 1e-10:
            # Where the two differ, ours is the root: SciPy's own CDF says so.
            assert abs(beta.cdf(ours, a, b) - p) < abs(beta.cdf(theirs, a, b) - p)


def test_the_beta_quantile_converges_for_a_tiny_share_of_passes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A review found the lower bound of 0.01 passes of 100 (a case's share of repeats) ending
    # on the step cap at 6e-73, where SciPy gives 2e-166: not converged, and not said.
    from scipy.stats import beta

    import jury.decide._proportion as proportion

    evaluations = 0
    cdf = proportion._beta_cdf

    def counted(x: float, a: float, b: float) -> float:
        nonlocal evaluations
        evaluations += 1
        return cdf(x, a, b)

    monkeypatch.setattr(proportion, "_beta_cdf", counted)
    for k, n in ((0.01, 100), (0.03, 100), (0.5, 10_000), (1, 10_000_000)):
        evaluations = 0
        ours = proportion.beta_quantile(0.025, k, n - k + 1)
        assert ours == pytest.approx(float(beta.ppf(0.025, k, n - k + 1)), rel=1e-6)
        assert evaluations < 100


def test_a_run_with_the_exact_interval_imports_no_scipy(tmp_path: Path) -> None:
    # The exact interval took SciPy's beta quantiles: 74 MB and 0.4 s imported into the
    # run of a gate that asked for it (issue 36).
    import os
    import shutil
    import subprocess
    import sys

    example = tmp_path / "shopnest"
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples" / "shopnest", example)
    panel = example / "jury.toml"
    with panel.open("a", encoding="utf-8") as out:
        out.write('\n[gate]\ninterval = "exact"\n')
    code = (
        "import asyncio, sys, jury; "
        f"run = asyncio.run(jury.run({str(example / 'cases.jsonl')!r}, jury={str(panel)!r}, "
        f"out={str(tmp_path / 'run')!r}, no_cache=True, no_html=True)); "
        "print([m for m in ('scipy', 'numpy') if m in sys.modules])"
    )
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=example,
    )
    assert done.stdout.split() == ["[]"]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))
    found = summary["pass_rate_interval"]
    assert found["method"] == "exact"
    theirs = binomtest(found["passed"], found["cases"]).proportion_ci(method="exact")
    assert (found["low"], found["high"]) == pytest.approx((theirs.low, theirs.high), abs=1e-10)


def test_both_hold_the_estimate_and_clopper_pearson_never_covers_less_than_its_level() -> None:
    from scipy.stats import binom

    for k, n in COUNTS:
        for method in ("wilson", "exact"):
            found = proportion_interval(k, n, method=method)
            assert found.low is not None
            assert found.high is not None
            assert found.low <= k / n <= found.high
    # Coverage counted exactly over every count: Clopper-Pearson's guarantee.
    for n in (10, 30):
        bands = [proportion_interval(k, n, method="exact") for k in range(n + 1)]
        for p in (0.5, 0.9, 0.98):
            coverage = sum(binom.pmf(k, n, p) for k, band in enumerate(bands) if band.contains(p))
            assert coverage >= 0.95


def test_all_passed_is_not_a_certainty() -> None:
    # Wald's p ± z·se says [100%, 100%] at 20 of 20; the score interval does not.
    found = proportion_interval(20, 20)
    assert found.high == 1.0
    assert found.low == pytest.approx(0.8389, abs=1e-4)


def test_no_case_gives_no_interval_not_zero() -> None:
    found = proportion_interval(0, 0)
    assert (found.estimate, found.low, found.high) == (None, None, None)
    assert found.text() == "95% Wilson -"


def test_a_fractional_count_lies_between_its_neighbours() -> None:
    # `jury compare` with repeats counts a case's share of passing repeats.
    for method in ("wilson", "exact"):
        below, middle, above = (proportion_interval(k, 30, method=method) for k in (20, 20.5, 21))
        assert below.low is not None
        assert middle.low is not None
        assert above.low is not None
        assert below.low < middle.low < above.low


@pytest.mark.parametrize(
    ("successes", "n", "level", "method"),
    [(3, 2, 0.95, "wilson"), (-1, 5, 0.95, "wilson"), (1, 5, 1.0, "wilson"), (1, 5, 0.9, "wald")],
)
def test_impossible_arguments_are_refused_by_name(
    successes: int, n: int, level: float, method: str
) -> None:
    with pytest.raises(ValueError, match=r"successes|level|interval"):
        proportion_interval(successes, n, method=method, level=level)  # type: ignore[arg-type]


def test_the_text_names_the_level_and_method() -> None:
    assert proportion_interval(37, 40).text() == "95% Wilson 80.1–97.4%"
    assert (
        proportion_interval(37, 40, method="exact", level=0.9)
        .text()
        .startswith("90% Clopper-Pearson ")
    )
    assert isinstance(proportion_interval(1, 2), Interval)


@pytest.mark.parametrize(("k", "n", "bar"), [(37, 40, 0.85), (36, 40, 0.85), (30, 40, 0.85)])
@pytest.mark.parametrize("method", ["wilson", "exact"])
def test_the_further_cases_are_the_fewest_that_decide_at_the_rate_seen(
    k: int, n: int, bar: float, method: str
) -> None:
    further = cases_to_decide(k, n, bar, method=method)  # type: ignore[arg-type]
    assert further is not None
    rate = k / n

    def decided(total: int) -> bool:
        found = proportion_interval(rate * total, total, method=method)  # type: ignore[arg-type]
        assert found.low is not None
        assert found.high is not None
        return found.low >= bar if rate > bar else found.high < bar

    assert decided(n + further)
    assert further == 0 or not decided(n + further - 1)


def test_a_rate_on_the_bar_is_never_decided_by_more_cases() -> None:
    assert cases_to_decide(36, 40, 0.9) is None


@pytest.mark.parametrize("rate", [0.5, 0.8, 0.9, 0.98])
@pytest.mark.parametrize("width", [0.01, 0.03, 0.05, 0.1])
@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
@needs("test")
def test_cases_for_a_width_are_statsmodels(rate: float, width: float, level: float) -> None:
    from statsmodels.stats.proportion import samplesize_confint_proportion

    reference = samplesize_confint_proportion(rate, width, alpha=1 - level)
    assert cases_for_width(rate, width, level=level) == math.ceil(reference)


@pytest.mark.parametrize("rate", [0.5, 0.9, 0.98, 1.0])
@pytest.mark.parametrize("width", [0.03, 0.05, 0.1])
@pytest.mark.parametrize("method", ["wilson", "exact"])
def test_cases_for_the_reports_interval_are_the_fewest_whose_interval_is_that_narrow(
    rate: float, width: float, method: IntervalMethod
) -> None:
    def half(n: int) -> float:
        found = proportion_interval(rate * n, n, method=method).half_width
        assert found is not None
        return found

    n = cases_for_interval(rate, width, method=method)
    assert half(n) <= width
    assert all(half(m) > width for m in range(1, n))
    if rate == 1.0:  # whole counts: SciPy's own interval says the same
        ci = binomtest(n, n).proportion_ci(method=method)
        assert (ci.high - ci.low) / 2 <= width
        before = binomtest(n - 1, n - 1).proportion_ci(method=method)
        assert (before.high - before.low) / 2 > width


def test_near_one_the_normal_approximation_asks_too_few_cases() -> None:
    assert cases_for_width(0.98, 0.05) == 31
    assert cases_for_interval(0.98, 0.05) == 52
    assert cases_for_width(1.0, 0.05) == 1  # p(1 - p) = 0: the approximation says nothing


@pytest.mark.parametrize(("rate", "drop"), [(0.9, 0.05), (0.5, 0.05), (0.95, 0.1), (0.7, 0.02)])
@pytest.mark.parametrize("level", [0.9, 0.95])
@pytest.mark.parametrize("power", [0.8, 0.9])
@needs("test")
def test_cases_for_a_drop_in_separate_sets_are_statsmodels(
    rate: float, drop: float, level: float, power: float
) -> None:
    from statsmodels.stats.power import NormalIndPower
    from statsmodels.stats.proportion import proportion_effectsize

    reference = NormalIndPower().solve_power(
        effect_size=proportion_effectsize(rate, rate - drop),
        alpha=1 - level,
        power=power,
        ratio=1.0,
        alternative="two-sided",
    )
    found = cases_for_drop(rate, drop, level=level, power=power)
    assert found == pytest.approx(reference, rel=1e-8)
    assert math.ceil(found) == math.ceil(reference)


def test_the_mcnemar_rejections_are_scipys_binomial_test_below_the_level() -> None:
    from jury.agreement._power import _rejection

    for alpha in (0.05, 0.1, 0.01):
        critical = _rejection(60, alpha)
        assert critical[0] == -1  # no discordant case: nothing to reject
        for m in range(1, 61):
            rejected = {k for k in range(m + 1) if binomtest(k, m).pvalue < alpha}
            c = int(critical[m])
            assert rejected == {k for k in range(m + 1) if k <= c or k >= m - c}, (alpha, m)


@pytest.mark.parametrize(("rate", "drop", "seen"), [(0.9, 0.05, None), (0.8, 0.1, 0.15)])
def test_the_paired_power_is_a_seeded_simulation_of_jury_compares_test(
    rate: float, drop: float, seen: float | None
) -> None:
    n = cases_for_paired_drop(rate, drop, discordance=seen)
    psi = paired_discordance(rate, drop, seen)
    exact = mcnemar_power(n, psi, drop)
    assert exact >= 0.8 > mcnemar_power(n - 1, psi, drop)
    rng = np.random.default_rng(35)
    draws = 3000
    discordant = rng.binomial(n, psi, draws)
    worse = rng.binomial(discordant, (psi + drop) / (2 * psi))
    rejected = sum(
        binomtest(int(k), int(m)).pvalue < 0.05 for k, m in zip(worse, discordant, strict=True)
    )
    # Four standard errors of a proportion near 0.8 over 3000 draws: about 0.03.
    assert rejected / draws == pytest.approx(exact, abs=4 * math.sqrt(0.16 / draws))


def test_more_discordance_needs_more_paired_cases() -> None:
    low = cases_for_paired_drop(0.9, 0.05, discordance=0.08)
    high = cases_for_paired_drop(0.9, 0.05, discordance=0.2)
    assert low < high
    # Independent verdicts are the most discordance a positive correlation leaves.
    assert independent_discordance(0.9, 0.05) == pytest.approx(0.9 * 0.15 + 0.85 * 0.1)


def test_the_detectable_drop_is_the_smallest_the_cases_reach_with_the_power() -> None:
    drop = detectable_drop(139, 0.9, paired=False)
    assert drop is not None
    assert cases_for_drop(0.9, drop) <= 139 < cases_for_drop(0.9, drop - 0.001)
    paired = detectable_drop(200, 0.9, discordance=0.1)
    assert paired is not None
    assert mcnemar_power(200, paired_discordance(0.9, paired, 0.1), paired) >= 0.8


@pytest.mark.parametrize(("rate", "drop"), [(0.9, 0.0), (0.9, 0.95), (1.2, 0.05)])
def test_a_drop_that_cannot_be_is_refused(rate: float, drop: float) -> None:
    with pytest.raises(ValueError, match=r"drop|pass rate"):
        cases_for_drop(rate, drop)


def test_a_small_drop_needs_the_exact_tests_cases_not_connors_approximation() -> None:
    # d = 1 point at 90 %: Connor's (1987) normal approximation says about 14,750 paired
    # cases; the exact test `jury compare` runs is conservative and needs more.
    from jury.agreement._power import _connor

    n = cases_for_paired_drop(0.9, 0.01)
    psi = independent_discordance(0.9, 0.01)
    assert mcnemar_power(n, psi, 0.01) >= 0.8 > mcnemar_power(n - 1, psi, 0.01)
    assert _connor(psi, 0.01, 0.05, 0.8) < n < 1.05 * _connor(psi, 0.01, 0.05, 0.8)
