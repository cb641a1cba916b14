"""`jury run` records, cache, resume and rescore, through the real adapters against the fake
provider server, whose request log counts every call that reached a provider."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from jury import Verdict, summarize
from jury.cli import main
from jury.runs._records import read_manifest, read_verdicts
from served import JURORS as JUROR_MODELS
from served import ServerThread

CASES = 12
JURORS = 2


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ServerThread]:
    """The fake provider server, with the adapters' variables pointing at it."""
    served = ServerThread()
    for name, value in served.server.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JURY_CACHE_DIR", raising=False)
    try:
        yield served
    finally:
        served.stop()


def calls(server: ServerThread) -> int:
    return len(server.requests)


def write_cases(path: Path, count: int = CASES) -> Path:
    lines = []
    for n in range(count):
        answer = "WRONG: no refunds" if n % 4 == 0 else f"Yes, order ORD-{n} can be returned."
        lines.append(
            {
                "id": f"case-{n:03d}",
                "category": "odd" if n % 2 else "even",
                "question": f"Can I return ORD-{n}?",
                "answer": answer,
                "golden_answer": "Yes, within 30 days.",
            }
        )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    jury_file = tmp_path / "jury.toml"
    jury_file.write_text(
        f'jurors = ["{JUROR_MODELS[0]}", "{JUROR_MODELS[1]}"]\n'
        "concurrency = 4\n[retry]\nattempts = 1\n"
    )
    return write_cases(tmp_path / "cases.jsonl"), jury_file


def run(*args: str) -> int:
    return main(["run", *args, "--progress", "none"])


def rescore(*args: str) -> int:
    return main(["rescore", *args, "--progress", "none"])


