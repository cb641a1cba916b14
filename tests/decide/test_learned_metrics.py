"""A learned jury for a rubric with several metrics: `jury calibrate --fit` learns every labelled
metric in one run and writes one table per target; each learned value takes the place of its
median, the rubric's own rule decides, and the verdict is as sure as its least sure metric.
Single-target fit files of format 1 are still read and decide as they did."""

from __future__ import annotations

import asyncio
import json
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from learned_helpers import scenario, write_panel

from jury import Jury, Verdict, load_cases, load_panel, load_rubric
from jury.cli import main
from jury.decide._learned import Fit, Fits, load_fit, signals
from jury.runner._fit import write_fit
from jury.runs._records import read_verdicts

LEARNED = 'aggregation = "learned"\ncalibration = "fit.toml"\n'
LEARNED_METRICS = ("correctness", "faithfulness")
OTHERS = ("relevance", "helpfulness", "hallucinationFree")
DATA = Path(__file__).parents[1] / "data" / "learned"


def metric_scenario(
    folder: Path, cases: int = 160, *, labels: tuple[str, ...] = LEARNED_METRICS, jury: str = ""
) -> tuple[Path, Path, list[dict[str, int]]]:
    """Five-metric cases labelled on `labels`; "strong" is right on 90 % of the learned
    metrics, "weak-a" and "weak-b" copy one shared wrong value 40 % of the time (so that the
    median follows them), and "weak-b" rates faithfulness at random. The other three metrics
    are 5 from everyone. "pass" in `labels` labels the verdict (both metrics at least 4)."""
    rng = np.random.default_rng(3)
    lines, truths = [], []
    records: dict[str, list[dict[str, Any]]] = {"strong": [], "weak-a": [], "weak-b": []}
    for i in range(cases):
        truth = {m: int(rng.integers(1, 6)) for m in LEARNED_METRICS}
        truths.append(truth)
        shared_coin = rng.random(len(LEARNED_METRICS))
        shared_wrong = [int((t + rng.integers(1, 5) - 1) % 5 + 1) for t in truth.values()]
        said: dict[str, dict[str, int]] = {name: {} for name in records}
        for k, metric in enumerate(LEARNED_METRICS):
            right = truth[metric]
            said["strong"][metric] = right if rng.random() < 0.9 else int(rng.integers(1, 6))
            for weak in ("weak-a", "weak-b"):
                said[weak][metric] = right if shared_coin[k] < 0.6 else shared_wrong[k]
        said["weak-b"]["faithfulness"] = int(rng.integers(1, 6))
        label: dict[str, Any] = {m: truth[m] for m in labels if m != "pass"}
        if "pass" in labels:
            label["pass"] = all(v >= 4 for v in truth.values())
        case_id = f"c{i:03d}"
        lines.append({"id": case_id, "question": f"q{i}", "answer": f"a{i}", "labels": label})
        for name, values in said.items():
            reply = {"reason": f"{name} says so", **dict.fromkeys(OTHERS, 5), **values}
            records[name].append({"case": case_id, "reply": reply})
    cases_path, jury_path = write_panel(folder, lines, records, "five-metric", jury)
    return cases_path, jury_path, truths


def calibrated(tmp_path: Path, *extra: str, **kwargs: Any) -> tuple[int, list[dict[str, int]]]:
    cases, jury, truths = metric_scenario(tmp_path, **kwargs)
    fit = tmp_path / "fit.toml"
    code = main(["calibrate", str(cases), "--jury", str(jury), "--fit", str(fit), *extra])
    (tmp_path / "learned.toml").write_text(LEARNED + jury.read_text("utf-8"), "utf-8")
    return code, truths


def run(tmp_path: Path, jury: str = "learned.toml", out: str = "run") -> Path:
    folder = tmp_path / out
    args = ["run", str(tmp_path / "cases.jsonl"), "--jury", str(tmp_path / jury)]
    main([*args, "--out", str(folder), "--no-checks"])
    return folder


