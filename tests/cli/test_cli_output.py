"""What the commands print around their reports: hints only where they apply, a finished
run that says so, and a closed pipe that ends the output quietly, not the command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jury.cli import main

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "shopnest"
CASES = str(EXAMPLE / "cases.jsonl")
OFFLINE_JURY = str(EXAMPLE / "jury.toml")
HINT = "Set a provider key or pass --jury"


@pytest.fixture(autouse=True)
def _records_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JURY_CACHE_DIR", raising=False)


def test_the_key_hint_is_given_only_to_a_run_on_the_default_panel(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", CASES, "--out", "default"]) == 1
    assert HINT in capsys.readouterr().out.replace("\n", " ")
    # A jury file of offline jurors was a choice: no hint. Nor on a rescore.
    assert main(["run", CASES, "--jury", OFFLINE_JURY, "--out", "chosen"]) == 1
    out = capsys.readouterr().out
    assert "OFFLINE reference jurors" in out
    assert HINT not in out.replace("\n", " ")
    assert main(["rescore", "default", "--out", "rescored"]) == 1
    out = capsys.readouterr().out
    assert "OFFLINE reference jurors" in out
    assert HINT not in out.replace("\n", " ")


def test_a_finished_run_says_it_is_complete_and_calls_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["run", CASES, "--jury", OFFLINE_JURY, "--out", "nightly", "--progress", "none"]
    assert main(args) == 1
    first = capsys.readouterr().err
    assert "already complete" not in first
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "jury: nightly already complete: 24 verdicts, 0 calls" in err


def _closed_stdout(*args: str, cwd: Path) -> tuple[int, str]:
    """Run ``python -m jury ARGS`` with its standard output closed before it writes (what
    ``| head`` does once it has its lines): its exit code and what it said on stderr."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "jury", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert process.stdout is not None
    assert process.stderr is not None
    process.stdout.close()
    err = process.stderr.read().decode()
    process.stderr.close()
    return process.wait(timeout=60), err


def test_a_closed_pipe_ends_the_output_not_the_command(tmp_path: Path) -> None:
    code, err = _closed_stdout(
        "run", CASES, "--jury", OFFLINE_JURY, "--out", "r", "--progress", "none", cwd=tmp_path
    )
    assert "Traceback" not in err
    assert "BrokenPipe" not in err
    # The run finished, its reports are written, and it exits as its gate says.
    assert code == 1
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["exit_code"] == 1
    assert "finished" in manifest
    assert (tmp_path / "r" / "report.html").exists()
    code, err = _closed_stdout("agreement", "r", "--json", cwd=tmp_path)
    assert (code, err) == (0, "")
    # A prompt snapshot that differs from every prompt: a long diff, into a closed pipe.
    (tmp_path / "snap" / "five-metric").mkdir(parents=True)
    code, err = _closed_stdout(
        "prompts", CASES, "--jury", OFFLINE_JURY, "--snapshot", "snap", "--check", cwd=tmp_path
    )
    assert code == 1
    assert "Traceback" not in err
    assert "differ from" in err
