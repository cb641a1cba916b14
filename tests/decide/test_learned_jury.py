"""The learned jury end to end: `jury calibrate --fit` on labelled recorded jurors, then the fit
deciding in `jury run`, in the library and in `jury rescore`, under the engine's promises."""

from __future__ import annotations

import asyncio
import itertools
import json
import tomllib
from pathlib import Path

import pytest
from browser import chromium, open_page
from extras import needs
from learned_helpers import scenario

from jury import (
    CaseVerdict,
    ConfigError,
    Jury,
    JuryFileError,
    Panel,
    Verdict,
    VoteStatus,
    load_cases,
    load_panel,
)
from jury.agreement._evidence import Method
from jury.agreement._fitting import StageResult
from jury.cli import main
from jury.decide._learned import Fit, load_fit
from jury.report._calibration import against_best_juror
from jury.runs._records import read_verdicts

LEARNED = 'aggregation = "learned"\ncalibration = "fit.toml"\n'


def calibrate(
    tmp_path: Path, *extra: str, jury: str = "", cases: int = 160, strong: float = 0.9
) -> tuple[int, Path]:
    cases_path, jury_path, _ = scenario(
        tmp_path, cases=cases, jury=jury, accuracy={"strong": strong}
    )
    fit = tmp_path / "fit.toml"
    code = main(["calibrate", str(cases_path), "--jury", str(jury_path), "--fit", str(fit), *extra])
    return code, fit


def only_target(path: Path) -> Fit:
    fits = load_fit(path).fits
    assert len(fits) == 1
    return fits[0]