def test_calibrate_fits_every_labelled_metric_in_one_run_into_one_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = calibrated(tmp_path)
    out = capsys.readouterr().out
    assert code == 0, out
    text = (tmp_path / "fit.toml").read_text("utf-8")
    data = tomllib.loads(text)
    assert data["format"] == 2
    assert list(data["target"]) == list(LEARNED_METRICS)  # one table per target, rubric order
    assert "[target.correctness]" in text
    fits = load_fit(tmp_path / "fit.toml")
    assert fits.targets == LEARNED_METRICS
    assert all(f.classes == (1, 2, 3, 4, 5) for f in fits.fits)
    # Each target has its own k-fold held-out estimates and its own warnings.
    correctness, faithfulness = out.split("Target: faithfulness")
    assert correctness.count("Target: correctness") == 1
    for part in (correctness, faithfulness):
        for name in ("weights", "stacked", "naive majority", "strong", "weak-a"):
            assert f"  {name} " in part
        assert "held out (k-fold)" in part
    assert "weak-b: right on" in faithfulness  # it rates faithfulness at random
    assert "weak-b: right on" not in correctness
    assert "fit written to" in out
    assert "2 targets: correctness, faithfulness" in out


@pytest.fixture
def fitted(tmp_path: Path) -> tuple[Fits, list[dict[str, int]]]:
    """Both metrics learned from the labels of `metric_scenario`, and the true values."""
    code, truths = calibrated(tmp_path)
    assert code == 0
    return load_fit(tmp_path / "fit.toml"), truths


def test_each_learned_metric_replaces_its_median_and_the_rubric_rule_decides(
    tmp_path: Path, fitted: tuple[Fits, list[dict[str, int]]]
) -> None:
    fits, truths = fitted
    verdicts = read_verdicts(run(tmp_path))
    cases = {c.id: c for c in load_cases(tmp_path / "cases.jsonl")}
    five = load_rubric("five-metric")
    for verdict in verdicts:
        case = cases[verdict.case_id]
        predicted = {
            f.target: f.stage[0].predict(signals(case, verdict.votes, five, f.target), f.classes)
            for f in fits.fits
        }
        for metric, prediction in predicted.items():
            assert verdict.metrics[metric].value == prediction.value
        # The rule stated in `Fits`: the verdict is as sure as its least sure metric.
        assert verdict.confidence == min(p.confidence for p in predicted.values())
        learned_pass = all(p.value in (4, 5) for p in predicted.values())
        assert verdict.verdict is (Verdict.PASS if learned_pass else Verdict.FAIL)
        assert verdict.metrics["relevance"].value == 5  # the others by median, as before
    # Learning both metrics beats their medians, where the weak pair outvotes the strong juror.
    median = tmp_path / "median"
    main(["rescore", str(tmp_path / "run"), "--aggregation", "median", "--out", str(median)])
    truth = {f"c{i:03d}": t for i, t in enumerate(truths)}

    def right(folder: Path) -> tuple[int, int]:
        found = read_verdicts(folder)
        values = sum(
            v.metrics[m].value == truth[v.case_id][m] for v in found for m in truth["c000"]
        )
        passed = sum(
            (v.verdict is Verdict.PASS) == all(x >= 4 for x in truth[v.case_id].values())
            for v in found
        )
        return values, passed

    (learned_values, learned_verdicts), (median_values, median_verdicts) = (
        right(tmp_path / "run"),
        right(median),
    )
    assert learned_values > median_values + 0.15 * 2 * len(truth)
    assert learned_verdicts > median_verdicts


def test_run_rescore_and_library_give_one_multi_metric_verdict(
    tmp_path: Path, fitted: tuple[Fits, list[dict[str, int]]]
) -> None:
    ran = run(tmp_path)
    plain, again = tmp_path / "plain", tmp_path / "again"
    main(["rescore", str(ran), "--aggregation", "median", "--out", str(plain)])
    main(["rescore", str(plain), "--calibration", str(tmp_path / "fit.toml"), "--out", str(again)])

    def seen(verdicts: Any) -> dict[str, Any]:
        return {
            v.case_id: (v.verdict, v.confidence, {k: m.value for k, m in v.metrics.items()})
            for v in verdicts
        }

    panel = load_panel(tmp_path / "learned.toml")
    cases = load_cases(tmp_path / "cases.jsonl")

    async def library() -> list[Any]:
        async with Jury(panel, checks=None) as jury:
            return [await jury.judge(case) for case in cases]

    by_run = seen(read_verdicts(ran))
    assert by_run == seen(read_verdicts(again))
    assert by_run == seen(asyncio.run(library()))
    assert by_run != seen(read_verdicts(plain))


