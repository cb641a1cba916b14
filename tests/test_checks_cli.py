"""`jury run` with checks, as a user runs it: a real subprocess, its whole stdout and stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
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


COLUMNS = ("case", "category", "verdict", "failed at", "checks", "scores", "why")


def row(stdout: str, case_id: str) -> dict[str, str]:
    """A case's row of the terminal table, by column, with whitespace removed (rich wraps
    and folds long cells over several lines)."""
    cells: list[str] = []
    for line in stdout.splitlines():
        parts = line.split("│")[1:-1]
        if len(parts) != len(COLUMNS):
            if cells:
                break
            continue
        if parts[0].strip() == case_id or (cells and not parts[0].strip()):
            cells = [a + b for a, b in zip(cells or [""] * len(parts), parts, strict=True)]
        elif cells:
            break
    assert cells, f"no row for {case_id}"
    return {name: "".join(cell.split()) for name, cell in zip(COLUMNS, cells, strict=True)}


def test_shopnest_run_shows_checks_and_spares_the_skipped_tool() -> None:
    done = jury_run(str(SHOPNEST))
    assert done.returncode == 1, done.stderr
    out = done.stdout
    assert (
        "13 checks run first; a failed required check fails the case and spares its judges" in out
    )
    skipped = row(out, "combined-return-02")
    assert skipped["verdict"] == "FAIL"
    assert skipped["failed at"] == "toolchoice"
    assert skipped["checks"] == "✓4✗tool_choice✗tool_argument"
    assert skipped["scores"] == "judgesspared"
    assert skipped["why"].startswith("checktool_choicefailed:getOrderStatuswasnevercalled")
    assert row(out, "tool-status-02")["failed at"] == "toolargument"
    assert row(out, "edge-out-of-scope-02")["checks"] == "✓5✗redirect"
    passing = row(out, "combined-return-01")
    assert (passing["verdict"], passing["failed at"], passing["checks"]) == ("PASS", "", "✓7")
    assert passing["scores"].startswith("relevance5")
    # Ten cases fail a required check; three jurors each would have made one call per case.
    assert (
        "Judges spared on 10 case(s) whose required checks failed: 30 judge call(s) saved." in out
    )
    assert "combined-return-02 [combined]  (failed at tool choice)" in out
    assert (
        "Failed cases by the stage that failed first: tool choice 3, tool argument 2, generation"
        in out
    )


def test_no_checks_lets_the_judges_alone_decide() -> None:
    done = jury_run(str(SHOPNEST), "--no-checks")
    assert "Checks off" in done.stdout
    assert "judges spared" not in done.stdout
    skipped = row(done.stdout, "combined-return-02")
    assert (skipped["verdict"], skipped["checks"]) == ("PASS", "")


def test_judge_all_asks_the_judges_on_failed_checks() -> None:
    done = jury_run(str(SHOPNEST), "--judge-all")
    skipped = row(done.stdout, "combined-return-02")
    assert skipped["verdict"] == "FAIL"
    assert skipped["checks"] == "✓4✗tool_choice✗tool_argument"
    assert "correctness5" in skipped["scores"]
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


def test_example_jury_file_runs_a_custom_advisory_check() -> None:
    done = jury_run(str(SHOPNEST), "--jury", "examples/shopnest/jury.toml")
    assert done.returncode == 1, done.stderr
    assert "14 checks run first" in done.stdout
    # The ORD-999 answer never names ORD-101: the advisory check says so, and decides nothing.
    assert row(done.stdout, "tool-status-02")["checks"] == "✓6✗tool_argument!names_the_order"
    assert row(done.stdout, "tool-status-01")["checks"] == "✓8"


def test_a_check_that_cannot_be_loaded_stops_the_run_with_exit_2(tmp_path: Path) -> None:
    jury_file = tmp_path / "jury.toml"
    jury_file.write_text(
        'jurors = ["offline/reference"]\n[[checks.custom]]\nfunction = "nowhere.py:check"\n'
    )
    done = jury_run(str(SHOPNEST), "--jury", str(jury_file))
    assert done.returncode == 2
    assert "checks.custom[0].function: no such file" in done.stderr
    assert done.stdout == ""
