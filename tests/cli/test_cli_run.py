"""`jury run` on the bundled example: the report, the offline label and the exit code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jury.cli import main

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "shopnest" / "cases.jsonl"


@pytest.fixture(autouse=True)
def _records_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run records and the call cache go to the working directory: keep them out of the repo."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JURY_CACHE_DIR", raising=False)


def test_the_example_runs_offline_and_fails_the_gate(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    code = main(["run", str(EXAMPLE)])
    out = capsys.readouterr().out
    # The example holds deliberately broken answers: the gate fails, exit 1.
    assert code == 1
    assert "OFFLINE reference jurors" in out
    assert "not LLM judges" in out
    for section in ("Results by category", "Failed (", "Disagreement (", "Jurors"):
        assert section in out
    # The day-30 boundary answer is wrong, and the report says why.
    assert "edge-return-day30" in out
    assert "correctness 2 < 4" in out
    assert "Gate FAILED" in out
    assert "exit 1" in out


def test_exit_0_when_every_case_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [json.loads(line) for line in EXAMPLE.read_text().splitlines()]
    good = [c for c in lines if c["id"] in ("policy-return-01", "combined-return-01")]
    path = tmp_path / "good.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in good))
    assert main(["run", str(path)]) == 0
    assert "Gate PASSED" in capsys.readouterr().out


def test_an_unknown_offline_juror_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps({"id": "a", "question": "q", "answer": "a"}) + "\n")
    jury_file = tmp_path / "jury.toml"
    jury_file.write_text('jurors = ["offline/nonexistent-method"]\n')
    assert main(["run", str(cases), "--jury", str(jury_file)]) == 2
    assert "unknown offline juror" in capsys.readouterr().err


def test_the_console_script_entry_point(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "jury", "run", str(EXAMPLE), "--threshold", "1", "--no-checks"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
        check=False,
    )
    # At threshold 1 every metric passes, and without the checks the judges alone decide:
    # the gate passes.
    assert done.returncode == 0, done.stderr
    assert "Gate PASSED" in done.stdout


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert main(["run", "/nonexistent/cases.jsonl"]) == 2
    assert "No such file" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        # A new user's trial: -1 hung the run after an unretrieved traceback, and 0 ran.
        (["--concurrency", "-1"], "argument --concurrency: expected a whole number of at least"),
        (["--concurrency", "0"], "argument --concurrency: expected a whole number of at least"),
        (["--max-cost", "-1"], "--max-cost -1: give the most to spend in USD, 0 or more"),
        (["--max-cost", "nan"], "--max-cost nan: give the most to spend in USD, 0 or more"),
    ],
)
def test_a_number_a_run_cannot_take_is_refused_before_anything_is_made(
    flags: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code: int | str | None
    try:
        code = main(["run", str(EXAMPLE), "--out", "run", *flags])
    except SystemExit as exc:  # a flag's own type refuses it, as argparse does
        code = exc.code
    assert code == 2
    assert said in capsys.readouterr().err
    assert not Path("run").exists()


def test_the_library_refuses_them_too(tmp_path: Path) -> None:
    import asyncio

    import jury

    for options, said in (
        ({"concurrency": 0}, "--concurrency 0: give at least 1"),
        ({"max_cost": -1.0}, "--max-cost -1: give the most to spend"),
    ):
        with pytest.raises(jury.ConfigError, match=said):
            asyncio.run(jury.run(str(EXAMPLE), out=str(tmp_path / "run"), **options))
        assert not (tmp_path / "run").exists()


def test_the_library_rescore_refuses_nan_by_its_flag(tmp_path: Path) -> None:
    import asyncio

    import jury

    asyncio.run(jury.run(str(EXAMPLE), out=str(tmp_path / "run"), no_cache=True))
    with pytest.raises(jury.ConfigError, match="--min-pass-rate nan: not a number; give a rate"):
        jury.rescore(tmp_path / "run", out=str(tmp_path / "again"), min_pass_rate=float("nan"))
    assert not (tmp_path / "again").exists()


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--quorum", "0"], "rescore: --quorum 0: Input should be greater than or equal to 1"),
        (["--min-pass-rate", "1.5"], "rescore: --min-pass-rate 1.5: Input should be less than"),
        (["--level", "95"], "rescore: --level 95: Input should be less than 1"),
        # NaN fails every bound: pydantic named one ("less than or equal to 1").
        (["--min-pass-rate", "nan"], "rescore: --min-pass-rate nan: not a number; give a rate"),
        (["--level", "nan"], "rescore: --level nan: not a number; give a level between 0"),
        (["--quorum", "9"], "rescore: --quorum 9: more than the 3 jurors"),
        (["--threshold", "99"], "rescore: --threshold 99: 99 is outside the scale 1..5"),
    ],
)
def test_rescore_names_the_flag_of_a_value_it_cannot_take(
    flags: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", str(EXAMPLE), "--out", "run", "--no-cache", "--progress", "none"]) == 1
    capsys.readouterr()
    assert main(["rescore", "run", "--out", "again", *flags]) == 2
    err = capsys.readouterr().err
    assert said in err
    assert "pydantic" not in err
    assert not Path("again").exists()


def test_a_case_without_a_question_is_judged_and_said(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A new user's trial: a case that lost its question was judged with nothing said.
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()[:3]
    first = json.loads(lines[0])
    del first["question"]
    second = {**json.loads(lines[1]), "question": "  "}
    Path("cases.jsonl").write_text(
        "\n".join([json.dumps(first), json.dumps(second), lines[2]]) + "\n", encoding="utf-8"
    )
    main(["run", "cases.jsonl", "--out", "run", "--no-cache", "--progress", "none"])
    err = capsys.readouterr().err
    assert (
        f"cases.jsonl: 2 case(s) have no question (such as {first['id']}): the judges see the "
        "answer without what it answers"
    ) in " ".join(err.split())
    assert len(Path("run/verdicts.jsonl").read_text(encoding="utf-8").splitlines()) == 3