def with_threshold(fit: Fit, threshold: float) -> Fit:
    stages = tuple(
        s.model_copy(
            update={"threshold": threshold, "threshold_means": f"{threshold:.0%} agreement"}
        )
        for s in fit.stage
    )
    return fit.model_copy(update={"stage": stages})


def test_a_metric_below_its_threshold_leaves_the_case_inconclusive_and_names_it(
    tmp_path: Path, fitted: tuple[Fits, list[dict[str, int]]]
) -> None:
    fits = fitted[0]
    strict = [with_threshold(f, 0.9) if f.target == "faithfulness" else f for f in fits.fits]
    write_fit(Fits(tuple(strict)), tmp_path / "fit.toml")
    verdicts = read_verdicts(run(tmp_path))
    unsure = [v for v in verdicts if v.verdict is Verdict.INCONCLUSIVE]
    decided = [v for v in verdicts if v.verdict is not Verdict.INCONCLUSIVE]
    assert unsure
    assert decided
    for verdict in unsure:
        (reason,) = verdict.reasons
        assert reason.startswith("faithfulness: confidence ")
        assert reason.endswith("below 0.90, the threshold for 90% agreement")
    for verdict in decided:
        assert verdict.confidence is not None
        assert verdict.reasons[0].endswith(
            f"the verdict's confidence {verdict.confidence:.2f} is the lowest of theirs"
        )


