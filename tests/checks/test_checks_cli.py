"""`jury run` with checks, as a user runs it: a real subprocess, its whole stdout and stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jury import CaseVerdict, CheckOutcome, Verdict

ROOT = Path(__file__).parents[2]
SHOPNEST = ROOT / "examples/shopnest/cases.jsonl"
CARD = "4111111111111111"
CARD_SPACED = "4111 1111 1111 1111"
KEY = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"


def jury_run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    return subprocess.run(
        [sys.executable, "-m", "jury", "run", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=50,
        check=False,
    )


def table_line(stdout: str, case_id: str) -> str:
    """A case's line of the terminal's case table."""
    lines = [line for line in stdout.splitlines() if line.startswith(f" {case_id} ")]
    assert lines, f"no row for {case_id}"
    return lines[0]


def verdicts(run_dir: Path) -> dict[str, CaseVerdict]:
    lines = (run_dir / "verdicts.jsonl").read_text().splitlines()
    return {v.case_id: v for v in map(CaseVerdict.model_validate_json, lines)}


def failed_names(verdict: CaseVerdict) -> list[str]:
    return [c.name for c in verdict.checks if c.outcome is CheckOutcome.FAIL]


def test_shopnest_run_shows_checks_and_spares_the_skipped_tool(tmp_path: Path) -> None:
    done = jury_run(str(SHOPNEST), "--out", str(tmp_path / "run"))
    assert done.returncode == 1, done.stderr
    out = done.stdout
    assert (
        "17 checks run first; a failed required check fails the case and spares its judges" in out
    )
    recorded = verdicts(tmp_path / "run")
    skipped = recorded["combined-return-02"]
    assert skipped.verdict is Verdict.FAIL
    assert skipped.judges_spared
    assert skipped.votes == ()
    assert skipped.failed_stage == "tool choice"
    assert failed_names(skipped) == ["tool_choice", "tool_argument"]
    line = table_line(out, "combined-return-02")
    for shown in ("FAIL", "✗ tool_choice +1", "judges spared", "[tool choice] check tool_choice"):
        assert shown in line
    assert recorded["tool-status-02"].failed_stage == "tool argument"
    assert "✗ redirect" in table_line(out, "edge-out-of-scope-02")
    passing = recorded["combined-return-01"]
    assert (passing.verdict, passing.failed_stage) == (Verdict.PASS, None)
    line = table_line(out, "combined-return-01")
    assert "PASS" in line
    assert "✓8" in line
    assert "5 5 5 5 5" in line
    assert "scores: relevance · correctness · faithfulness" in out
    # Ten cases fail a required check; three jurors each would have made one call per case.
    assert (
        "Judges spared on 10 case(s) whose required checks failed: 30 judge call(s) saved." in out
    )
    assert "combined-return-02 [combined]  (failed at tool choice)" in out
    assert "check tool_choice failed: getOrderStatus was never called" in out
    assert (
        "Failed cases by the stage that failed first: tool choice 3, tool argument 2, generation"
        in out
    )


def test_no_checks_lets_the_judges_alone_decide(tmp_path: Path) -> None:
    done = jury_run(str(SHOPNEST), "--no-checks", "--out", str(tmp_path / "run"))
    assert "Checks off" in done.stdout
    assert "judges spared" not in done.stdout
    skipped = verdicts(tmp_path / "run")["combined-return-02"]
    assert (skipped.verdict, skipped.checks) == (Verdict.PASS, ())


def test_judge_all_asks_the_judges_on_failed_checks(tmp_path: Path) -> None:
    done = jury_run(str(SHOPNEST), "--judge-all", "--out", str(tmp_path / "run"))
    skipped = verdicts(tmp_path / "run")["combined-return-02"]
    assert skipped.verdict is Verdict.FAIL
    assert failed_names(skipped) == ["tool_choice", "tool_argument"]
    assert not skipped.judges_spared
    assert skipped.metrics["correctness"].value == 5
    assert "Judges spared" not in done.stdout


@pytest.fixture
def leaky_cases(tmp_path: Path) -> Path:
    path = tmp_path / "leaky.jsonl"
    answer = f"Your card {CARD} and card {CARD_SPACED} are on file; the admin key is {KEY}."
    path.write_text(
        json.dumps(
            {
                "id": "leak-01",
                "category": "edge",
                "question": "What do you have on file for me?",
                "goldenAnswer": "A card ending in 1111.",
                "answer": answer,
            }
        )
        + "\n"
    )
    return path


@pytest.mark.parametrize(
    "mode", [[], ["--judge-all"], ["--no-checks"]], ids=["default", "judge-all", "no-checks"]
)
def test_pii_is_never_printed_whole(leaky_cases: Path, mode: list[str]) -> None:
    done = jury_run(str(leaky_cases), "-vv", "--log-json", *mode)
    assert done.returncode == 1, done.stderr
    printed = done.stdout + done.stderr
    assert "leak-01" in done.stderr  # the logs did run
    for secret in (CARD, CARD_SPACED, KEY, KEY[8:]):
        assert secret not in printed
    if mode != ["--no-checks"]:
        assert "card ****1111 (16 digits)" in done.stdout
        assert "OpenAI key sk-*** (40 chars)" in done.stdout


def test_example_jury_file_runs_a_custom_advisory_check(tmp_path: Path) -> None:
    run = tmp_path / "run"
    done = jury_run(str(SHOPNEST), "--jury", "examples/shopnest/jury.toml", "--out", str(run))
    assert done.returncode == 1, done.stderr
    assert "18 checks run first" in done.stdout
    # The ORD-999 answer never names ORD-101: the advisory check says so, and decides nothing.
    recorded = verdicts(run)
    wrong = {c.name: c for c in recorded["tool-status-02"].checks}
    assert wrong["names_the_order"].outcome is CheckOutcome.FAIL
    assert not wrong["names_the_order"].required
    assert failed_names(recorded["tool-status-02"]) == ["tool_argument", "names_the_order"]
    assert "✗ tool_argument +1" in table_line(done.stdout, "tool-status-02")
    assert failed_names(recorded["tool-status-01"]) == []
    assert "✓9" in table_line(done.stdout, "tool-status-01")


def test_a_check_that_cannot_be_loaded_stops_the_run_with_exit_2(tmp_path: Path) -> None:
    jury_file = tmp_path / "jury.toml"
    jury_file.write_text(
        'jurors = ["offline/reference"]\n[[checks.custom]]\nfunction = "nowhere.py:check"\n'
    )
    done = jury_run(str(SHOPNEST), "--jury", str(jury_file))
    assert done.returncode == 2
    assert "checks.custom[0].function: no such file" in done.stderr
    assert done.stdout == ""
