"""`jury prompts`: a snapshot of the exact bytes, and `--check` catching any change."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from jury.cli import main

ROOT = Path(__file__).parents[2]
BUILTIN = ROOT / "rubrics" / "builtin"


def cases_file(tmp_path: Path, *answers: str) -> Path:
    path = tmp_path / "cases.jsonl"
    lines = [
        json.dumps({"id": f"case-{i}", "question": "Is it free?", "answer": answer})
        for i, answer in enumerate(answers)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def jury_file(tmp_path: Path, rubric: Path) -> Path:
    path = tmp_path / "jury.toml"
    path.write_text(
        f'rubric = "{rubric.as_posix()}"\n'
        "[[juror]]\n"
        'model = "offline/reference"\n'
        "[[juror]]\n"
        'model = "offline/facts"\n'
        "temperature = 0.5\n",
        encoding="utf-8",
    )
    return path


def prompts(cases: Path, jury: Path, snapshot: Path, *more: str) -> int:
    return main(["prompts", str(cases), "--jury", str(jury), "--snapshot", str(snapshot), *more])


def test_a_one_character_change_in_a_rubric_fails_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rubric = tmp_path / "grounded.toml"
    shutil.copy(BUILTIN / "grounded-answer.toml", rubric)
    cases = cases_file(tmp_path, "Yes, orders over $50 ship free.", "No.")
    jury = jury_file(tmp_path, rubric)
    snapshot = tmp_path / "snapshot"
    assert prompts(cases, jury, snapshot) == 0
    written = sorted(p.relative_to(snapshot).as_posix() for p in snapshot.rglob("*.txt"))
    # One file per (rubric, case, juror).
    assert len(written) == 4
    assert all(p.startswith("grounded-answer/case-") for p in written)
    assert prompts(cases, jury, snapshot, "--check") == 0
    capsys.readouterr()

    text = rubric.read_text(encoding="utf-8")
    rubric.write_text(text.replace("addresses the question", "addresses the questions"), "utf-8")
    assert prompts(cases, jury, snapshot, "--check") == 1
    captured = capsys.readouterr()
    assert "-The answer addresses the question that was asked" in captured.out
    assert "+The answer addresses the questions that was asked" in captured.out
    assert "4 of 4 prompt file(s) differ" in captured.err

    rubric.write_text(text, encoding="utf-8")
    assert prompts(cases, jury, snapshot, "--check") == 0


def test_the_snapshot_holds_the_exact_bytes_per_juror(tmp_path: Path) -> None:
    rubric = tmp_path / "grounded.toml"
    shutil.copy(BUILTIN / "grounded-answer.toml", rubric)
    answer = "Line one\r\nline two\twith a tab   and spaces \u00e9\n"
    cases = cases_file(tmp_path, answer)
    snapshot = tmp_path / "snapshot"
    assert prompts(cases, jury_file(tmp_path, rubric), snapshot) == 0
    files = sorted((snapshot / "grounded-answer" / "case-0").glob("*.txt"))
    assert len(files) == 2
    raw = files[0].read_bytes().decode("utf-8")
    assert answer in raw  # the carriage return survives the round trip
    assert "=== prompt answer · system (" in raw
    assert '"pass": {\n      "type": "boolean"' in raw
    settings = [f.read_text(encoding="utf-8").splitlines()[1] for f in files]
    assert sorted(settings) == [
        "# temperature 0 · max_tokens 1024 · samples 1",
        "# temperature 0.5 · max_tokens 1024 · samples 1",
    ]
    assert prompts(cases, jury_file(tmp_path, rubric), snapshot, "--check") == 0


def test_cases_added_or_removed_are_differences_and_a_rewrite_removes_stale_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rubric = tmp_path / "grounded.toml"
    shutil.copy(BUILTIN / "grounded-answer.toml", rubric)
    jury = jury_file(tmp_path, rubric)
    snapshot = tmp_path / "snapshot"
    assert prompts(cases_file(tmp_path, "a", "b"), jury, snapshot) == 0
    fewer = cases_file(tmp_path, "a")
    assert prompts(fewer, jury, snapshot, "--check") == 1
    assert "--- snapshot/case-1/" in capsys.readouterr().out
    assert prompts(fewer, jury, snapshot) == 0
    assert not (snapshot / "grounded-answer" / "case-1").exists()
    assert prompts(fewer, jury, snapshot, "--check") == 0


def test_a_case_the_rubric_cannot_judge_is_pinned_with_its_reason(tmp_path: Path) -> None:
    cases = cases_file(tmp_path, "only one answer")
    snapshot = tmp_path / "snapshot"
    code = main(
        ["prompts", str(cases), "--rubric", "pairwise-preference", "--snapshot", str(snapshot)]
    )
    assert code == 0
    text = next(snapshot.rglob("*.txt")).read_text(encoding="utf-8")
    assert "=== the rubric cannot judge this case: a pairwise case needs both" in text


def test_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = cases_file(tmp_path, "x")
    missing = tmp_path / "nowhere"
    assert main(["prompts", str(cases), "--snapshot", str(missing), "--check"]) == 2
    assert "no snapshot at" in capsys.readouterr().err
    assert main(["prompts", str(tmp_path / "none.jsonl"), "--snapshot", str(missing)]) == 2
    assert main(["prompts", str(cases), "--rubric", "no-such", "--snapshot", str(missing)]) == 2
    with pytest.raises(SystemExit) as exit_info:
        main(["prompts", str(cases)])  # --snapshot is required
    assert exit_info.value.code == 2


def test_a_snapshot_is_redacted_exactly_as_the_run_records_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A key in a case's text (one in the environment, and one shaped like a provider's), and
    # a pattern of the user's: a committed snapshot must hold none of them.
    monkeypatch.setenv("ACME_API_KEY", "acme-live-0123456789")
    leaky = "Use sk-proj-ABCDEFGHIJKLMNOPQRSTUV or acme-live-0123456789; ticket T-4242."
    cases = cases_file(tmp_path, leaky)
    jury = jury_file(tmp_path, BUILTIN / "grounded-answer.toml")
    snapshot = tmp_path / "snapshot"
    assert prompts(cases, jury, snapshot, "--redact", r"T-\d+") == 0
    texts = [p.read_text(encoding="utf-8") for p in snapshot.rglob("*.txt")]
    run = tmp_path / "run"
    argv = ["run", str(cases), "--jury", str(jury), "--out", str(run), "--progress", "none"]
    assert main([*argv, "--redact", r"T-\d+"]) in (0, 1)
    (recorded,) = [json.loads(line) for line in (run / "cases.jsonl").read_text().splitlines()]
    assert texts
    for text in texts:
        for secret in ("sk-proj-ABCDEFGHIJKLMNOPQRSTUV", "acme-live-0123456789", "T-4242"):
            assert secret not in text
        # The answer as the records keep it, character for character.
        assert recorded["answer"] in text
    assert recorded["answer"] == "Use [redacted] or [redacted]; ticket [redacted]."
    capsys.readouterr()