def test_a_fitted_pass_decides_the_verdict_and_the_metrics_show_learned_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = calibrated(
        tmp_path,
        "--target",
        "correctness,pass",
        labels=("pass", "correctness"),
        cases=240,
        jury="target_agreement = 0.7\nrisk = 0.1\n",
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "pass decides the verdicts and carries the agreement guarantee" in out
    fits = load_fit(tmp_path / "fit.toml")
    assert fits.targets == ("pass", "correctness")
    assert (fits.target_agreement, fits.risk) == (0.7, 0.1)
    rubric = load_rubric("five-metric")
    cases = {c.id: c for c in load_cases(tmp_path / "cases.jsonl")}
    passed, correctness = fits.fits
    threshold = passed.stage[0].threshold
    assert 0 < threshold < 1
    assert correctness.stage[0].threshold == 0  # shown only: nothing to certify
    verdicts = read_verdicts(run(tmp_path))
    for verdict in verdicts:
        case = cases[verdict.case_id]
        by_pass = passed.stage[0].predict(
            signals(case, verdict.votes, rubric, "pass"), passed.classes
        )
        assert verdict.confidence == by_pass.confidence
        if by_pass.confidence < threshold:
            assert verdict.verdict is Verdict.INCONCLUSIVE
            continue
        value = correctness.stage[0].predict(
            signals(case, verdict.votes, rubric, "correctness"), correctness.classes
        )
        assert verdict.verdict.value == by_pass.value
        assert verdict.metrics["correctness"].value == value.value
        assert verdict.reasons == (
            f"learned jury: pass {by_pass.value} ({passed.model}, confidence "
            f"{by_pass.confidence:.2f}); correctness {value.value} ({correctness.model}, "
            f"confidence {value.confidence:.2f}); pass decides the verdict",
        )
    assert any(v.verdict is not Verdict.INCONCLUSIVE for v in verdicts)


def test_the_guarantee_is_stated_per_metric_when_several_metrics_decide(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = calibrated(tmp_path, cases=240, jury="target_agreement = 0.6\nrisk = 0.1\n")
    out = capsys.readouterr().out
    assert code == 0, out
    assert "the agreement guarantee holds for each metric on its own" in out
    assert "has no certified agreement of its own" in out
    fits = load_fit(tmp_path / "fit.toml")
    assert (fits.target_agreement, fits.risk) == (0.6, 0.1)
    for fit in fits.fits:  # certified on its own calibration cases
        stage = fit.stage[0]
        assert stage.threshold < 1
        assert stage.agreement is not None
        assert stage.agreement >= 0.6
    assert out.count("calibration cases decided") == 2  # a threshold certified per metric


def test_a_learned_multi_metric_cascade_escalates_when_any_metric_is_unsure(
    tmp_path: Path,
) -> None:
    cases, jury, _ = metric_scenario(tmp_path)
    text = jury.read_text("utf-8")
    for name in ("weak-a", "weak-b"):
        text = text.replace(f'name = "{name}"', f'name = "{name}"\ntier = 2')
    jury.write_text(text, "utf-8")
    fit = tmp_path / "fit.toml"
    assert main(["calibrate", str(cases), "--jury", str(jury), "--fit", str(fit)]) == 0
    (tmp_path / "learned.toml").write_text(LEARNED + text, "utf-8")
    fits = load_fit(fit)
    thresholds = {f.target: f.stage[0].threshold for f in fits.fits}
    assert all(0 < t < 1 for t in thresholds.values())
    verdicts = read_verdicts(run(tmp_path))
    early = [v for v in verdicts if v.not_asked]
    late = [v for v in verdicts if v.escalations]
    assert early
    assert late
    assert len(early) + len(late) == len(verdicts)
    rubric = load_rubric("five-metric")
    by_id = {c.id: c for c in load_cases(cases)}

    def tier_one(verdict: Any) -> dict[str, float]:
        strong = [v for v in verdict.votes if v.juror == "strong"]
        case = by_id[verdict.case_id]
        return {
            f.target: f.stage[0]
            .predict(signals(case, strong, rubric, f.target), f.classes)
            .confidence
            for f in fits.fits
        }

    for verdict in early:  # every metric stood at tier 1
        assert {v.juror for v in verdict.votes} == {"strong"}
        confidence = tier_one(verdict)
        assert all(confidence[m] >= thresholds[m] for m in thresholds)
        assert verdict.confidence == min(confidence.values())
    for verdict in late:  # some metric did not
        confidence = tier_one(verdict)
        unsure = [m for m in thresholds if confidence[m] < thresholds[m]]
        assert unsure
        assert all(f"{m}: confidence" in verdict.escalations[0] for m in unsure)
        assert len(verdict.votes) == 3


def test_a_fit_file_of_format_1_is_still_read_and_decides_as_it_did(tmp_path: Path) -> None:
    """The fit and verdicts in tests/data/learned were written by main at 8c525bf (one
    target, format 1) for `learned_helpers.scenario` with its defaults."""
    _, jury_path, _ = scenario(tmp_path)
    old = DATA / "fit-format-1.toml"
    assert tomllib.loads(old.read_text("utf-8"))["format"] == 1
    fits = load_fit(old)
    assert fits.targets == ("pass",)
    rewritten = tmp_path / "fit.toml"
    write_fit(fits, rewritten)
    assert tomllib.loads(rewritten.read_text("utf-8"))["format"] == 2
    expected = json.loads((DATA / "verdicts-format-1.json").read_text("utf-8"))
    cases = load_cases(tmp_path / "cases.jsonl")
    for fit_file in (old, rewritten):
        learned = tmp_path / "learned.toml"
        learned.write_text(
            f'aggregation = "learned"\ncalibration = "{fit_file}"\n' + jury_path.read_text("utf-8"),
            "utf-8",
        )

        async def judged(path: Path) -> dict[str, list[Any]]:
            async with Jury(load_panel(path), checks=None) as jury:
                verdicts = [await jury.judge(case) for case in cases]
            return {v.case_id: [v.verdict.value, v.confidence] for v in verdicts}

        assert asyncio.run(judged(learned)) == expected


def test_target_chooses_which_labels_are_learned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = calibrated(tmp_path, "--target", "faithfulness")
    out = capsys.readouterr().out
    assert code == 0, out
    assert load_fit(tmp_path / "fit.toml").targets == ("faithfulness",)
    assert "Target: correctness" not in out
    for verdict in read_verdicts(run(tmp_path)):
        assert verdict.reasons[0].startswith("learned jury (")  # one target: as before
        said = sorted(v.scores["correctness"] for v in verdict.votes)
        assert verdict.metrics["correctness"].value == said[1]  # correctness by its median


def _relabel(cases: Path, labels: Any) -> None:
    """Rewrite each case's labels: `labels(n, own)` gives the n-th case's from its own."""
    lines = [json.loads(line) for line in cases.read_text("utf-8").splitlines()]
    for n, line in enumerate(lines):
        line["labels"] = labels(n, line["labels"])
    cases.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")


def test_a_target_the_labels_cannot_teach_is_skipped_and_named_while_the_others_are_learned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases, jury, _ = metric_scenario(tmp_path)
    # Every relevance label is 4, and only five cases have a helpfulness label.
    _relabel(cases, lambda n, own: {**own, "relevance": 4} | ({"helpfulness": 2} if n < 5 else {}))
    fit, found, page = tmp_path / "fit.toml", tmp_path / "found.json", tmp_path / "fit.html"
    argv = ["calibrate", str(cases), "--jury", str(jury), "--fit", str(fit), "--json", str(found)]
    assert main([*argv, "--html", str(page)]) == 0
    out = capsys.readouterr().out
    relevance = "every label is 4 (a fit needs two different labels)"
    helpfulness = "5 case(s) labelled (a fit needs at least 20)"
    assert f"warning: skipped relevance: {relevance}" in out
    assert f"warning: skipped helpfulness: {helpfulness}" in out
    assert "Target: relevance" not in out
    assert "(2 targets: correctness, faithfulness); skipped: relevance, helpfulness" in out
    fits = load_fit(fit)
    assert fits.targets == LEARNED_METRICS
    assert dict(fits.skipped) == {"relevance": relevance, "helpfulness": helpfulness}
    assert tomllib.loads(fit.read_text("utf-8"))["skipped"]["relevance"] == relevance
    findings = json.loads(found.read_text("utf-8"))
    assert findings["skipped"] == {"relevance": relevance, "helpfulness": helpfulness}
    assert set(findings["targets"]) == set(LEARNED_METRICS)
    drawn = page.read_text("utf-8")
    assert "five-metric · correctness</title>" in drawn  # the first target learned
    assert "<h2>Not learned</h2><ul><li>relevance: every label is 4 (a fit needs two" in drawn
    # A run with the fit says so too.
    (tmp_path / "learned.toml").write_text(LEARNED + jury.read_text("utf-8"), "utf-8")
    run(tmp_path)
    said = f"{fit.name}: relevance was not learned ({relevance}); its median decides"
    assert said in " ".join(capsys.readouterr().err.split())


def test_without_a_learnable_pass_the_metrics_are_learned_and_said_to_decide(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases, jury, _ = metric_scenario(tmp_path)
    _relabel(cases, lambda n, own: {**own, "pass": True})
    fit = tmp_path / "fit.toml"
    assert main(["calibrate", str(cases), "--jury", str(jury), "--fit", str(fit)]) == 0
    out = capsys.readouterr().out
    assert "warning: skipped pass: every label is PASS (a fit needs two different labels)" in out
    assert "without a fitted pass, the fitted correctness, faithfulness decide the verdict" in out
    assert load_fit(fit).targets == LEARNED_METRICS


def test_a_fit_where_nothing_can_be_learned_stops_before_a_juror_is_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases, jury, _ = metric_scenario(tmp_path)
    _relabel(cases, lambda n, own: {"correctness": 3, "faithfulness": 5} if n < 30 else {})
    fit = tmp_path / "fit.toml"
    # Votes from a run that does not exist: reading them would be the error, were they read.
    argv = ["calibrate", str(cases), "--jury", str(jury), "--fit", str(fit)]
    assert main([*argv, "--votes", str(tmp_path / "no-run")]) == 2
    err = capsys.readouterr().err
    assert (
        "nothing can be learned: correctness: every label is 3 (a fit needs two different "
        "labels); faithfulness: every label is 5 (a fit needs two different labels)"
    ) in " ".join(err.split())
    assert "Traceback" not in err
    assert not fit.exists()
