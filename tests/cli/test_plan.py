"""`jury plan`: how many cases a decision needs, the figures equal to statsmodels'."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from extras import needs

import jury
from jury.agreement._power import cases_for_paired_drop, detectable_drop
from jury.cli import main

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "shopnest" / "cases.jsonl"


pytestmark = pytest.mark.usefixtures("offline_in_tmp")


def _row(out: str, question: str) -> list[str]:
    line = next(line for line in out.splitlines() if question in line)
    return line.split()


@needs("test")
def test_plan_for_a_width_prints_statsmodels_figure(capsys: pytest.CaptureFixture[str]) -> None:
    from statsmodels.stats.proportion import samplesize_confint_proportion

    assert main(["plan", "--pass-rate", "0.9", "--width", "0.05"]) == 0
    out = capsys.readouterr().out
    reference = math.ceil(samplesize_confint_proportion(0.9, 0.05, alpha=0.05))
    assert reference == 139
    assert str(reference) in _row(out, "pass rate known to ±5 points")
    # And the size at which the interval the reports show (Wilson's at 95%) is that narrow.
    assert "141" in _row(out, "the reports' interval within ±5 points")
    assert "95% Wilson computed at each size" in out
    assert "pass rate 90.0% (stated)" in out
    assert "drop" not in out  # only what was asked


@needs("test")
def test_plan_for_a_drop_prints_statsmodels_and_the_exact_mcnemar_figures(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["plan", "--drop", "0.05"]) == 0
    out = capsys.readouterr().out
    # No pass rate given: 50%, the rate that needs the most cases.
    assert "pass rate 50.0% (none given)" in out
    from statsmodels.stats.power import NormalIndPower
    from statsmodels.stats.proportion import proportion_effectsize

    separate = NormalIndPower().solve_power(
        effect_size=proportion_effectsize(0.5, 0.45), alpha=0.05, power=0.8
    )
    assert f"{math.ceil(separate):,}" in _row(out, "two separate sets")
    paired = cases_for_paired_drop(0.5, 0.05)
    assert f"{paired:,}" in _row(out, "the same cases (paired)")
    assert "assumed: independent verdicts" in " ".join(out.split())


def test_plan_from_two_runs_uses_the_run_and_the_discordance_seen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", str(EXAMPLE), "--out", "a"]) == 1
    # Version B: the same votes held to a stricter threshold (no judge call).
    assert main(["rescore", "a", "--threshold", "5", "--out", "b"]) == 1
    first = {v.case_id: v.verdict for v in jury.Run.open("a").verdicts}
    second = {v.case_id: v.verdict for v in jury.Run.open("b").verdicts}
    differ = sum(first[c] is not second[c] for c in first) / len(first)
    assert differ > 0
    capsys.readouterr()
    assert main(["plan", "a", "--against", "b", "--drop", "0.1", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["pass_rate"] == pytest.approx(11 / 24)
    assert found["size"] == 24
    assert found["discordance"] == pytest.approx(differ)
    paired = next(r for r in found["rows"] if "paired" in r["question"] and "drop" in r["question"])
    assert paired["cases"] == cases_for_paired_drop(11 / 24, 0.1, discordance=differ)
    assert f"discordance {differ:.1%}" in paired["how"]
    detect = next(r for r in found["rows"] if r["question"] == "what 24 cases detect, paired")
    smallest = detectable_drop(24, 11 / 24, discordance=differ)
    assert smallest is not None
    assert f"a drop of {100 * smallest:.1f}".rstrip("0").rstrip(".") in detect["how"]
    # The library gives what the command prints.
    same = jury.plan("a", against="b", drop=[0.1])
    assert same.model_dump(mode="json") == found


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["--pass-rate", "1.5"], "pass rate 1.5"),
        (["--pass-rate", "0.9", "--drop", "0.95"], "drop 0.95"),
        (["--width", "0"], "width 0"),
        (["--level", "1"], "level 1"),
        (["--against", "x"], "--against: give the first run too"),
    ],
)
def test_plan_refuses_what_cannot_be_planned_by_name(
    arguments: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["plan", *arguments]) == 2
    assert said in capsys.readouterr().err


def test_plan_from_a_run_of_repeats_says_which_run_to_plan_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "rep").mkdir()
    (tmp_path / "rep" / "stability.json").write_text("{}")
    assert main(["plan", "rep"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"rep is a run of repeats: plan from one of them ({Path('rep/repeat-1')})" in err
