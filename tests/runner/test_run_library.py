"""`jury.run` is the main job as a library, `jury run` its shell (issue 33): the example gate
run through either gives the same verdict per case, the same exit code and the same files in
its run directory; `jury.Run.open` reads both; the library prints nothing."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

import jury
import jury.report
from jury import ConfigError, Run, Verdict
from jury.cli import main

EXAMPLE = Path(__file__).parents[2] / "examples" / "shopnest" / "cases.jsonl"
#: What differs between two runs of the same cases by design: when, where, how long.
TIMINGS = {"duration_s", "latency_s", "started", "finished", "run_id", "command", "cwd"}


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No keys: the default panel is the offline one, as on a fresh machine."""
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def without_timings(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def files(run: Path) -> set[str]:
    return {path.name for path in run.iterdir()}


def test_the_example_gate_gives_the_same_through_the_library_and_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    library = asyncio.run(jury.run(str(EXAMPLE), out="by-library", no_cache=True))
    said = capsys.readouterr()
    assert (said.out, said.err) == ("", "")  # a library prints nothing
    code = main(["run", str(EXAMPLE), "--out", "by-command", "--no-cache", "--progress", "none"])
    assert "Gate FAILED" in capsys.readouterr().out
    assert code == library.exit_code == 1
    assert not library.passed
    # The same verdict per case, and the same files.
    by_command = Run.open("by-command")
    assert {v.case_id: v.verdict for v in library.verdicts} == {
        v.case_id: v.verdict for v in by_command.verdicts
    }
    assert files(tmp_path / "by-library") == files(tmp_path / "by-command")
    assert {"manifest.json", "verdicts.jsonl", "summary.json", "report.html", "junit.xml"} <= (
        files(tmp_path / "by-library")
    )
    summaries = [
        json.loads((tmp_path / run / "summary.json").read_text())
        for run in ("by-library", "by-command")
    ]
    assert without_timings(summaries[0]) == without_timings(summaries[1])
    # `Run.open` reads both, and gives what the run gave.
    reopened = Run.open("by-library")
    assert reopened.exit_code == by_command.exit_code == 1
    assert reopened.finished
    assert reopened.summary.pass_rate == library.summary.pass_rate == summaries[0]["pass_rate"]
    assert reopened.summary.failed == library.summary.failed
    assert reopened.cost == 0.0
    assert len(list(reopened.cases())) == 24
    assert {case_id for case_id, _ in reopened.votes()} <= {v.case_id for v in reopened.verdicts}
    assert reopened.manifest["cases"]["count"] == 24


def test_the_reports_of_a_run_are_written_where_asked_from_the_library(tmp_path: Path) -> None:
    run = asyncio.run(jury.run(str(EXAMPLE), out="r", no_cache=True, ids=["policy-return-01"]))
    assert [v.verdict for v in run.verdicts] == [Verdict.PASS]
    assert run.passed
    jury.report.write_junit(Run.open("r"), tmp_path / "copies" / "junit.xml")
    jury.report.write_html(run, tmp_path / "copies" / "report.html")
    assert (tmp_path / "copies" / "junit.xml").read_text().startswith("<?xml")
    assert "policy-return-01" in (tmp_path / "copies" / "report.html").read_text()


def test_cases_given_in_memory_are_judged_and_a_typo_in_an_option_is_named(
    tmp_path: Path,
) -> None:
    cases = [json.loads(line) for line in EXAMPLE.read_text().splitlines()[:3]]
    run = asyncio.run(jury.run(cases, out="mem", no_cache=True))
    assert len(run.verdicts) == 3
    with pytest.raises(ConfigError, match="max_costs"):
        asyncio.run(jury.run(str(EXAMPLE), max_costs=1.0))


def test_a_recorded_run_is_rescored_and_shards_merged_by_the_library(tmp_path: Path) -> None:
    base = asyncio.run(jury.run(str(EXAMPLE), out="base", no_cache=True))
    strict = jury.rescore("base", out="strict", threshold=5)
    assert strict.path == Path("strict")
    assert strict.summary.passed <= base.summary.passed
    assert Run.open("strict").manifest["rescored_from"] == "base"
    for index in (1, 2):
        asyncio.run(jury.run(str(EXAMPLE), out=f"s{index}", no_cache=True, shard=f"{index}/2"))
    merged = jury.merge(["s1", "s2"], out="merged")
    assert {v.case_id: v.verdict for v in merged.verdicts} == {
        v.case_id: v.verdict for v in base.verdicts
    }
    assert merged.exit_code == base.exit_code


def test_a_run_that_prints_nothing_never_imports_the_terminal_code(tmp_path: Path) -> None:
    # Issue 36: a harness that runs the gate inside its own process pays for the report
    # code only when something prints (rich is the terminal's, not the run's), and the
    # page's bootstrap for neither numpy.random nor numpy.ma (4.4 MB of resident memory).
    import subprocess
    import sys

    code = (
        "import asyncio, sys, jury; "
        f"run = asyncio.run(jury.run({str(EXAMPLE)!r}, out={str(tmp_path / 'run')!r}, "
        f"cache_dir={str(tmp_path / 'cache')!r})); "
        "print(run.finished, 'rich' in sys.modules, run.published.page is not None, "
        "[m for m in ('numpy.random', 'numpy.ma') if m in sys.modules])"
    )
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert done.stdout.split() == ["True", "False", "True", "[]"]
    page = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    assert "1000 bootstrap resamples of cases, seed 0" in page  # the intervals were drawn


def test_a_run_without_its_html_report_imports_neither_numpy_nor_jinja2(tmp_path: Path) -> None:
    # Issue 36: the page's agreement statistics (NumPy) and its templates (Jinja2) are most of
    # a run's peak memory; a run that does not write the page pays for neither. The pass
    # rate's interval, in every other report, needs only the standard library.
    import subprocess
    import sys

    out = tmp_path / "run"
    code = (
        "import asyncio, os, sys, jury; "
        f"run = asyncio.run(jury.run({str(EXAMPLE)!r}, out={str(out)!r}, no_cache=True, "
        "no_html=True)); "
        "print(run.exit_code, run.published.page, 'numpy' in sys.modules, "
        "'jinja2' in sys.modules)"
    )
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert done.stdout.split() == ["1", "False", "False", "False"]
    assert not (out / "report.html").exists()
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["pass_rate_interval"]["method"] == "wilson"
    junit = (out / "junit.xml").read_text(encoding="utf-8")
    assert "Wilson" in junit
    # The offline panel's jurors are no LLM judges, and CI's reader is told so.
    assert 'name="offline" value="offline/evidence, offline/facts, offline/reference"' in junit
    assert "OFFLINE reference jurors (offline/evidence, offline/facts, offline/reference)" in junit


def test_no_html_is_said_removes_a_page_that_no_longer_reports_the_run_and_can_be_undone(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", str(EXAMPLE), "--out", "r", "--no-cache", "--progress", "none"]) == 1
    assert Path("r/report.html").is_file()
    capsys.readouterr()
    assert main(["run", "--resume", "r", "--no-html", "--progress", "none"]) == 1
    printed = capsys.readouterr().out
    assert "No HTML report (--no-html): `jury report r --html r/report.html` writes it" in printed
    assert "Gate FAILED" in printed
    assert not Path("r/report.html").exists()
    assert {"summary.json", "junit.xml"} <= set(os.listdir("r"))
    assert main(["report", "r", "--html", "page.html"]) == 1
    assert "bootstrap resamples of cases" in Path("page.html").read_text(encoding="utf-8")
    # A run started without its page is resumed (a batch collected) without it.
    assert main(["run", str(EXAMPLE), "--out", "q", "--no-html", "--progress", "none"]) == 1
    assert main(["run", "--resume", "q", "--progress", "none"]) == 1
    assert not Path("q/report.html").exists()
    # Contradictory options stop before a run directory is made.
    assert main(["run", str(EXAMPLE), "--no-html", "--html", "x.html", "--out", "r2"]) == 2
    assert "--no-html and --html x.html: give one of the two" in capsys.readouterr().err
    assert not Path("r2").exists()
    with pytest.raises(ConfigError, match="give one of the two"):
        jury.rescore("r", out="r3", no_html=True, html="x.html")
    assert not Path("r3").exists()


async def test_what_a_run_warned_of_is_in_every_report_and_in_those_made_again(
    server: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # Nothing silent: a warning (here, a juror named by an alias that can be re-pointed) is
    # in the terminal, summary.json, the page and JUnit, and `jury report` says it again.
    jury_file = _write("jury.toml", 'jurors = ["openai/gpt-4.1-mini"]\n')
    run = await jury.run(str(EXAMPLE), jury=jury_file, out="r", no_cache=True)
    _the_warning_is_everywhere(run, capsys)
    # A re-scored run and shards merged say what the runs they were made from warned of.
    for index in (1, 2):
        shard = f"{index}/2"
        await jury.run(str(EXAMPLE), jury=jury_file, out=f"s{index}", shard=shard, no_html=True)
    _made_from_runs_say_it_again(run)


def _made_from_runs_say_it_again(run: Run) -> None:
    for made in (jury.rescore("r", out="rescored"), jury.merge(["s1", "s2"], out="merged")):
        assert made.warnings == run.warnings
        assert made.path is not None
        assert Run.open(made.path).warnings == run.warnings
        summary = json.loads((made.path / "summary.json").read_text(encoding="utf-8"))
        assert summary["warnings"] == list(run.warnings)


def _write(name: str, text: str) -> str:
    Path(name).write_text(text, encoding="utf-8")
    return name


def _the_warning_is_everywhere(run: Run, capsys: pytest.CaptureFixture[str]) -> None:
    said = "gpt-4.1-mini is an alias, not a dated snapshot"
    (warning,) = [w for w in run.warnings if said in w]
    summary = json.loads(Path("r/summary.json").read_text(encoding="utf-8"))
    assert summary["warnings"] == list(run.warnings)
    assert said in Path("r/report.html").read_text(encoding="utf-8")
    junit = Path("r/junit.xml").read_text(encoding="utf-8")
    assert f'name="warning.1" value="{warning}"' in junit
    assert f"warning: {warning}" in junit
    assert Run.open("r").warnings == run.warnings
    assert main(["report", "r", "--html", "again.html", "--json", "again.json"]) == 1
    assert f"warning: {warning}" in " ".join(capsys.readouterr().out.split())  # lines wrap
    assert said in Path("again.html").read_text(encoding="utf-8")
    again = json.loads(Path("again.json").read_text(encoding="utf-8"))
    assert again["warnings"] == list(run.warnings)


def test_a_run_resumes_with_other_call_settings_and_a_changed_jury_is_named(
    capsys: pytest.CaptureFixture[str],
) -> None:
    first = ["run", str(EXAMPLE), "--out", "c", "--limit", "3", "--progress", "none"]
    code = main([*first, "--concurrency", "1", "--no-cache"])
    # How its calls travel is not the jury: resumed at the default concurrency (after rate
    # limits, a user lowers it; on a busy machine, raises a timeout) it is the same run.
    assert main(["run", "--resume", "c", "--progress", "none"]) == code
    Path("other.toml").write_text('jurors = ["offline/reference"]\n', encoding="utf-8")
    capsys.readouterr()
    assert main(["run", "--resume", "c", "--jury", "other.toml", "--progress", "none"]) == 2
    assert "cannot resume: the jury (jurors" in capsys.readouterr().err


CHECK = """
from jury import Case
from jury.checks import Finding, check, passed


@check(stage="generation", required=False)
def said(case: Case) -> Finding:
    return passed()
"""


def test_a_run_whose_jury_names_files_by_relative_paths_resumes_from_anywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The jury file names its check file relative to itself. Given as "j.toml", the check
    # was recorded as "mine.py"; `--resume` read the jury file from the recorded working
    # folder ("/abs/j.toml") and saw "/abs/mine.py": refused as "the jury (checks) changed",
    # the documented way to collect a batch or continue after an account stop.
    Path("mine.py").write_text(CHECK, encoding="utf-8")
    Path("other.py").write_text(CHECK, encoding="utf-8")
    Path("j.toml").write_text(
        'jurors = ["offline/reference"]\n[[checks.custom]]\nfunction = "mine.py:said"\n',
        encoding="utf-8",
    )
    first = ["run", str(EXAMPLE), "--jury", "j.toml", "--out", "c", "--limit", "3"]
    code = main([*first, "--progress", "none", "--no-cache"])
    assert code in (0, 1)
    assert main(["run", "--resume", "c", "--progress", "none"]) == code
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert main(["run", "--resume", str(tmp_path / "c"), "--progress", "none"]) == code
    # Another check file is still another jury.
    monkeypatch.chdir(tmp_path)
    Path("j.toml").write_text(
        'jurors = ["offline/reference"]\n[[checks.custom]]\nfunction = "other.py:said"\n',
        encoding="utf-8",
    )
    capsys.readouterr()
    assert main(["run", "--resume", "c", "--progress", "none"]) == 2
    assert "cannot resume: the jury (checks) changed" in capsys.readouterr().err


def test_a_check_file_whose_code_changed_is_named_when_a_run_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The jury records the check by its path only: the same path holding other code resumed
    # in silence, and the run's verdicts mixed two checks.
    Path("sub").mkdir()
    Path("sub/mine.py").write_text(CHECK, encoding="utf-8")
    Path("sub/j.toml").write_text(
        'jurors = ["offline/reference"]\n[[checks.custom]]\nfunction = "mine.py:said"\n',
        encoding="utf-8",
    )
    first = ["run", str(EXAMPLE), "--jury", "sub/j.toml", "--out", "c", "--limit", "3"]
    code = main([*first, "--progress", "none", "--no-cache"])
    assert main(["run", "--resume", "c", "--progress", "none"]) == code  # unchanged: resumes
    changed = CHECK.replace(", passed", ", failed").replace("passed()", 'failed("no")')
    Path("sub/mine.py").write_text(changed, encoding="utf-8")
    capsys.readouterr()
    assert main(["run", "--resume", "c", "--progress", "none"]) == 2
    assert "cannot resume: the check file sub/mine.py changed" in capsys.readouterr().err
    monkeypatch.chdir(tmp_path / "sub")
    assert main(["run", "--resume", str(tmp_path / "c"), "--progress", "none"]) == 2
    assert "cannot resume: the check file mine.py changed" in capsys.readouterr().err


def test_a_changed_threshold_or_rubric_is_named_once_when_a_run_resumes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The thresholds and the rubric's name are the jury's, and the rubric's fingerprint
    # changes with them: one change was named twice ("the jury (thresholds) and the rubric").
    rubric = Path(jury.__file__).parents[1] / "rubrics" / "builtin" / "five-metric.toml"
    Path("mine.toml").write_text(rubric.read_text(encoding="utf-8"), encoding="utf-8")
    first = ["run", str(EXAMPLE), "--out", "c", "--limit", "3", "--progress", "none"]
    assert main([*first, "--rubric", "mine.toml", "--no-cache"]) == 1
    capsys.readouterr()

    def refused(*flags: str) -> str:
        assert main(["run", "--resume", "c", "--progress", "none", *flags]) == 2
        return capsys.readouterr().err

    resumed = ["--rubric", "mine.toml"]
    assert "cannot resume: the jury (thresholds) changed since" in refused(
        *resumed, "--threshold", "3"
    )
    assert "cannot resume: the jury (rubric) changed since" in refused(
        "--rubric", "grounded-answer"
    )
    # The file's content changed: named, by itself and beside other thresholds.
    text = Path("mine.toml").read_text(encoding="utf-8")
    Path("mine.toml").write_text(text.replace("that was asked?", "asked?"), encoding="utf-8")
    assert "cannot resume: the rubric changed since" in refused(*resumed)
    assert "cannot resume: the jury (thresholds) and the rubric changed" in refused(
        *resumed, "--threshold", "3"
    )


def test_a_finished_run_resumed_under_other_rules_is_pointed_to_the_rescore_that_decides_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Changed rules only decide the recorded votes again: a new run (all the message said)
    # pays for every call again, where `jury rescore` calls no judge.
    first = ["run", str(EXAMPLE), "--out", "c", "--limit", "3", "--progress", "none"]
    assert main([*first, "--no-cache"]) == 1
    capsys.readouterr()
    assert main(["run", "--resume", "c", "--threshold", "3", "--progress", "none"]) == 2
    said = capsys.readouterr().err
    assert "cannot resume: the jury (thresholds) changed since the run started; " in said
    assert "`jury rescore c --threshold 3` decides its recorded votes again by the new " in said
    assert "or start a new run (another --out)" in said
    # What it says works.
    assert main(["rescore", "c", "--threshold", "3", "--out", "d", "--progress", "none"]) != 2
    assert Run.open("d").manifest["jury"]["thresholds"] == {"*": 3.0}
    # Not for other jurors (their votes were never asked), nor for an unfinished run.
    Path("other.toml").write_text('jurors = ["offline/reference"]\n', encoding="utf-8")
    assert main(["run", "--resume", "c", "--jury", "other.toml", "--progress", "none"]) == 2
    assert "rescore" not in capsys.readouterr().err
    manifest = json.loads(Path("c/manifest.json").read_text(encoding="utf-8"))
    del manifest["finished"]
    Path("c/manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert main(["run", "--resume", "c", "--threshold", "3", "--progress", "none"]) == 2
    said = capsys.readouterr().err
    assert "the jury (thresholds) changed" in said
    assert "rescore" not in said