def test_a_fit_learns_to_trust_the_strong_juror_over_the_weak_majority(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, path = calibrate(tmp_path)
    out = capsys.readouterr().out
    assert code == 0
    fit = only_target(path)
    weights = {s.juror: s.weight for s in fit.stage[0].source}
    assert weights["strong"] is not None
    assert weights["strong"] > 2 * max(weights["weak-a"] or 0, weights["weak-b"] or 0)
    # Held-out estimates are printed for each way of deciding.
    for name in ("weights", "stacked", "naive majority", "strong", "weak-a"):
        assert f"  {name} " in out
    assert "not distinguishable from zero" in out  # the weak jurors' weights
    # The fitted jury is set beside its best juror alone, whichever way that comes out.
    assert "its best juror alone (strong, " in out
    # Readable: plain TOML with the header saying how to use it.
    text = path.read_text("utf-8")
    assert 'aggregation = "learned"' in text.splitlines()[1]
    assert list(tomllib.loads(text)["target"]) == ["pass"]


def test_the_learned_jury_gives_one_verdict_in_run_rescore_and_library(tmp_path: Path) -> None:
    code, _ = calibrate(tmp_path)
    assert code == 0
    learned = tmp_path / "learned.toml"
    learned.write_text(LEARNED + (tmp_path / "jury.toml").read_text("utf-8"), "utf-8")
    cases = tmp_path / "cases.jsonl"
    run, plain, again = tmp_path / "run", tmp_path / "plain", tmp_path / "again"
    main(["run", str(cases), "--jury", str(learned), "--out", str(run), "--no-checks"])
    main(["rescore", str(run), "--aggregation", "majority", "--out", str(plain)])
    main(["rescore", str(plain), "--calibration", str(tmp_path / "fit.toml"), "--out", str(again)])
    by_run = {v.case_id: (v.verdict, v.confidence) for v in read_verdicts(run)}
    by_rescore = {v.case_id: (v.verdict, v.confidence) for v in read_verdicts(again)}
    by_majority = {v.case_id: v.verdict for v in read_verdicts(plain)}
    assert by_run == by_rescore
    assert by_run != {k: (v, None) for k, v in by_majority.items()}
    truth = {c.id: c.labels["pass"] for c in load_cases(cases)}
    right = sum((by_run[k][0] is Verdict.PASS) == t for k, t in truth.items())
    right_majority = sum((by_majority[k] is Verdict.PASS) == t for k, t in truth.items())
    assert right > right_majority + 0.2 * len(truth)


def learned_panel(tmp_path: Path) -> Panel:
    calibrate(tmp_path)
    path = tmp_path / "learned.toml"
    path.write_text(LEARNED + (tmp_path / "jury.toml").read_text("utf-8"), "utf-8")
    return load_panel(path)


def test_a_learned_verdict_never_depends_on_the_order_of_the_votes(tmp_path: Path) -> None:
    panel = learned_panel(tmp_path)
    cases = load_cases(tmp_path / "cases.jsonl")[:20]

    async def check() -> None:
        async with Jury(panel, checks=None) as jury:
            for case in cases:
                verdict = await jury.judge(case)
                for order in itertools.permutations(verdict.votes):
                    again = jury.decide(case, order)
                    assert (again.verdict, again.confidence) == (
                        verdict.verdict,
                        verdict.confidence,
                    )

    asyncio.run(check())


def test_a_judge_error_is_never_a_fail_for_the_learned_jury(tmp_path: Path) -> None:
    panel = learned_panel(tmp_path)
    case = load_cases(tmp_path / "cases.jsonl")[0]

    async def judged() -> CaseVerdict:
        async with Jury(panel, checks=None) as jury:
            return await jury.judge(case)

    verdict = asyncio.run(judged())
    jury = Jury(panel, checks=None)
    down = [
        v.model_copy(update={"status": VoteStatus.UNAVAILABLE, "scores": {}, "verdict": None})
        for v in verdict.votes
    ]
    one_left = jury.decide(case, [*down[:2], verdict.votes[2]])
    nothing = jury.decide(case, down)
    assert one_left.verdict is Verdict.INCONCLUSIVE  # 1 readable vote of 3, quorum 2
    assert "quorum not met: 1 readable vote of 3 jurors, 2 needed" in one_left.reasons
    assert nothing.verdict is Verdict.INCONCLUSIVE  # the intercept alone never decides


def test_selective_verdicts_below_the_threshold_are_inconclusive_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = "target_agreement = 0.8\nrisk = 0.1\n"
    code, path = calibrate(tmp_path, jury=target, cases=800, strong=0.8)
    out = capsys.readouterr().out
    assert code == 0, out
    fit = only_target(path)
    stage = fit.stage[0]
    assert 0 < stage.threshold < 1
    assert fit.about["fitted_on"] + fit.about["calibrated_on"] == 800
    assert "calibration cases decided" in out
    learned = tmp_path / "learned.toml"
    learned.write_text(LEARNED + (tmp_path / "jury.toml").read_text("utf-8"), "utf-8")
    run = tmp_path / "run"
    main(
        [
            "run",
            str(tmp_path / "cases.jsonl"),
            "--jury",
            str(learned),
            "--out",
            str(run),
            "--no-checks",
        ]
    )
    verdicts = read_verdicts(run)
    unsure = [v for v in verdicts if v.verdict is Verdict.INCONCLUSIVE]
    assert unsure  # the strong juror against the weak pair never reaches 80 %
    reason = unsure[0].reasons[0]
    assert reason.startswith("confidence ")
    assert "the threshold for 80% agreement" in reason
    summary = json.loads((run / "summary.json").read_text("utf-8"))
    decided = [v for v in verdicts if v.verdict is not Verdict.INCONCLUSIVE]
    assert summary["inconclusive"] == len(unsure)
    assert all(v.confidence is not None and v.confidence >= stage.threshold for v in decided)


def test_a_target_no_threshold_can_meet_fails_calibration_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, path = calibrate(tmp_path, jury="target_agreement = 0.99\nrisk = 0.05\n")
    out = capsys.readouterr().out
    assert code == 1
    assert "FAILED: no threshold meets 99% agreement at risk 0.05" in out
    assert not path.exists()


@pytest.mark.parametrize(
    ("cases", "labels", "message"),
    [
        (10, None, "nothing can be learned: pass: 10 case(s) labelled (a fit needs at least 20)"),
        (40, True, "nothing can be learned: pass: every label is PASS (a fit needs two different"),
    ],
)
def test_a_fit_refuses_too_few_labels_or_one_class(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    cases: int,
    labels: bool | None,
    message: str,
) -> None:
    cases_path, jury_path, _ = scenario(tmp_path, cases=cases)
    if labels is not None:
        lines = [json.loads(line) for line in cases_path.read_text("utf-8").splitlines()]
        cases_path.write_text(
            "".join(json.dumps({**x, "labels": {"pass": labels}}) + "\n" for x in lines), "utf-8"
        )
    code = main(["calibrate", str(cases_path), "--jury", str(jury_path), "--fit", "x.toml"])
    assert code == 2
    assert message in capsys.readouterr().err


def test_unsupervised_fits_dawid_skene_without_a_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, path = calibrate(tmp_path, "--unsupervised")
    assert code == 0
    fit = only_target(path)
    assert fit.model == "dawid-skene"
    assert "dawid-skene" in capsys.readouterr().out


def test_select_ranks_subsets_and_says_whether_the_jury_beats_its_best_juror(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = calibrate(tmp_path, "--select")
    out = capsys.readouterr().out
    assert code == 0
    assert "Jurors to keep, by held-out accuracy" in out
    assert "On this data the best jury (" in out
    assert "its best juror (strong" in out


def test_a_fit_for_other_jurors_or_another_rubric_is_refused(tmp_path: Path) -> None:
    calibrate(tmp_path)
    base = (tmp_path / "jury.toml").read_text("utf-8")
    other = tmp_path / "other.toml"
    other.write_text(LEARNED + base.replace('name = "weak-b"', 'name = "weak-c"'), "utf-8")
    with pytest.raises(ConfigError, match="stage 1 was fitted for jurors strong, weak-a, weak-b"):
        Jury(load_panel(other))
    other.write_text(LEARNED + base.replace("grounded-answer", "five-metric"), "utf-8")
    with pytest.raises(ConfigError, match="fitted on the rubric 'grounded-answer'"):
        Jury(load_panel(other))


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('aggregation = "learned"\njurors = ["offline/reference"]', "(file)"),
        ('calibration = "fit.toml"\njurors = ["offline/reference"]', "(file)"),
    ],
)
def test_learned_aggregation_and_a_fit_file_go_together(
    tmp_path: Path, text: str, key: str
) -> None:
    path = tmp_path / "jury.toml"
    path.write_text(text, "utf-8")
    with pytest.raises(JuryFileError, match="go together"):
        load_panel(path)


