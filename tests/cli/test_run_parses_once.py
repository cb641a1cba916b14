"""`jury run` parses each case once per stage that needs it (issue 19, item 5).

A new run reads its cases twice, no more: validation (which also writes the run's
``cases.jsonl``) and judging (the run streams in bounded memory, so the validated cases are
not kept). The prompt hashes come from the first case written, and the reports get the
judged cases from memory (with the HTML page; without it, only the failed conversations the
terminal shows: issue 36). The rubric is loaded once, and each model's lifecycle status is
looked up once for the panel's warnings and once by the jury's refusal of retired models.
These counts are pinned here so that a stage that starts parsing again is seen.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import jury.adapters._registry as registry
from jury import Case, CaseVerdict, Verdict
from jury.cli import main
from jury.report._judged import JudgedCases
from jury.runs._records import Redactor

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "shopnest" / "cases.jsonl"
JURY_FILE = ROOT / "examples" / "shopnest" / "jury.toml"


pytestmark = pytest.mark.usefixtures("offline_in_tmp")


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often each case ID is validated into a `Case` from its data."""
    counted: Counter[str] = Counter()
    original = Case.model_validate

    def counting(cls: type[Case], obj: Any, *args: Any, **kwargs: Any) -> Case:
        counted[obj.get("id", "?") if isinstance(obj, dict) else "?"] += 1
        return original(obj, *args, **kwargs)

    monkeypatch.setattr(Case, "model_validate", classmethod(counting))
    return counted


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Rubric files read, and model statuses looked up."""
    counted: Counter[str] = Counter()
    read_rubric, model_status = registry._read_rubric_file, registry.model_status

    def reading(name: str) -> Any:
        counted["rubric"] += 1
        return read_rubric(name)

    def looking_up(spec: str, day: Any) -> Any:
        counted[spec] += 1
        return model_status(spec, day)

    monkeypatch.setattr(registry, "_read_rubric_file", reading)
    monkeypatch.setattr(registry, "model_status", looking_up)
    return counted


def example_ids() -> list[str]:
    return [json.loads(line)["id"] for line in EXAMPLE.read_text().splitlines() if line]


def test_a_new_run_parses_each_case_twice_validation_and_judging(
    parses: Counter[str], loads: Counter[str], capsys: pytest.CaptureFixture[str]
) -> None:
    ids = example_ids()
    assert main(["run", str(EXAMPLE), "--jury", str(JURY_FILE), "--out", "bare", "--no-html"])
    assert {case_id: parses[case_id] for case_id in ids} == dict.fromkeys(ids, 2)
    parses.clear()
    loads.clear()
    assert main(["run", str(EXAMPLE), "--jury", str(JURY_FILE), "--out", "run"]) == 1
    assert set(ids) <= set(parses)
    assert {case_id: parses[case_id] for case_id in ids} == dict.fromkeys(ids, 2)
    assert loads["rubric"] == 1
    jurors = ("offline/reference", "offline/evidence", "offline/facts")
    assert {spec: loads[spec] for spec in jurors} == dict.fromkeys(jurors, 2)
    # Nothing was lost on the way: the records and the reports hold every case.
    recorded = [json.loads(line)["id"] for line in Path("run/cases.jsonl").read_text().splitlines()]
    assert recorded == ids
    page = Path("run/report.html").read_text(encoding="utf-8")
    assert all(f'id="case-{case_id}"' in page for case_id in ids)
    assert json.loads(Path("run/manifest.json").read_text())["prompts"]
    assert "edge-return-day30" in capsys.readouterr().out


def test_a_resumed_run_reads_its_cases_again_and_still_reports_every_case(
    parses: Counter[str], capsys: pytest.CaptureFixture[str]
) -> None:
    ids = example_ids()
    assert main(["run", str(EXAMPLE), "--jury", str(JURY_FILE), "--out", "run"]) == 1
    parses.clear()
    assert main(["run", "--resume", "run", "--jury", str(JURY_FILE)]) == 1
    # Nothing is judged again; the reports read the recorded cases (none are in memory).
    page = Path("run/report.html").read_text(encoding="utf-8")
    assert all(f'id="case-{case_id}"' in page for case_id in ids)
    assert "already complete" in capsys.readouterr().err


def test_a_bad_cases_file_leaves_no_run_and_no_folder_behind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "bad.jsonl"
    cases.write_text('{"id": "a", "question": "q", "answer": "x"}\n{"id": "b", "bogus": 1}\n')
    assert main(["run", str(cases), "--out", "deep/er/run"]) == 2
    assert "line 2: unknown field bogus" in capsys.readouterr().err
    assert not (tmp_path / "deep").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl"]


def test_the_report_of_a_new_run_shows_the_redacted_case_not_the_secret(
    tmp_path: Path,
) -> None:
    cases = tmp_path / "cases.jsonl"
    case = {"id": "a", "question": "What is my code?", "answer": "Your code is SECRET-4242."}
    cases.write_text(json.dumps(case) + "\n")
    main(["run", str(cases), "--out", "run", "--redact", r"SECRET-\d+"])
    page = Path("run/report.html").read_text(encoding="utf-8")
    assert "SECRET-4242" not in page
    assert "[redacted]" in page
    assert "SECRET-4242" not in Path("run/cases.jsonl").read_text(encoding="utf-8")


def verdict(case_id: str, outcome: Verdict) -> CaseVerdict:
    return CaseVerdict(case_id=case_id, verdict=outcome)


def test_judged_cases_keep_the_first_passing_cases_by_id_whatever_their_order() -> None:
    judged = JudgedCases(Redactor(), limit=3)
    for n in (9, 4, 7, 1, 8, 2, 6, 3, 5, 0):
        judged.add(Case(id=f"c{n}", answer="a"), verdict(f"c{n}", Verdict.PASS))
    judged.add(Case(id="f", answer="a"), verdict("f", Verdict.FAIL))
    everything = [f"c{n}" for n in range(10)] + ["f"]
    assert sorted(judged.cases(everything)) == ["c0", "c1", "c2", "f"]
    assert judged.covers(verdicts=11, limit=3)
    # A run with verdicts from elsewhere (resumed), or a page that shows more, reads the file.
    assert not judged.covers(verdicts=12, limit=3)
    assert not judged.covers(verdicts=11, limit=4)


def test_without_a_page_judged_cases_keep_only_the_conversations_the_terminal_shows() -> None:
    judged = JudgedCases(Redactor(), limit=3, page=False)
    talk = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}]
    judged.add(Case(id="p", answer="a"), verdict("p", Verdict.PASS))
    judged.add(Case(id="f", answer="a"), verdict("f", Verdict.FAIL))
    judged.add(Case.model_validate({"id": "t", "turns": talk}), verdict("t", Verdict.FAIL))
    judged.add(Case.model_validate({"id": "ok", "turns": talk}), verdict("ok", Verdict.PASS))
    assert list(judged.cases(["p", "f", "t", "ok"])) == ["t"]
    assert judged.covers(verdicts=4, limit=3)


def test_held_cases_are_the_redacted_records() -> None:
    judged = JudgedCases(Redactor([r"SECRET-\d+"]), limit=3)
    case = Case(id="a", question="my code?", answer="SECRET-4242", category="c")
    judged.add(case, verdict("a", Verdict.FAIL))
    assert judged.cases(["a"])["a"] == case.model_copy(update={"answer": "[redacted]"})


def test_judged_cases_hold_little_more_than_the_passing_cases_the_page_shows() -> None:
    # The cases held are a large page's peak memory (issue 36): at most an eighth more than
    # the page shows, whatever the order the cases finish in.
    import random

    judged = JudgedCases(Redactor(), limit=40)
    ids = [f"c{n:04d}" for n in range(1000)]
    random.Random(3).shuffle(ids)
    most = 0
    for case_id in ids:
        judged.add(Case(id=case_id, answer="a"), verdict(case_id, Verdict.PASS))
        most = max(most, len(judged.passing))
    assert 40 < most <= 45
    assert sorted(judged.cases(ids)) == sorted(ids)[:40]


def test_judged_cases_give_up_rather_than_hold_more_failed_cases_than_the_limit() -> None:
    judged = JudgedCases(Redactor(), limit=2)
    for n in range(3):
        judged.add(Case(id=f"f{n}", answer="a"), verdict(f"f{n}", Verdict.FAIL))
    assert not judged.covers(verdicts=3, limit=2)
    assert judged.cases(["f0", "f1", "f2"]) == {}


def test_a_run_directory_that_cannot_be_made_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "afile").write_text("not a folder")
    assert main(["run", str(EXAMPLE), "--out", "afile/run"]) == 2
    assert "afile/run: cannot record the run there" in capsys.readouterr().err