def test_a_run_is_recorded_and_a_rerun_makes_no_call(
    server: ServerThread, files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    cases, jury_file = files
    assert run(str(cases), "--jury", str(jury_file), "--out", "first") == 1
    assert calls(server) == CASES * JURORS
    verdicts = read_verdicts("first")
    assert sorted(v.case_id for v in verdicts) == [f"case-{n:03d}" for n in range(CASES)]
    failed = {v.case_id for v in verdicts if v.verdict is Verdict.FAIL}
    assert failed == {f"case-{n:03d}" for n in range(0, CASES, 4)}
    manifest = read_manifest("first")
    assert manifest["rubric"]["name"] == "five-metric"
    assert manifest["rubric"]["fingerprint"]
    assert set(manifest["prompts"]) == {"answer"}
    assert manifest["cases"]["count"] == CASES
    assert [j["model"] for j in manifest["jury"]["jurors"]] == list(JUROR_MODELS)
    assert manifest["finished"]
    assert manifest["exit_code"] == 1
    summary = json.loads(Path("first/summary.json").read_text())
    assert summary["failed"] == len(failed)
    assert summary["exit_code"] == 1
    assert Path("first/report.html").read_text().count("case-000") >= 1
    assert "<testsuites" in Path("first/junit.xml").read_text()

    # The same run again: every call is served by the cache.
    assert run(str(cases), "--jury", str(jury_file), "--out", "second") == 1
    assert calls(server) == CASES * JURORS
    again = {v.case_id: v for v in read_verdicts("second")}
    assert all(
        vote.calls.cache_hits == 1 and vote.calls.attempts == 0
        for v in again.values()
        for vote in v.votes
    )
    assert {v.case_id: v.verdict for v in verdicts} == {k: v.verdict for k, v in again.items()}
    assert "Run recorded in second" in capsys.readouterr().out


def test_rescore_with_another_threshold_makes_no_call(
    server: ServerThread, files: tuple[Path, Path]
) -> None:
    cases, jury_file = files
    run(str(cases), "--jury", str(jury_file), "--out", "base")
    made = calls(server)
    base = {v.case_id: v for v in read_verdicts("base")}

    assert (
        main(["rescore", "base", "--threshold", "5", "--out", "strict", "--progress", "none"]) == 1
    )
    assert calls(server) == made
    strict = {v.case_id: v for v in read_verdicts("strict")}
    assert strict.keys() == base.keys()
    for case_id, verdict in base.items():
        # Two jurors: a metric fails when both scored under 5, and is split (inconclusive
        # under the default tie policy) when only one did.
        metrics = verdict.metrics.values()
        if any(float(m.high) < 5 for m in metrics if m.high is not None):
            expected = Verdict.FAIL
        elif any(float(m.low) < 5 for m in metrics if m.low is not None):
            expected = Verdict.INCONCLUSIVE
        else:
            expected = Verdict.PASS
        assert strict[case_id].verdict is expected, case_id
    assert sum(v.verdict is Verdict.FAIL for v in strict.values()) > sum(
        v.verdict is Verdict.FAIL for v in base.values()
    )
    # Lowering the threshold to 2 passes the WRONG answers too (correctness 2).
    assert (
        main(["rescore", "base", "--threshold", "2", "--out", "lenient", "--progress", "none"]) == 0
    )
    assert all(v.verdict is Verdict.PASS for v in read_verdicts("lenient"))
    assert read_manifest("lenient")["rescored_from"] == "base"


def test_a_killed_run_resumes_only_its_unfinished_cases(
    server: ServerThread, files: tuple[Path, Path]
) -> None:
    cases, jury_file = files
    run(str(cases), "--jury", str(jury_file), "--out", "r", "--no-cache")
    lines = Path("r/verdicts.jsonl").read_bytes().splitlines(keepends=True)
    # As if killed after five cases, in the middle of writing the sixth line.
    Path("r/verdicts.jsonl").write_bytes(b"".join(lines[:5]) + lines[5][:40])
    before = calls(server)

    assert run(str(cases), "--jury", str(jury_file), "--out", "r", "--no-cache") == 1
    ids = [v.case_id for v in read_verdicts("r")]
    assert sorted(ids) == [f"case-{n:03d}" for n in range(CASES)]
    # Only the seven unfinished cases were judged again (no cache: each paid once more).
    assert calls(server) - before == (CASES - 5) * JURORS


def test_resume_refuses_a_changed_cases_file(
    server: ServerThread, files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    cases, jury_file = files
    run(str(cases), "--jury", str(jury_file), "--out", "r")
    write_cases(cases, CASES + 1)
    assert run(str(cases), "--jury", str(jury_file), "--resume", "r") == 2
    assert "the cases file changed" in capsys.readouterr().err


def test_refresh_asks_again_and_no_cache_keeps_nothing(
    server: ServerThread, files: tuple[Path, Path]
) -> None:
    cases, jury_file = files
    run(str(cases), "--jury", str(jury_file), "--out", "a", "--no-cache")
    assert not Path(".jury-cache").exists()
    run(str(cases), "--jury", str(jury_file), "--out", "b")
    run(str(cases), "--jury", str(jury_file), "--out", "c", "--refresh")
    assert calls(server) == 3 * CASES * JURORS
    with sqlite3.connect(".jury-cache/calls.sqlite") as db:
        assert db.execute("SELECT count(*) FROM calls").fetchone()[0] == CASES * JURORS


def test_redaction_reaches_every_stored_text(
    server: ServerThread, files: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    cases, jury_file = files
    secret = "sk-ant-" + "x" * 40
    monkeypatch.setenv("SOMEVENDOR_API_KEY", "hunter2-hunter2")
    text = cases.read_text().replace("Can I return ORD-1?", f"Can I return ORD-1? {secret}")
    text = text.replace("ORD-3", "ORD-3 (mail alice@example.com, pin hunter2-hunter2)")
    cases.write_text(text)
    run(str(cases), "--jury", str(jury_file), "--out", "r", "--redact", r"[\w.]+@example\.com")
    stored = [
        Path("r", name).read_text() for name in ("cases.jsonl", "verdicts.jsonl", "report.html")
    ]
    with sqlite3.connect(".jury-cache/calls.sqlite") as db:
        stored += [row[0] for row in db.execute("SELECT request FROM calls")]
    everything = "\n".join(stored)
    assert "alice@example.com" not in everything
    assert secret not in everything
    assert "hunter2-hunter2" not in everything
    assert "[redacted]" in Path("r/cases.jsonl").read_text()
    # The judges saw the real text: redaction is for what is stored, not what is judged.
    assert calls(server) == CASES * JURORS


GOLDEN = Path(__file__).parents[1] / "golden"


def test_a_run_recorded_in_format_1_reads_with_its_calls() -> None:
    # Format 1 kept a vote's accounting as flat fields; reading it lifts them into `calls`.
    verdicts = {v.case_id: v for v in read_verdicts(GOLDEN / "run-format-1")}
    vote = verdicts["policy-return-01"].votes[0]
    assert vote.juror == "offline/evidence"
    assert vote.calls.attempts == 1
    assert vote.calls.served_by == ("offline/evidence",)
    assert vote.served_by == "offline/evidence"
    assert vote.calls.cost == 0.0
    assert vote.calls.latency_s > 0
    assert verdicts["policy-shipping-02"].judges_spared
    summary = summarize(verdicts.values())
    assert summary.jurors["offline/evidence"].calls.attempts == 3
    assert summary.cost == 0.0


def test_a_format_1_run_is_rescored_without_a_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "old"
    run.mkdir()
    for name in ("manifest.json", "verdicts.jsonl"):
        (run / name).write_bytes((GOLDEN / "run-format-1" / name).read_bytes())
    (run / "cases.jsonl").write_bytes(
        (GOLDEN.parent.parent / "examples" / "shopnest" / "cases.jsonl").read_bytes()
    )
    code = main(["rescore", str(run), "--out", str(tmp_path / "new"), "--progress", "none"])
    assert code in (0, 1)
    rescored = {v.case_id: v for v in read_verdicts(tmp_path / "new")}
    assert rescored["policy-return-01"].votes[0].calls.attempts == 1