def test_a_bad_fit_file_names_its_key(tmp_path: Path) -> None:
    code, path = calibrate(tmp_path)
    assert code == 0
    path.write_text(path.read_text("utf-8").replace("threshold =", "treshold ="), "utf-8")
    with pytest.raises(ConfigError, match=r"target\.pass\.stage\[0\]\.treshold: unknown key"):
        load_fit(path)


def test_a_learned_cascade_asks_the_later_tier_only_below_its_threshold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases_path, jury_path, _ = scenario(tmp_path, accuracy={"strong": 0.8})
    text = jury_path.read_text("utf-8").replace('name = "weak-a"', 'name = "weak-a"\ntier = 2')
    jury_path.write_text(text.replace('name = "weak-b"', 'name = "weak-b"\ntier = 2'), "utf-8")
    fit = tmp_path / "fit.toml"
    assert main(["calibrate", str(cases_path), "--jury", str(jury_path), "--fit", str(fit)]) == 0
    stages = only_target(fit).stage
    assert [s.jurors for s in stages] == [("strong",), ("strong", "weak-a", "weak-b")]
    assert 0 < stages[0].threshold < 1
    assert stages[1].threshold == 0
    learned = tmp_path / "learned.toml"
    learned.write_text(LEARNED + jury_path.read_text("utf-8"), "utf-8")
    run = tmp_path / "run"
    main(["run", str(cases_path), "--jury", str(learned), "--out", str(run), "--no-checks"])
    verdicts = read_verdicts(run)
    early = [v for v in verdicts if v.not_asked]
    late = [v for v in verdicts if v.escalations]
    assert early
    assert late
    assert len(early) + len(late) == len(verdicts)
    for verdict in early:
        assert verdict.confidence is not None
        assert verdict.confidence >= stages[0].threshold
        assert {v.juror for v in verdict.votes} == {"strong"}
    for verdict in late:
        assert "below" in verdict.escalations[0]
        assert "held-out accuracy" in verdict.escalations[0]
        assert len(verdict.votes) == 3
    summary = json.loads((run / "summary.json").read_text("utf-8"))
    assert summary["escalated"] == len(late)
    assert summary["tier_calls_saved"] == 2 * len(early)


