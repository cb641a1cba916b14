"""`jury calibrate` with scripted jurors: the gold-as-answer checks on the ShopNest points
example, stability over passes, agreement with hand labels and drift against a baseline."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import scores
from jury import load_cases, load_rubric
from jury.adapters import JudgeRequest
from jury.adapters._profile import factories
from jury.cli import main
from jury.rubrics._points import PointsRubric
from jury.testing import ScriptedModel

ROOT = Path(__file__).parents[2]
POINTS = ROOT / "examples" / "shopnest" / "points.jsonl"


def _points_rubric() -> PointsRubric:
    rubric = load_rubric("shopnest-points")
    assert isinstance(rubric, PointsRubric)
    return rubric


RUBRIC = _points_rubric()

Judge = Callable[[JudgeRequest], Any]


def squash(text: str | None) -> str:
    return " ".join((text or "").split())


def faithful(request: JudgeRequest) -> dict[str, Any]:
    """Reads the answer right: a case's own golden answer meets each of its points and none
    of its penalties; the example's other golden answers meet none (that is how it is built)."""
    case = request.case
    assert case is not None
    own = squash(case.answer) == squash(case.golden_answer)
    points = {}
    for item in RUBRIC.items(case):
        met = own and item.need != "penalty"
        points[item.short] = {
            "verdict": "yes" if met else "no",
            "quotes": [case.answer] if met else [],
            "reason": "stated" if met else "not stated",
        }
    return {"points": points}


def always_yes(request: JudgeRequest) -> dict[str, Any]:
    case = request.case
    assert case is not None
    return {
        "points": {
            item.short: {"verdict": "yes", "quotes": [case.answer], "reason": "looks right"}
            for item in RUBRIC.items(case)
        }
    }


@pytest.fixture
def judges(monkeypatch: pytest.MonkeyPatch) -> dict[str, Judge]:
    """``scripted/<name>`` jurors for jury files, answering with `judges[name]`."""
    table: dict[str, Judge] = {}

    def create(spec: str) -> ScriptedModel:
        name = spec.partition("/")[2]
        # Looked up at call time, so a test can swap a juror's behaviour between runs.
        return ScriptedModel(lambda request: table[name](request), name=spec)  # noqa: PLW0108

    monkeypatch.setitem(factories(), "scripted", create)
    return table


