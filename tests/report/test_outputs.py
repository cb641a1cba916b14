"""Outputs people ask for: `jury export` (CSV, JSON lines, Parquet; a row per case or per
vote), report files where CI expects them (`--junit`, `--html`, `--json` on `run`, `rescore`
and `report`), and two runs side by side (`jury report --compare A B`)."""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from extras import needs
from report_run import CASES, record_run

from jury.cli import main
from jury.runs._records import read_verdicts

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "shopnest"


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    return record_run(tmp_path / "run", tmp_path / "cases.jsonl")


def _export(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["export", *args]) == 0
    return capsys.readouterr().out


def _as_text(value: Any) -> str:
    """A JSON value as the CSV file writes it."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@needs("parquet")
def test_export_writes_the_same_table_in_every_format(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import pyarrow.parquet as pq

    lines = _export(capsys, str(run_dir), "--format", "jsonl").splitlines()
    rows = [json.loads(line) for line in lines]
    table = list(csv.DictReader(io.StringIO(_export(capsys, str(run_dir), "--format", "csv"))))
    parquet = tmp_path / "out" / "cases.parquet"
    assert main(["export", str(run_dir), "--format", "parquet", "-o", str(parquet)]) == 0
    assert pq.read_table(parquet).to_pylist() == rows
    assert table == [{key: _as_text(value) for key, value in row.items()} for row in rows]
    # One row per case, with what a reader needs to sort and filter.
    by_id = {row["case_id"]: row for row in rows}
    assert set(by_id) == {c.id for c in CASES}
    bad = by_id["bad-answer"]
    assert (bad["verdict"], bad["metric.correctness"], bad["disagreement"]) == ("FAIL", 2, True)
    assert (bad["juror.scripted/a"], bad["juror.scripted/b"]) == ("PASS", "FAIL")
    assert bad["dissenting_jurors"] == "scripted/a"
    assert by_id["down"]["juror.scripted/b"] == "unavailable"
    assert by_id["no-tool"]["checks_failed"] == "tool_choice"
    assert by_id["no-tool"]["judges_spared"] is True
    assert by_id["xss"]["answer"] == next(c.answer for c in CASES if c.id == "xss")
    # A scripted juror has no price: the cost is unknown, never 0.
    assert by_id["good"]["cost"] is None
    assert table[0]["cost"] == ""


def test_export_writes_a_row_per_vote(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        json.loads(line)
        for line in _export(capsys, str(run_dir), "--rows", "votes", "--format", "jsonl").split(
            "\n"
        )
        if line
    ]
    verdicts = read_verdicts(run_dir)
    assert len(rows) == sum(len(v.votes) for v in verdicts)
    down = {row["juror"]: row for row in rows if row["case_id"] == "down"}
    assert down["scripted/b"]["status"] == "unavailable"
    assert "503 overloaded" in down["scripted/b"]["error"]
    assert down["scripted/a"]["metric.relevance"] == 5
    assert down["scripted/a"]["case_verdict"] == "INCONCLUSIVE"
    split = {row["juror"]: row for row in rows if row["case_id"] == "bad-answer"}
    assert split["scripted/a"]["dissent"] is True
    assert split["scripted/b"]["reason"] == "b: the refund date is wrong"


def test_export_refuses_parquet_to_a_terminal_and_a_missing_run(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", str(run_dir), "--format", "parquet"]) == 2
    assert "give --output PATH" in capsys.readouterr().err
    assert main(["export", str(tmp_path / "nothing")]) == 2
    assert "not a run directory" in capsys.readouterr().err


def test_run_and_rescore_write_reports_where_ci_expects_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    reports = tmp_path / "reports"
    args = ["--junit", str(reports / "junit.xml"), "--html", str(reports / "report.html")]
    args += ["--json", str(reports / "summary.json")]
    jury_file = str(EXAMPLE / "jury.toml")
    code = main(["run", str(EXAMPLE / "cases.jsonl"), "--jury", jury_file, "--out", "r", *args])
    assert code == 1
    out = capsys.readouterr().out
    for name in ("junit.xml", "report.html", "summary.json"):
        # The same file as in the run directory, and the terminal report says where it went.
        assert (reports / name).read_bytes() == (tmp_path / "r" / name).read_bytes()
        assert f"Report written to {reports / name}" in out
    assert json.loads((reports / "summary.json").read_text())["exit_code"] == 1
    assert ET.parse(reports / "junit.xml").getroot().get("failures") == "13"
    # rescore: a lower bar, new reports in the same places.
    code = main(
        ["rescore", "r", "--threshold", "1", "--min-pass-rate", "0.5", "--out", "r2", *args]
    )
    assert code == 0
    summary = json.loads((reports / "summary.json").read_text())
    assert summary["exit_code"] == 0
    assert (reports / "report.html").read_bytes() == (tmp_path / "r2" / "report.html").read_bytes()


@pytest.mark.parametrize("flag", ["--json", "--junit", "--html"])
def test_a_report_path_of_dash_is_refused_before_the_run_not_written_as_a_file(
    flag: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # "-" is no file to write: a run wrote one named "-" and said nothing.
    monkeypatch.chdir(tmp_path)
    cases, jury_file = str(EXAMPLE / "cases.jsonl"), str(EXAMPLE / "jury.toml")
    assert main(["run", cases, "--jury", jury_file, "--out", "r", flag, "-"]) == 2
    assert f"jury: {flag} -: give a file path" in capsys.readouterr().err
    assert not (tmp_path / "-").exists()
    assert not (tmp_path / "r").exists()  # refused before anything was judged


@pytest.mark.parametrize("command", ["run", "rescore", "merge"])
def test_a_run_folder_of_dash_is_refused_not_made(
    command: str,
    run_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A run is a folder of files: `--out -` made a folder named "-" ("Run recorded in -").
    monkeypatch.chdir(tmp_path)
    given = {
        "run": [str(EXAMPLE / "cases.jsonl"), "--jury", str(EXAMPLE / "jury.toml")],
        "rescore": [str(run_dir)],
        "merge": [str(run_dir)],
    }[command]
    capsys.readouterr()
    assert main([command, *given, "--out", "-"]) == 2
    assert "jury: --out -: give a folder" in capsys.readouterr().err
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize(
    ("command", "flag"),
    [
        ("calibrate", "--json"),
        ("calibrate", "--save-baseline"),
        ("calibrate", "--fit"),
        ("calibrate", "--html"),
        ("label", "--labels"),
    ],
)
def test_a_file_to_write_of_dash_is_refused_by_calibrate_and_label(
    command: str,
    flag: str,
    run_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each wrote a file named "-" (calibrate's report is on standard output), calibrate only
    # after judging the cases: the refusal comes before any judge is asked.
    monkeypatch.chdir(tmp_path)
    target = str(EXAMPLE / "cases.jsonl") if command == "calibrate" else str(run_dir)
    extra = ["--labeller", "me"] if command == "label" else []
    capsys.readouterr()
    assert main([command, target, *extra, flag, "-"]) == 2
    assert f"jury: {flag} -: give a file path" in capsys.readouterr().err
    assert not (tmp_path / "-").exists()


def test_export_to_dash_is_standard_output_as_without_output(
    run_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Nothing else goes to standard output here, so "-" is it (it was a file named "-").
    monkeypatch.chdir(tmp_path)
    assert _export(capsys, str(run_dir), "-o", "-") == _export(capsys, str(run_dir))
    assert not (tmp_path / "-").exists()


def test_report_prints_a_run_again_without_touching_it(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = {path.name: path.stat().st_mtime_ns for path in run_dir.iterdir()}
    html = tmp_path / "ci" / "report.html"
    assert main(["report", str(run_dir), "--html", str(html)]) == 1  # the run's gate: failed
    out = capsys.readouterr().out
    assert "Gate FAILED" in out
    assert "Run recorded in" not in out
    assert html.read_text(encoding="utf-8") == (run_dir / "report.html").read_text("utf-8")
    assert {path.name: path.stat().st_mtime_ns for path in run_dir.iterdir()} == before


def test_report_compares_two_runs_side_by_side(
    run_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    # B: the same run re-scored more leniently (weak and bad-answer pass) and with a case less.
    assert main(["rescore", str(run_dir), "--threshold", "2", "--out", "b"]) in (0, 1, 3)
    lines = (tmp_path / "b" / "verdicts.jsonl").read_text().splitlines()
    (tmp_path / "b" / "verdicts.jsonl").write_text(
        "".join(line + "\n" for line in lines if '"case_id":"good"' not in line)
    )
    capsys.readouterr()
    assert main(["report", "--compare", str(run_dir), "b", "--html", "cmp.html"]) == 0
    said = capsys.readouterr()
    assert "written to cmp.html" in said.out
    html = (tmp_path / "cmp.html").read_text(encoding="utf-8")
    # B's jury is another (its threshold): said in the terminal and on the page, as
    # `jury compare` says it, never left for the reader to find in the manifests.
    warning = "the two sides were judged by different juries (thresholds: A "
    assert f"jury: warning: {warning}" in said.err
    box = html[html.index('id="compare-warnings"') : html.index('<table id="runs">')]
    assert warning in box
    changes = dict(
        re.findall(r'id="case-([^"]+)" data-verdict="[^"]*" data-change="([^"]+)"', html)
    )
    assert changes["weak"] == "better"
    assert changes["bad-answer"] == "better"
    assert changes["good"] == "only in A"
    assert changes["down"] == "same"
    # Changed cases first; the page carries its own policy and escapes the attack.
    order = re.findall(r'<article class="case" id="case-([^"]+)"', html)
    assert order.index("weak") < order.index("down")
    assert "script-src 'sha256-" in html.replace("&#39;", "'")
    assert "&lt;script&gt;window.__pwned" in html
    assert "McNemar" in html
    with pytest.raises(SystemExit) as usage:  # argparse: --compare takes two runs
        main(["report", "--compare", str(run_dir)])
    assert usage.value.code == 2
    assert main(["report"]) == 2
    assert "give a run directory, or --compare A B" in capsys.readouterr().err
