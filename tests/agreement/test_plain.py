"""The page's agreement figures in plain Python (`jury.agreement._plain`, issue 36), gathered
one verdict at a time in any order (`AgreementTally`), are the figures `summarize_agreement`
computes with NumPy over all the verdicts: the same values, the same bootstrap intervals from
the same draws, the same undefined statistics with the same reasons."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jury import CaseVerdict, Verdict, Vote, VoteStatus
from jury.adapters import Metric
from jury.adapters._rubric import Level
from jury.agreement import AgreementSummary, Estimate, summarize_agreement
from jury.agreement._plain import PageAgreement
from jury.agreement._tally import AgreementTally

SCALES: dict[str, list[int | float | str]] = {
    "nominal": ["calm", "curt", "warm"],
    "ordinal": [1, 2, 3, 4, 5],
    "interval": [0.0, 0.5, 2.0, 7.5],
    "ratio": [0, 1, 4, 9],
}


def _same(got: Estimate, want: Estimate) -> None:
    assert (got.statistic, got.units, got.reason) == (want.statistic, want.units, want.reason)
    assert (got.value is None) == (want.value is None)
    if want.value is not None:
        assert got.value == pytest.approx(want.value, rel=1e-9, abs=1e-12)


def _same_interval(got: Estimate, want: Estimate) -> None:
    _same(got, want)
    assert (got.resamples, got.undefined_resamples, got.confidence) == (
        want.resamples,
        want.undefined_resamples,
        want.confidence,
    )
    for mine, theirs in ((got.low, want.low), (got.high, want.high)):
        assert (mine is None) == (theirs is None)
        if theirs is not None:
            assert mine == pytest.approx(theirs, rel=1e-9, abs=1e-12)


def _python(code: str) -> str:
    """What `code` prints in a fresh interpreter (which modules it loads is the question)."""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return done.stdout.strip()


@st.composite
def _runs(draw: st.DrawFn) -> tuple[list[CaseVerdict], list[Metric] | None]:
    jurors = [f"j{i}" for i in range(draw(st.integers(2, 4)))]
    levels: list[Level] = draw(
        st.lists(
            st.sampled_from(["nominal", "ordinal", "interval", "ratio"]), min_size=1, max_size=3
        )
    )
    metrics = [Metric(name=f"m{i}_{level}", level=level) for i, level in enumerate(levels)]
    declared = draw(st.booleans())
    if declared:
        metrics = [
            Metric(name=m.name, level=m.level, values=tuple(SCALES[m.level])) for m in metrics
        ]
    # Few values per metric make constant columns (undefined statistics) common.
    used = {m.name: draw(st.integers(1, len(SCALES[m.level]))) for m in metrics}
    verdicts = []
    for index in range(draw(st.integers(0, 30))):
        votes = []
        for juror in jurors:
            status = draw(st.sampled_from([VoteStatus.VALID] * 4 + [VoteStatus.UNAVAILABLE]))
            if status is not VoteStatus.VALID:
                votes.append(Vote(juror=juror, status=status))
                continue
            scores = {
                m.name: SCALES[m.level][draw(st.integers(0, used[m.name] - 1))]
                for m in metrics
                if draw(st.integers(0, 5))
            }
            verdict = draw(st.sampled_from([Verdict.PASS, Verdict.FAIL, Verdict.INCONCLUSIVE]))
            votes.append(Vote(juror=juror, status=status, verdict=verdict, scores=scores))
        verdicts.append(CaseVerdict(case_id=f"c{index:02d}", verdict=Verdict.PASS, votes=votes))
    return verdicts, metrics if declared or draw(st.booleans()) else None


@settings(max_examples=150, deadline=None)
@given(_runs(), st.sampled_from([0, 1, 40]), st.sampled_from([0.9, 0.95]))
def test_the_page_figures_are_the_summarys(
    run: tuple[list[CaseVerdict], list[Metric] | None], resamples: int, confidence: float
) -> None:
    verdicts, metrics = run
    tally = AgreementTally()
    for verdict in reversed(verdicts):  # any order: the cases are taken in case-ID order
        tally.add(verdict)
    want = summarize_agreement(
        verdicts, metrics, bootstrap=resamples, confidence=confidence, seed=3, widest=0
    )
    _same_figures(tally.page(metrics, bootstrap=resamples, confidence=confidence, seed=3), want)


def _same_figures(got: PageAgreement, want: AgreementSummary) -> None:
    assert got.jurors == want.jurors
    # Inferred metrics come in the order the verdicts were added: the figures are the same.
    assert sorted(got.metrics) == sorted(want.metrics)
    for name, figures in {"verdict": got.verdict, **got.metrics}.items():
        expected = want.all()[name]
        assert (figures.metric, figures.level) == (expected.metric, expected.level)
        _same_interval(figures.alpha, expected.alpha)
        _same(figures.fleiss_kappa, expected.fleiss_kappa)
        _same(figures.gwet_ac1, expected.gwet_ac1)
        _same(figures.percent_agreement, expected.percent_agreement)
    for a in got.jurors:
        assert set(got.pairwise[a]) == set(got.jurors) - {a}
        for b in got.pairwise[a]:
            _same(got.pairwise[a][b], want.verdict.pairwise.get(a, b))


def _thousand() -> list[CaseVerdict]:
    """1,000 cases on a 1-5 scale by three jurors who mostly agree, one often missing."""
    import random

    rng = random.Random(5)
    verdicts = []
    for index in range(1000):
        truth = rng.randint(1, 5)
        votes = []
        for juror in ("a", "b", "c"):
            if juror == "c" and index % 4 == 0:
                votes.append(Vote(juror=juror, status=VoteStatus.UNAVAILABLE))
                continue
            score = min(5, max(1, truth + rng.choice([-1, 0, 0, 0, 1])))
            verdict = Verdict.PASS if score > 2 else Verdict.FAIL
            votes.append(
                Vote(
                    juror=juror, status=VoteStatus.VALID, verdict=verdict, scores={"quality": score}
                )
            )
        verdicts.append(CaseVerdict(case_id=f"c{index:04d}", verdict=Verdict.PASS, votes=votes))
    return verdicts


def test_a_thousand_cases_have_the_summarys_intervals_on_the_same_draws() -> None:
    verdicts = _thousand()
    tally = AgreementTally()
    for verdict in verdicts:
        tally.add(verdict)
    metric = [Metric(name="quality", level="ordinal", values=(1, 2, 3, 4, 5))]
    want = summarize_agreement(verdicts, metric, bootstrap=300, widest=0)
    got = tally.page(metric, bootstrap=300, confidence=0.95, seed=0)
    _same_figures(got, want)
    alpha = got.metrics["quality"].alpha
    assert alpha.low is not None
    assert alpha.high is not None
    assert alpha.value is not None
    assert alpha.low < alpha.value < alpha.high
    # Another seed draws other resamples: the interval is the draws', not fixed numbers.
    other = tally.page(metric, bootstrap=300, confidence=0.95, seed=1).metrics["quality"].alpha
    assert (other.low, other.high) != (alpha.low, alpha.high)


def test_the_page_figures_import_no_numpy() -> None:
    code = (
        "import sys\n"
        "from jury import CaseVerdict, Verdict, Vote\n"
        "from jury.agreement._tally import AgreementTally\n"
        "tally = AgreementTally()\n"
        "for i in range(40):\n"
        "    votes = [Vote(juror=j, status='valid', scores={'q': (i * k) % 5 + 1},\n"
        "                  verdict=Verdict.PASS if (i + k) % 3 else Verdict.FAIL)\n"
        "             for k, j in enumerate('abc')]\n"
        "    tally.add(CaseVerdict(case_id=str(i), verdict=Verdict.PASS, votes=votes))\n"
        "page = tally.page(None, bootstrap=100, confidence=0.95, seed=0)\n"
        "assert page.metrics['q'].alpha.low is not None\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'scipy')))\n"
    )
    assert _python(code) == "[]"


def test_an_undefined_resample_is_left_out_and_counted() -> None:
    # Two cases: a resample that draws one of them twice has one value only (alpha undefined).
    verdicts = [
        CaseVerdict(
            case_id=case_id,
            verdict=Verdict.PASS,
            votes=[
                Vote(juror=j, status=VoteStatus.VALID, scores={"q": v})
                for j, v in (("a", a), ("b", b))
            ],
        )
        for case_id, (a, b) in {"x": (1, 2), "y": (2, 2)}.items()
    ]
    tally = AgreementTally()
    for verdict in verdicts:
        tally.add(verdict)
    metric = [Metric(name="q", level="nominal", values=(1, 2))]
    alpha = tally.page(metric, bootstrap=200, confidence=0.95, seed=0).metrics["q"].alpha
    assert 0 < alpha.undefined_resamples < 200
    want = summarize_agreement(verdicts, metric, bootstrap=200, widest=0)
    assert alpha.undefined_resamples == want.metrics["q"].alpha.undefined_resamples
    assert alpha.value is not None
    assert not math.isnan(alpha.value)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.one_of(st.none(), st.sampled_from([0.0, 0.2, 0.5, 0.9, 1.0])), st.booleans()),
        max_size=40,
    )
)
def test_the_trade_off_curve_is_numpys(cases: list[tuple[float | None, bool]]) -> None:
    # The page's accuracy-coverage curve, also written without NumPy: each confidence level,
    # most confident first, with the share of cases at or above it and their accuracy.
    import numpy as np

    from jury.agreement._selective import curve

    confidence = [c for c, _ in cases]
    right = np.asarray([r for _, r in cases], dtype=bool)
    conf = np.array([-1.0 if c is None else c for c in confidence], dtype=np.float64)
    want = [
        (float((conf >= level).mean()), float(right[conf >= level].mean()))
        for level in np.unique(conf[conf >= 0])[::-1]
    ]
    assert curve(confidence, [r for _, r in cases]) == want


def test_a_run_with_its_page_imports_no_numpy(tmp_path: Path) -> None:
    # The bundled example (labelled cases: the page's trade-off and seat errors too), run
    # with its page as `jury run` runs it: NumPy would be 8 MB of the run's peak (issue 36).
    example = Path(__file__).parents[2] / "examples" / "shopnest" / "cases.jsonl"
    code = (
        "import asyncio, sys, jury\n"
        f"run = asyncio.run(jury.run({str(example)!r}, out={str(tmp_path / 'run')!r}, "
        f"cache_dir={str(tmp_path / 'cache')!r}))\n"
        "assert (run.path / 'report.html').is_file()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'scipy')))\n"
    )
    assert _python(code) == "[]"
    page = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    assert 'id="agreement-metrics"' in page


def test_a_ratio_metric_of_many_values_has_numpys_alpha_on_the_page() -> None:
    # Its expected disagreement sums over every pair of values on every resample: in plain
    # Python 13 minutes for 2,500 values, so the page takes NumPy's alpha for it.
    import random

    rng = random.Random(7)
    verdicts = [
        CaseVerdict(
            case_id=f"c{i:03d}",
            verdict=Verdict.PASS,
            votes=[
                Vote(juror=j, status=VoteStatus.VALID, scores={"size": rng.randint(0, 80)})
                for j in "abc"
            ],
        )
        for i in range(120)
    ]
    tally = AgreementTally()
    for verdict in verdicts:
        tally.add(verdict)
    metric = [Metric(name="size", level="ratio")]
    got = tally.page(metric, bootstrap=50, confidence=0.95, seed=0)
    assert len({v.votes[0].scores["size"] for v in verdicts}) > 40
    _same_figures(got, summarize_agreement(verdicts, metric, bootstrap=50, widest=0))


def test_the_public_names_keep_one_door_and_whole_type_hints() -> None:
    # The package imports its names lazily: the page's Estimate still pickles as
    # jury.agreement.Estimate, and a public model's type hints resolve.
    code = (
        "import pickle, sys, typing\n"
        "from jury.agreement._plain import Coded, figures\n"
        "(one,) = figures([Coded('q', 'nominal', (1, 2), [[0, 1], [1, 1]])],\n"
        "                 resamples=0, confidence=0.95, seed=0)\n"
        "assert b'jury.agreement._' not in pickle.dumps(one.alpha), pickle.dumps(one.alpha)\n"
        "assert 'numpy' not in sys.modules\n"
        "import jury.agreement as a\n"
        "print(sorted(typing.get_type_hints(a.AgreementSummary)))\n"
    )
    fields = ["cases", "confidence", "jurors", "metrics", "resamples", "seed", "stability"]
    assert _python(code) == str([*fields, "verdict"])