def jury_file(
    tmp_path: Path, *jurors: str, rubric: str = "shopnest-points", extra: str = ""
) -> str:
    lines = [f'rubric = "{rubric}"', extra]
    for juror in jurors:
        lines += ["[[juror]]", f'model = "scripted/{juror}"']
    path = tmp_path / "jury.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def test_a_faithful_judge_passes_the_gold_checks(
    tmp_path: Path, judges: dict[str, Judge], capsys: pytest.CaptureFixture[str]
) -> None:
    judges["faithful"] = faithful
    code = main(["calibrate", str(POINTS), "--jury", jury_file(tmp_path, "faithful")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "9 of 9 as expected" in out
    assert (
        "✓ policy-return-01: gold as answer 1.00 (passes), tool-status-02's gold 0.00 (fails)"
        in out
    )


def test_a_judge_that_always_says_yes_is_caught_by_the_other_gold_check(
    tmp_path: Path, judges: dict[str, Judge], capsys: pytest.CaptureFixture[str]
) -> None:
    judges["yes"] = always_yes
    code = main(["calibrate", str(POINTS), "--jury", jury_file(tmp_path, "yes")])
    out = capsys.readouterr().out
    assert code == 1
    assert "0 of 9 as expected" in out
    lines = [line for line in out.splitlines() if line.startswith(("✓", "✗"))]
    assert len(lines) == 9
    # Every other case's gold passes where it should fail: the check that catches it.
    assert all("'s gold" in line and "(PASSES)" in line for line in lines)


def test_passes_report_each_score_and_the_stability(
    tmp_path: Path, judges: dict[str, Judge], capsys: pytest.CaptureFixture[str]
) -> None:
    seen: Counter[str] = Counter()

    def wavering(request: JudgeRequest) -> dict[str, Any]:
        reply = faithful(request)
        case = request.case
        assert case is not None
        if case.id == "policy-return-01" and squash(case.answer) == squash(case.golden_answer):
            seen[case.id] += 1
            if seen[case.id] == 2:  # the second pass misses the optional point 3
                reply["points"]["3"] = {"verdict": "no", "quotes": [], "reason": "missed"}
        return reply

    judges["wavering"] = wavering
    code = main(
        ["calibrate", str(POINTS), "--jury", jury_file(tmp_path, "wavering"), "--passes", "2"]
    )
    out = capsys.readouterr().out
    assert code == 1
    assert "✗ policy-return-01: gold as answer 1.00 0.86 (FAILS)" in out
    assert "    optional point policy-return-01.3 not met" in out
    answers = sum(2 * len(RUBRIC.items(case)) for case in load_cases(POINTS))
    assert f"({answers - 1} of {answers})" in out
    assert "8 of 9 as expected" in out


def test_other_gold_skips_cases_with_the_same_golden_answer(
    tmp_path: Path, judges: dict[str, Judge], capsys: pytest.CaptureFixture[str]
) -> None:
    cases = [json.loads(line) for line in POINTS.read_text().splitlines()][:2]
    twin = dict(cases[0], id="twin")
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(json.dumps(c) for c in [cases[0], twin, cases[1]]) + "\n")
    judges["faithful"] = faithful
    assert main(["calibrate", str(path), "--jury", jury_file(tmp_path, "faithful")]) == 0
    out = capsys.readouterr().out
    # The twin's gold is the same text: the next different one is used instead.
    assert "✓ policy-return-01: gold as answer 1.00 (passes), tool-status-02's gold" in out
    assert "✓ twin: gold as answer 1.00 (passes), tool-status-02's gold" in out


LABELLED = [
    ("c1", "Orders over $50 ship free.", True),
    ("c2", "Shipping is always free.", False),
    ("c3", "ORD-102 can be returned.", True),
    ("c4", "Refunds take 90 days.", False),
]


def labelled_cases(tmp_path: Path) -> str:
    path = tmp_path / "labelled.jsonl"
    rows = [
        {"id": i, "question": "q?", "answer": a, "labels": {"pass": p, "tone": "warm"}}
        for i, a, p in LABELLED
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def criterion_judge(wrong_on: set[str]) -> Judge:
    def judge(request: JudgeRequest) -> dict[str, Any]:
        case = request.case
        assert case is not None
        truth = {i: p for i, _, p in LABELLED}[case.id]
        return {"reason": "r", "pass": truth != (case.id in wrong_on)}

    return judge


def test_agreement_with_labels_is_stored_and_drift_is_shown(
    tmp_path: Path, judges: dict[str, Judge], capsys: pytest.CaptureFixture[str]
) -> None:
    cases = labelled_cases(tmp_path)
    jury = jury_file(tmp_path, "a", "b", rubric="grounded-answer")
    baseline = tmp_path / "baseline.json"
    judges["a"] = criterion_judge(set())
    judges["b"] = criterion_judge({"c4"})
    assert main(["calibrate", cases, "--jury", jury, "--save-baseline", str(baseline)]) == 0
    out = capsys.readouterr().out
    assert "scripted/a · pass: accuracy 100% (4/4 agree; 4/4 rated), kappa 1.000" in out
    # Cohen's kappa from jury.agreement: p_o 0.75, p_e 0.5 (labels half PASS, b 3/4 PASS).
    assert "scripted/b · pass: accuracy 75% (3/4 agree; 4/4 rated), kappa 0.500" in out
    assert "ignored labels (not 'pass' nor a metric of the rubric): tone" in out
    stored = json.loads(baseline.read_text())
    assert stored["raters"]["scripted/b"]["labels"]["pass"]["ratings"]["c4"] is True
    assert stored["raters"]["scripted/b"]["labels"]["pass"]["kappa"] == pytest.approx(0.5)
    assert stored["raters"]["jury"]["labels"]["pass"]["accuracy"] is not None

    # Same judges: no drift.
    assert main(["calibrate", cases, "--jury", jury, "--baseline", str(baseline)]) == 0
    assert "scripted/a · pass: accuracy 100% -> 100%; no rating changed" in capsys.readouterr().out

    # A silent model update: judge a now gets two cases wrong.
    judges["a"] = criterion_judge({"c1", "c2"})
    assert main(["calibrate", cases, "--jury", jury, "--baseline", str(baseline)]) == 1
    out = capsys.readouterr().out
    assert "scripted/a · pass: accuracy 100% -> 50%; changed on c1, c2  DRIFT" in out


def test_warnings_about_the_panel_are_printed(
    tmp_path: Path, judges: dict[str, Judge], capsys: pytest.CaptureFixture[str]
) -> None:
    judges["a"] = judges["b"] = criterion_judge(set())
    path = tmp_path / "jury.toml"
    path.write_text(
        'rubric = "grounded-answer"\nsystem_under_test = "openai/gpt-4o-mini"\n'
        '[[juror]]\nmodel = "scripted/a"\nfamily = "openai"\n'
        '[[juror]]\nmodel = "scripted/b"\nfamily = "openai"\n',
        encoding="utf-8",
    )
    assert main(["calibrate", labelled_cases(tmp_path), "--jury", str(path)]) == 0
    err = capsys.readouterr().err
    assert "warning: jurors scripted/a, scripted/b are all of the openai family" in err
    assert "warning: juror scripted/a is of the openai family, like the system under test" in err


def test_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bare = tmp_path / "bare.jsonl"
    bare.write_text('{"id": "x", "answer": "a"}\n', encoding="utf-8")
    assert main(["calibrate", str(bare)]) == 2
    assert "no case has a golden answer or labels" in capsys.readouterr().err
    assert main(["calibrate", str(POINTS), "--passes", "0"]) == 2
    assert main(["calibrate", str(tmp_path / "missing.jsonl")]) == 2


def test_labels_on_a_metric_compare_each_jurors_value_of_it(
    tmp_path: Path, judges: dict[str, Judge], capsys: pytest.CaptureFixture[str]
) -> None:
    human = {"m1": 5, "m2": 2, "m3": 4, "m4": 1}
    path = tmp_path / "labelled.jsonl"
    path.write_text(
        "".join(
            json.dumps({"id": i, "question": "q?", "answer": "a", "labels": {"correctness": v}})
            + "\n"
            for i, v in human.items()
        ),
        encoding="utf-8",
    )

    def off_by_one_on_m2(request: JudgeRequest) -> dict[str, Any]:
        case = request.case
        assert case is not None
        value = human[case.id] + (1 if case.id == "m2" else 0)
        return scores(3, correctness=value)

    judges["s"] = off_by_one_on_m2
    jury = jury_file(tmp_path, "s", rubric="five-metric")
    assert main(["calibrate", str(path), "--jury", jury]) == 0
    out = capsys.readouterr().out
    assert "scripted/s · correctness: accuracy 75% (3/4 agree; 4/4 rated)" in out
    # An ordinal metric gets a weighted kappa: one step off on one case is a small loss.
    kappa = float(out.split("scripted/s · correctness:")[1].split("kappa ")[1].split()[0])
    assert 0.8 < kappa < 1.0
