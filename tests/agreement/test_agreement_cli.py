"""`jury agreement` and `jury compare` end to end, on run directories written from real runs."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from agreement_helpers import judge, juror, write_run
from jury import Case
from jury.cli import main

SCORES = {"c1": 5, "c2": 2, "c3": 4, "c4": 1, "c5": 3, "c6": 5, "c7": 2, "c8": 4}


async def agreeing_run(directory: Path, flip: str | None = None) -> Path:
    """Three jurors that agree except `b` on case `flip`; `c` replies garbage on c1."""
    verdicts = await judge(
        sorted(SCORES),
        [
            juror("a", lambda c, s: SCORES[c]),
            juror("b", lambda c, s: 6 - SCORES[c] if c == flip else SCORES[c]),
            juror("c", lambda c, s: None if c == "c1" else SCORES[c]),
        ],
    )
    return write_run(directory, verdicts, rubric="five-metric")


async def test_agreement_report_and_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = await agreeing_run(tmp_path / "run", flip="c4")
    capsys.readouterr()  # the engine's log lines
    assert main(["agreement", str(run), "--bootstrap", "200"]) == 0
    out = capsys.readouterr().out
    assert "Agreement" in out
    assert "correctness" in out
    assert "juror x juror" in out
    assert "widest disagreement" in out
    assert "c4" in out  # the case b flipped is the widest
    assert main(["agreement", str(run), "--fail-under", "0.5", "--bootstrap", "200"]) == 0
    assert "Gate PASSED" in capsys.readouterr().out
    assert main(["agreement", str(run), "--fail-under", "0.99", "--bootstrap", "200"]) == 1
    assert "Gate FAILED" in capsys.readouterr().out


async def test_the_jurors_own_verdicts_have_one_name_in_every_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The table's row was "pass/fail" where its gate line, its undefined reasons, --json and
    # --metric say "verdict": a user read one name and had to type another.
    run = await agreeing_run(tmp_path / "run", flip="c4")
    capsys.readouterr()
    assert main(["agreement", str(run), "--bootstrap", "0", "--fail-under", "0.99"]) == 1
    out = capsys.readouterr().out
    (row,) = [line for line in out.splitlines() if "nominal" in line and "│" in line]
    assert row.split("│")[1].strip() == "verdict"
    assert "verdict (nominal)" in out  # its juror x juror matrix
    assert "verdict: the jurors' own PASS or FAIL" in out  # what the row is, under the table
    assert "pass/fail" not in out
    (gate,) = [line for line in out.splitlines() if "alpha below 0.99:" in line]
    assert "verdict" in gate.split("alpha below 0.99:")[1]
    assert main(["agreement", str(run), "--bootstrap", "0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"]["metric"] == "verdict"
    assert main(["agreement", str(run), "--bootstrap", "0", "--metric", "verdict"]) == 0
    assert "verdict" in capsys.readouterr().out


async def test_undefined_agreement_does_not_pass_the_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    verdicts = await judge(
        ["c1", "c2", "c3"], [juror("a", lambda c, s: 4), juror("b", lambda c, s: 4)]
    )
    run = write_run(tmp_path / "same", verdicts, rubric="five-metric")
    capsys.readouterr()
    assert main(["agreement", str(run), "--fail-under", "0.1", "--bootstrap", "0"]) == 3
    out = capsys.readouterr().out
    assert "Gate INCONCLUSIVE" in out
    assert "undefined" in out


async def test_agreement_json_with_labels_and_lower_bound_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = await agreeing_run(tmp_path / "run", flip="c2")
    capsys.readouterr()
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        "\n".join(
            Case(id=c, answer="a", labels={"correctness": v, "pass": v >= 4}).model_dump_json()
            for c, v in SCORES.items()
        )
    )
    code = main(
        [
            "agreement",
            str(run),
            "--json",
            "--cases",
            str(cases),
            "--bootstrap",
            "200",
            "--fail-under",
            "0.5",
            "--gate-on",
            "lower",
            "--metric",
            "correctness",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    correctness = data["metrics"]["correctness"]
    assert correctness["level"] == "ordinal"
    assert correctness["alpha"]["resamples"] == 200
    assert correctness["labels"]["accuracy"]["a"]["value"] == 1.0
    assert correctness["labels"]["accuracy"]["b"]["value"] == pytest.approx(7 / 8)
    assert list(data["metrics"]) == ["correctness"]
    low = correctness["alpha"]["low"]
    assert data["gate"]["on"] == "lower"
    assert code == (1 if low < 0.5 else 0)
    assert data["gate"]["exit"] == code


def test_agreement_names_every_bad_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "broken"
    run.mkdir()
    (run / "verdicts.jsonl").write_text('{"case_id": "x", "verdict": "PASS"}\nnot json\n{}\n')
    assert main(["agreement", str(run)]) == 2
    err = capsys.readouterr().err
    assert "2 bad lines" in err
    assert "line 2: not valid JSON" in err
    assert "line 3: case_id: missing" in err
    assert main(["agreement", str(tmp_path / "nowhere")]) == 2


async def test_compare_two_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = await agreeing_run(tmp_path / "a")
    worse_scores = {c: (1 if c in ("c1", "c3", "c6", "c8") else v) for c, v in SCORES.items()}
    verdicts = await judge(
        sorted(SCORES), [juror(n, lambda c, s: worse_scores[c]) for n in ("a", "b", "c")]
    )
    b = write_run(tmp_path / "b", verdicts, rubric="five-metric")
    capsys.readouterr()
    # Four pass -> fail of eight is not significant at 0.05 (exact p = 0.125), but each is a
    # regression: the gate is case by case.
    assert main(["compare", str(a), str(b)]) == 1
    out = capsys.readouterr().out
    assert "McNemar (exact)" in out
    assert "not significant" in out
    assert "Stable regressions (PASS in every repeat of A, FAIL in every repeat of B): 4" in out
    assert "4 stable regression(s): c1, c3, c6, c8" in out
    assert "one run on a side" in out
    assert main(["compare", str(a), str(b), "--max-regressions", "4"]) == 0
    assert "Result PASSED" in capsys.readouterr().out
    code = main(["compare", str(a), str(b), "--max-regressions", "4", "--significance", "0.2"])
    assert code == 1
    assert "pass rate is worse" in capsys.readouterr().out
    assert main(["compare", str(a), str(b), "--significance", "0.2", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    pass_rate = data["quantities"][0]
    assert pass_rate["call"] == "worse"
    assert pass_rate["p_value"] == pytest.approx(0.125)
    assert data["exit"] == 1
    assert [c["kind"] for c in data["changes"]] == ["regression"] * 4


async def test_compare_repeats_and_the_jury_files_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a1 = await agreeing_run(tmp_path / "a1")
    a2 = await agreeing_run(tmp_path / "a2", flip="c3")
    b = await agreeing_run(tmp_path / "b", flip="c3")
    capsys.readouterr()
    rules = tmp_path / "jury.toml"
    rules.write_text('jurors = ["offline/golden"]\n[compare]\nsignificance = 0.2\n')
    code = main(["compare", "--a", str(a1), str(a2), "--b", str(b), "--jury", str(rules)])
    out = capsys.readouterr().out
    assert "significance 0.2" in out
    assert "repeats" in out
    assert code == 0
    rules.write_text("[compare]\nsignificanse = 0.2\n")
    assert main(["compare", str(a1), str(b), "--jury", str(rules)]) == 2
    assert "compare.significanse: unknown key" in capsys.readouterr().err
    assert main(["compare", str(a1)]) == 2


def test_the_command_runs_as_a_program(tmp_path: Path) -> None:
    run = asyncio.run(agreeing_run(tmp_path / "run", flip="c4"))
    done = subprocess.run(
        [sys.executable, "-m", "jury", "agreement", str(run), "--json", "--bootstrap", "200"],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).parents[2],
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["cases"] == len(SCORES)
