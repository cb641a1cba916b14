"""`jury run --batch` from the command line: submit and come back, resume a run by its
directory alone, the estimate of both prices, and the combinations refused."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from batch_helpers import JURORS, make_cases, script_jurors, write_cases

from jury.cli import main
from jury.runs._records import read_verdicts
from served import ServerThread


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[ServerThread]:
    thread = ServerThread(batch_delay=3600.0)
    script_jurors(thread.server)
    for name, value in thread.server.env().items():
        monkeypatch.setenv(name, value)
    yield thread
    thread.stop()


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.setenv("JURY_CACHE_DIR", str(tmp_path / "cache"))
    cases = write_cases(tmp_path / "cases.jsonl", make_cases(14))
    jury_file = tmp_path / "jury.toml"
    jurors = ", ".join(f'"{juror}"' for juror in JURORS)
    jury_file.write_text(f"jurors = [{jurors}]\n[batch]\npoll = 0.01\n")
    return cases, jury_file


def test_submit_only_exits_pending_and_resume_alone_finishes_the_run(
    served: ServerThread,
    files: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    cases, jury_file = files
    run = tmp_path / "run"
    base = ["run", str(cases), "--jury", str(jury_file), "--progress", "none", "--no-checks"]
    assert main([*base, "--out", str(run), "--submit-only"]) == 3
    out = capsys.readouterr().out
    assert "Pending: 14 cases wait on 3 batches" in out
    assert f"jury run --resume {run}" in out
    for spec in JURORS:
        assert spec in out
    assert not (run / "summary.json").exists()
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["jury"]["batch"]["poll"] == 0.01
    # The batches end; the run directory alone says what to resume.
    for job in served.server.batches.jobs.values():
        job.ends = 0.0
    assert main(["run", "--resume", str(run), "--progress", "none"]) == 1
    summary = json.loads((run / "summary.json").read_text())
    assert summary["total"] == 14
    # Resumed as it was started: without the checks.
    assert all(not verdict.checks for verdict in read_verdicts(run))
    assert summary["failed"] == 2
    assert sum(j["calls"]["batched"] for j in summary["jurors"].values()) == 42
    assert "went through provider batches" in capsys.readouterr().out


def test_a_batch_run_against_the_fake_is_labelled_fake_priced_zero_and_cached_as_its(
    files: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    thread = ServerThread(batch_delay=0.0)
    script_jurors(thread.server)
    for name, value in thread.server.env().items():
        monkeypatch.setenv(name, value)
    cases, jury_file = files
    base = ["run", str(cases), "--jury", str(jury_file), "--no-checks", "--progress", "plain"]
    calls = 14 * len(JURORS)
    try:
        assert main([*base, "--batch", "--out", str(tmp_path / "batch")]) == 1
        said = capsys.readouterr()
        assert f"FAKE replies {calls} (jury.testing's fake server, priced $0)" in said.err
        assert f"{calls} of {calls} calls went through provider batches: cost $0.0000" in said.out
        summary = json.loads((tmp_path / "batch" / "summary.json").read_text())
        assert (summary["fake"], summary["cost"]) == (True, 0.0)
        assert (summary["calls"]["fake"], summary["calls"]["batched"]) == (calls, calls)
        assert all(juror["fake"] for juror in summary["jurors"].values())
        assert "FAKE" in (tmp_path / "batch" / "report.html").read_text()
        assert "(FAKE):" in (tmp_path / "batch" / "junit.xml").read_text()
        # The cache keeps them as the fake's: an online run served from it says so.
        assert main([*base, "--out", str(tmp_path / "online")]) == 1
        said = capsys.readouterr()
        source = f"FAKE {thread.server.url}"
        assert f"calls 0 (cached {calls} from {source}" in said.err
        summary = json.loads((tmp_path / "online" / "summary.json").read_text())
        assert summary["fake"] is True
        assert all(where.startswith(source) for where in summary["calls"]["cached_from"])
    finally:
        thread.stop()


def test_submit_only_says_which_batches_wait_for_the_in_flight_limit(
    served: ServerThread,
    files: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Three batches a juror, one in flight at a time: the first of each is sent, the two
    others wait, and the message says so, and when to come back for them all."""
    cases, jury_file = files
    jurors = ", ".join(f'"{juror}"' for juror in JURORS)
    jury_file.write_text(f"jurors = [{jurors}]\n[batch]\npoll = 0.01\nsize = 5\nin_flight = 1\n")
    run = tmp_path / "run"
    base = ["run", str(cases), "--jury", str(jury_file), "--progress", "none", "--no-checks"]
    assert main([*base, "--out", str(run), "--submit-only"]) == 3
    out = capsys.readouterr().out
    assert "Pending: 14 cases wait on 9 batches" in out
    assert "Sent: 3 batches (15 requests)." in out
    assert (
        "Not sent yet: 6 batches (27 requests), held by the in-flight limit ([batch] "
        "in_flight = 1 a model); `jury run --resume` sends them as the batches sent end."
    ) in out
    assert "3 rounds of batches one after another: usually about 3 hours in all" in out
    # The first round ends; a resume that only submits sends the second and says so.
    for job in served.server.batches.jobs.values():
        job.ends = 0.0
    assert main(["run", "--resume", str(run), "--progress", "none", "--submit-only"]) == 3
    out = capsys.readouterr().out
    assert "Sent: 3 batches (15 requests)." in out
    assert "Not sent yet: 3 batches (12 requests)" in out
    assert "2 rounds of batches" in out


def test_batch_mode_refuses_a_budget_and_submit_only_needs_batch_mode(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases, jury_file = files
    assert main(["run", str(cases), "--jury", str(jury_file), "--max-cost", "5"]) == 2
    assert "jury estimate --batch" in capsys.readouterr().err
    assert main(["run", str(cases), "--submit-only", "--out", str(tmp_path / "x")]) == 2
    assert "only in batch mode" in capsys.readouterr().err
    assert main(["run"]) == 2
    assert "give a cases file" in capsys.readouterr().err


@pytest.mark.parametrize("keys", [True, False], ids=["resolved", "priced-from-the-name"])
def test_estimate_with_batch_shows_both_prices(
    files: tuple[Path, Path],
    keys: bool,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    cases, jury_file = files
    for variable in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY"):
        if keys:
            monkeypatch.setenv(variable, "key")
        else:
            monkeypatch.delenv(variable, raising=False)
    assert main(["estimate", str(cases), "--jury", str(jury_file), "--batch"]) == 0
    out = capsys.readouterr().out
    assert "batch cost" in out
    expected = next(line for line in out.splitlines() if line.startswith("Total:"))
    batch = next(line for line in out.splitlines() if line.startswith("Through the"))
    online = float(expected.split("$")[1].split()[0])
    through = float(batch.split("$")[1].split()[0])
    # Every model of this panel has a batch rate of half its online rate.
    assert through == pytest.approx(online / 2, rel=0.01)
    cases_count = len(make_cases(14))
    assert f"{cases_count * 3} calls" in expected


def test_the_readme_batch_settings_parse_as_documented() -> None:
    import re
    import tomllib

    from jury.panel._panel import panel_from_mapping

    section = (Path(__file__).parents[2] / "docs/batches-and-shards.md").read_text("utf-8")
    found = re.search(r"```toml\n(.*?)```", section, re.S)
    assert found is not None
    settings = tomllib.loads(found.group(1))
    panel = panel_from_mapping({"jurors": list(JURORS), **settings})
    assert panel.batch_fallback == "online"
    assert panel.batch is not None
    assert (panel.batch.size, panel.batch.poll, panel.batch.in_flight) == (20000, 60, 8)
