"""A run resumed from its directory alone reads its cases as the first run did: the `--map`
and `--format` given then are in the manifest and used again; a resume that reads them
otherwise is refused, saying what the run used."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jury.cli import main
from jury.runs._records import read_manifest, read_verdicts

CASES = 6
MAP = ["question=prompt.text", "answer=reply", "golden_answer=expected.answer"]


@pytest.fixture(autouse=True)
def _records_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JURY_CACHE_DIR", raising=False)


def write_records(path: Path) -> Path:
    """JSON lines in a file whose name says no format, with the case fields nested."""
    rows = [
        {
            "id": f"r{n}",
            "prompt": {"text": f"Where is ORD-{n}?"},
            "reply": f"ORD-{n} has shipped." if n % 3 else "No idea.",
            "expected": {"answer": f"ORD-{n} has shipped."},
        }
        for n in range(CASES)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


@pytest.fixture
def interrupted(tmp_path: Path) -> tuple[Path, int]:
    """A run read with --map and --format, cut short after two verdicts (as a kill leaves
    it), and the exit code of the whole run."""
    cases = write_records(tmp_path / "orders.data")
    out = tmp_path / "run"
    argv = ["run", str(cases), "--out", str(out), "--progress", "none", "--format", "jsonl"]
    code = main([*argv, *(f"--map={item}" for item in MAP)])
    assert code in (0, 1)
    verdicts = out / "verdicts.jsonl"
    verdicts.write_text("".join(verdicts.read_text().splitlines(keepends=True)[:2]))
    return out, code


def test_the_manifest_records_how_the_cases_were_read(interrupted: tuple[Path, int]) -> None:
    out, _ = interrupted
    assert read_manifest(out)["reading"] == {
        "map": {"question": "prompt.text", "answer": "reply", "golden_answer": "expected.answer"},
        "format": "jsonl",
    }


def test_a_run_resumed_from_its_directory_alone_reads_its_cases_as_before(
    interrupted: tuple[Path, int], capsys: pytest.CaptureFixture[str]
) -> None:
    out, code = interrupted
    capsys.readouterr()
    assert main(["run", "--resume", str(out), "--progress", "none"]) == code
    assert "resumed" in capsys.readouterr().err
    assert sorted(v.case_id for v in read_verdicts(out)) == [f"r{n}" for n in range(CASES)]


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (
            ["--map", "question=prompt"],
            "cannot resume: the run read its cases with --map question=prompt.text "
            "--map answer=reply --map golden_answer=expected.answer, not --map question=prompt",
        ),
        (["--format", "csv"], "cannot resume: the run read its cases as jsonl, not --format csv"),
    ],
)
def test_a_resume_that_reads_the_cases_otherwise_is_refused(
    interrupted: tuple[Path, int],
    capsys: pytest.CaptureFixture[str],
    options: list[str],
    said: str,
) -> None:
    out, _ = interrupted
    capsys.readouterr()
    assert main(["run", "--resume", str(out), "--progress", "none", *options]) == 2
    assert said in capsys.readouterr().err
    assert len(read_verdicts(out)) == 2  # nothing judged


def test_a_run_read_without_a_map_refuses_a_resume_given_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps({"id": "c1", "question": "Q?", "answer": "A."}) + "\n")
    out = tmp_path / "plain"
    assert main(["run", str(cases), "--out", str(out), "--progress", "none"]) in (0, 1, 3)
    assert read_manifest(out)["reading"] == {"map": {}, "format": "jsonl"}
    capsys.readouterr()
    assert main(["run", "--resume", str(out), "--map", "answer=reply"]) == 2
    assert "the run read its cases with no --map, not --map answer=reply" in capsys.readouterr().err


def test_the_same_map_and_format_given_again_resume(interrupted: tuple[Path, int]) -> None:
    out, code = interrupted
    argv = ["run", "--resume", str(out), "--progress", "none", "--format", "jsonl"]
    assert main([*argv, *(f"--map={item}" for item in reversed(MAP))]) == code
    assert len(read_verdicts(out)) == CASES