@needs("test")  # websockets drives the browser
@pytest.mark.skipif(
    chromium() is None,
    reason="chromium is not installed (.ci/run installs Debian's chromium when run as root)",
)
def test_the_report_draws_the_trade_off_as_an_inline_svg_in_a_real_browser(
    tmp_path: Path,
) -> None:
    calibrate(tmp_path)
    learned = tmp_path / "learned.toml"
    learned.write_text(LEARNED + (tmp_path / "jury.toml").read_text("utf-8"), "utf-8")
    run = tmp_path / "run"
    main(["run", str(tmp_path / "cases.jsonl"), "--jury", str(learned), "--out", str(run)])
    svg = "document.querySelector('#tradeoff ~ svg.tradeoff')"
    page = open_page(
        run / "report.html",
        [
            f"{svg}.querySelectorAll('script').length",
            f"{svg}.getBoundingClientRect().width",
            f"{svg}.querySelectorAll('circle').length",
            f"{svg}.textContent.includes('naive majority')",
            f"{svg}.textContent.includes('strong')",
        ],
    )
    assert page.errors == []  # a blocked script or fetch would be a CSP error here
    values = page.values
    assert values[f"{svg}.querySelectorAll('script').length"] == 0  # a picture, no code
    assert values[f"{svg}.getBoundingClientRect().width"] > 300
    assert values[f"{svg}.querySelectorAll('circle').length"] >= 5  # jury, majority, 3 jurors
    assert values[f"{svg}.textContent.includes('naive majority')"]
    assert values[f"{svg}.textContent.includes('strong')"]


def test_calibrate_says_plainly_when_the_jury_does_not_beat_its_best_juror() -> None:
    jurors = ("strong", "weak-a", "weak-b")
    methods = [
        Method("stacked", right=70, decided=100, cases=100),
        Method("naive majority", right=60, decided=100, cases=100),
        Method("strong", right=75, decided=100, cases=100),
        Method("weak-a", right=55, decided=100, cases=100),
        Method("weak-b", right=50, decided=100, cases=100),
    ]
    stage = StageResult(1, jurors, methods, "stacked")
    said = against_best_juror(stage)
    assert said is not None
    assert "does NOT beat its best juror alone (strong, 75.0 %): -5.0 points; that" in said
    methods[0] = Method("stacked", right=78, decided=100, cases=100)
    stage = StageResult(1, jurors, methods, "stacked")
    said = against_best_juror(stage)
    assert said is not None
    assert "beats its best juror alone (strong, 75.0 %) by 3.0 points" in said
    # Dawid-Skene, fitted without labels, is not measured juror by juror: nothing is said.
    unsupervised = StageResult(1, jurors, [methods[1]], "dawid-skene")
    assert against_best_juror(unsupervised) is None
