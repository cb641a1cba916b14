"""`jury run GOLDEN --agent file.py:function`: the agent answers, the run records, the jury judges.

The agent here replays the ShopNest example's answers and traces for the example's questions,
so that the verdicts of the agent run can be set case by case against the verdicts of `jury
run` on the example file itself (which holds exactly those answers).
"""

from __future__ import annotations

import json
import re
import socket
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from extras import needs

import jury
from jury.cli import main

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "shopnest" / "cases.jsonl"

AGENT = """
import asyncio, json, os
from pathlib import Path
from jury import Case
from jury.adapters import AgentReply

RECORDED = {{}}
for line in Path({example!r}).read_text().splitlines():
    case = Case.model_validate(json.loads(line))
    RECORDED[case.id] = case


def _log(case):
    with open(os.environ["AGENT_LOG"], "a") as log:
        log.write(case.id + "\\n")


def answer(case):
    _log(case)
    known = RECORDED[case.id]
    return AgentReply(answer=known.answer, trace=known.trace)


async def answer_async(case):
    await asyncio.sleep(0.001)
    return answer(case)


def raising(case):
    _log(case)
    raise ValueError("the order index is empty")


async def hanging(case):
    _log(case)
    await asyncio.sleep(30)


def empty(case):
    _log(case)
    return ""


def unreachable(case):
    _log(case)
    raise ConnectionRefusedError(111, "Connection refused")
"""


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JURY_CACHE_DIR", raising=False)
    monkeypatch.setenv("AGENT_LOG", str(tmp_path / "agent.log"))
    (tmp_path / "agent.py").write_text(AGENT.format(example=str(EXAMPLE)))
    golden = []
    for line in EXAMPLE.read_text().splitlines():
        record = json.loads(line)
        record.pop("trace")  # the answer and what the agent did: the agent gives them
        golden.append(json.dumps(record) + "\n")
    (tmp_path / "golden.jsonl").write_text("".join(golden))


def calls(tmp_path: Path) -> list[str]:
    log = tmp_path / "agent.log"
    return log.read_text().split() if log.exists() else []


def verdicts(run: Path) -> dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]]:
    """Each case's verdict, reasons and check outcomes, by case ID."""
    out = {}
    for line in (run / "verdicts.jsonl").read_text().splitlines():
        data = json.loads(line)
        checks = tuple(f"{c['name']}={c['outcome']}" for c in data.get("checks", ()))
        out[data["case_id"]] = (data["verdict"], tuple(data.get("reasons", ())), checks)
    return out


@pytest.mark.parametrize("function", ["answer", "answer_async"], ids=["sync", "async"])
def test_an_agent_runs_verdicts_equal_those_of_the_file_of_its_answers_case_by_case(
    tmp_path: Path, function: str, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = f"agent.py:{function}"
    assert main(["run", "golden.jsonl", "--agent", agent, "--out", "with-agent"]) == 1
    assert main(["run", str(EXAMPLE), "--out", "recorded"]) == 1
    assert main(["run", "with-agent/cases.jsonl", "--out", "again"]) == 1
    by_agent = verdicts(tmp_path / "with-agent")
    assert len(by_agent) == 24
    assert by_agent == verdicts(tmp_path / "recorded")
    assert by_agent == verdicts(tmp_path / "again")
    assert sorted(calls(tmp_path)) == sorted(by_agent)  # once per case
    text = (tmp_path / "with-agent/cases.jsonl").read_text()
    recorded = [json.loads(line) for line in text.splitlines()]
    assert all(case["answer"] for case in recorded)
    assert any(case.get("trace", {}).get("retrieved_sources") for case in recorded)

    capsys.readouterr()
    assert main(["run", "golden.jsonl", "--agent", agent, "--out", "with-agent"]) == 1
    assert len(calls(tmp_path)) == 24  # a finished run asked again calls the agent 0 times
    assert "already complete" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("function", "error"),
    [
        ("raising", "raised ValueError: the order index is empty"),
        ("hanging", "timed out after 0.2s"),
        ("empty", "answer is empty"),
    ],
)
def test_a_broken_agent_fails_every_case_at_the_agent_stage_in_every_report(
    tmp_path: Path, function: str, error: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "jury.toml").write_text(
        'jurors = ["offline/reference"]\nagent_timeout = 0.2\nagent_concurrency = 24\n'
    )
    agent = f"agent.py:{function}"
    code = main(["run", "golden.jsonl", "--jury", "jury.toml", "--agent", agent, "--out", "run"])
    out = capsys.readouterr().out
    assert code == 1
    recorded = verdicts(tmp_path / "run")
    assert {v[0] for v in recorded.values()} == {"FAIL"}
    assert all(v[2] == ("agent=fail",) for v in recorded.values())
    assert all(any(error in reason for reason in v[1]) for v in recorded.values())
    text = (tmp_path / "run/verdicts.jsonl").read_text()
    lines = [json.loads(line) for line in text.splitlines()]
    assert all(not line.get("votes") for line in lines)  # no judge was asked
    assert error in out
    # The judges' calls not made are counted, and the line says why they were spared.
    spared = " ".join(out.split())
    assert "Judges spared on 24 case(s) whose agent or required checks failed: 24 judge" in spared
    assert error in (tmp_path / "run/junit.xml").read_text()
    assert error in (tmp_path / "run/report.html").read_text()


def test_an_agent_that_cannot_be_reached_stops_the_run_with_exit_2_and_no_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", "golden.jsonl", "--agent", "agent.py:unreachable", "--out", "run"])
    err = capsys.readouterr().err
    assert code == 2
    assert "agent.py:unreachable cannot be reached" in err
    assert "Connection refused" in err
    assert not (tmp_path / "run/verdicts.jsonl").read_text()


def test_an_endpoint_that_refuses_connections_stops_the_run_with_exit_2_paying_no_judge(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as probe:  # a port nothing listens on: bound, then closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/ask"
    code = main(["run", "golden.jsonl", "--agent", url, "--out", "run", "--no-cache"])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{url} cannot be reached" in err
    assert not (tmp_path / "run/verdicts.jsonl").read_text()


def test_the_shopnest_golden_set_through_the_example_agent_fails_the_cases_built_to_fail(
    tmp_path: Path,
) -> None:
    shopnest = EXAMPLE.parent
    golden, agent = shopnest / "golden.jsonl", f"{shopnest / 'agent.py'}:answer"
    assert main(["run", str(golden), "--agent", agent, "--out", "agent-run"]) == 1
    assert main(["run", str(EXAMPLE), "--out", "recorded"]) == 1
    assert verdicts(tmp_path / "agent-run") == verdicts(tmp_path / "recorded")


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ("agent.py:missing", "agent.py has no 'missing'"),
        ("nowhere.py:answer", "no such file"),
        ("no_such_package.agent:answer", "no module named 'no_such_package.agent'"),
    ],
)
def test_an_agent_that_cannot_be_loaded_exits_2_before_anything_is_recorded(
    tmp_path: Path, spec: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "golden.jsonl", "--agent", spec, "--out", "run"]) == 2
    assert said in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_a_file_with_no_answer_and_no_agent_exits_2_and_estimate_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "golden.jsonl", "--out", "run"]) == 2
    err = capsys.readouterr().err
    assert "no case has an answer: give --agent, or map an answer column" in err
    assert not (tmp_path / "run").exists()
    assert main(["estimate", "golden.jsonl"]) == 0
    assert "no case has an answer" in capsys.readouterr().out


def test_cases_without_an_answer_among_answered_ones_are_named_in_one_notice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = EXAMPLE.read_text().splitlines()
    mixed = [json.loads(line) for line in lines[:4]]
    mixed[1].pop("trace")
    mixed[3].pop("trace")
    (tmp_path / "mixed.jsonl").write_text("".join(json.dumps(c) + "\n" for c in mixed))
    assert main(["run", "mixed.jsonl", "--out", "run"]) == 1
    err = capsys.readouterr().err
    notices = [line for line in err.splitlines() if "have no answer" in line]
    assert len(notices) == 1
    assert mixed[1]["id"] in notices[0]
    assert mixed[3]["id"] in notices[0]
    failed = verdicts(tmp_path / "run")
    assert "answer_present=fail" in failed[mixed[1]["id"]][2]


def test_answers_judges_a_runs_recorded_answers_with_a_new_jury_without_the_agent(
    tmp_path: Path,
) -> None:
    assert main(["run", "golden.jsonl", "--agent", "agent.py:answer", "--out", "first"]) == 1
    (tmp_path / "new.toml").write_text('jurors = ["offline/reference"]\n')
    code = main(["run", "--answers", "first", "--jury", "new.toml", "--out", "second"])
    assert code in (0, 1)
    assert len(calls(tmp_path)) == 24
    second = verdicts(tmp_path / "second")
    assert set(second) == set(verdicts(tmp_path / "first"))
    manifest = json.loads((tmp_path / "second/manifest.json").read_text())
    assert [j["model"] for j in manifest["jury"]["jurors"]] == ["offline/reference"]


FLAKY = """
import os
from pathlib import Path

def answer(case):
    # The n-th call about the day-30 case answers wrongly on every second repeat.
    seen = Path(os.environ["AGENT_LOG"])
    with open(seen, "a") as log:
        log.write(case.id + "\\n")
    calls = seen.read_text().split().count(case.id)
    if case.id == "c1" and calls % 2 == 0:
        return "No, returns are never accepted."
    return "Yes, within the 30-day window."
"""


def test_repeat_asks_the_agent_n_times_and_reports_each_cases_stability(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "flaky.py").write_text(FLAKY)
    (tmp_path / "two.jsonl").write_text(
        "".join(
            json.dumps(
                {
                    "id": f"c{n}",
                    "question": "Can I return it?",
                    "golden_answer": "Yes, within the 30-day window.",
                }
            )
            + "\n"
            for n in range(2)
        )
    )
    command = ["run", "two.jsonl", "--agent", "flaky.py:answer", "--repeat", "3", "--out", "rep"]
    assert main(command) == 1
    out = capsys.readouterr().out
    assert sorted(calls(tmp_path)) == ["c0"] * 3 + ["c1"] * 3
    stability = json.loads((tmp_path / "rep/stability.json").read_text())
    assert stability["by_case"]["c0"]["passed"] == 3
    assert stability["by_case"]["c0"]["answers"] == []
    assert stability["by_case"]["c1"]["passed"] == 2
    assert stability["by_case"]["c1"]["verdicts"] == ["PASS", "FAIL", "PASS"]
    assert len(stability["by_case"]["c1"]["answers"]) == 2
    assert re.search(r"c1 +2/3 +20\.8–93\.9% +PASS FAIL PASS  flaky", out)
    assert "Flaky (PASS and FAIL among its repeats): c1 (2/3)" in out
    assert "The repeats cost $0.0000; the exit code is the worst repeat's" in " ".join(out.split())
    assert stability["cost"] == 0
    assert "No, returns are never accepted." in out
    # Asked again, every repeat is finished: the agent is not called.
    assert main(command) == 1
    assert len(calls(tmp_path)) == 6
    # `jury compare` reads a repeated run as its repeats.
    capsys.readouterr()
    assert main(["compare", "--a", "rep", "--b", "rep"]) == 0
    assert "A: rep/repeat-1, rep/repeat-2, rep/repeat-3" in capsys.readouterr().out
    # The commands that take one run point from the repeats' folder to a repeat.
    for command in (["report", "rep"], ["rescore", "rep"]):
        assert main(command) == 2
        said = " ".join(capsys.readouterr().err.split())
        assert f"a run of repeats: each is one ({Path('rep/repeat-1')} ...)" in said
    # `--resume` (what an interrupted single run takes) names how a run of repeats resumes.
    assert main(["run", "--resume", "rep"]) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert "--resume rep: a run of repeats; give the command that started it again" in said
    assert len(calls(tmp_path)) == 6
    # A number the run cannot take stops it before its first repeat makes anything.
    again = ["run", "two.jsonl", "--agent", "flaky.py:answer", "--repeat", "3", "--out", "again"]
    assert main([*again, "--max-cost", "-1"]) == 2
    assert "--max-cost -1: give the most to spend" in capsys.readouterr().err
    assert not (tmp_path / "again").exists()


def _flaky_cases(folder: Path, name: str, ids: list[str]) -> None:
    """The flaky agent, and cases of these IDs for it to answer."""
    (folder / "flaky.py").write_text(FLAKY)
    case = {"question": "Can I return it?", "golden_answer": "Yes, within the 30-day window."}
    (folder / name).write_text("".join(json.dumps({"id": i, **case}) + "\n" for i in ids))


def test_k_of_n_repeats_decide_each_case_and_the_gate_decides_on_those(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _flaky_cases(tmp_path, "two.jsonl", ["c0", "c1"])
    command = ["run", "two.jsonl", "--agent", "flaky.py:answer", "--repeat", "3"]
    # c1 passes 2 of its 3 answers: enough for "2 of 3", not for "3 of 3".
    assert main([*command, "--require", "2", "--out", "two"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"c1 +2/3 +20\.8–93\.9% +PASS FAIL PASS +-> PASS  flaky", out)
    assert "Failed by the rule (fewer than 2 of 3 passed): none" in out
    assert "Gate PASSED by the rule (a case passes when at least 2 of its 3 answers pass)" in out
    assert "cost $0.0000  ·  exit 0" in out
    stability = json.loads((tmp_path / "two/stability.json").read_text())
    assert stability["by_case"]["c1"]["verdict"] == "PASS"
    assert stability["by_case"]["c1"]["flaky"] is True
    assert stability["by_case"]["c1"]["interval"]["low"] == pytest.approx(0.2077, abs=1e-4)
    assert stability["rule"]["exit_code"] == 0
    # The same answers (every repeat is recorded) under "3 of 3": c1 fails, the gate too.
    assert main([*command, "--require", "3", "--out", "two"]) == 1
    out = capsys.readouterr().out
    assert "Failed by the rule (fewer than 3 of 3 passed): c1 (2/3)" in out
    assert "Flaky (PASS and FAIL among its repeats): c1 (2/3)" in out
    assert len(calls(tmp_path)) == 6


@needs("test")
def test_the_reports_asked_of_repeats_are_the_rules_not_the_last_repeats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import xmlschema

    _flaky_cases(tmp_path, "two.jsonl", ["c0", "c1"])
    command = ["run", "two.jsonl", "--agent", "flaky.py:answer", "--repeat", "3", "--out", "r"]
    reports = ["--junit", "out/junit.xml", "--json", "out/stability.json", "--html", "out/r.html"]
    # c1's last answer passes; by "3 of 3" it fails, and so it does in the JUnit file.
    assert main([*command, "--require", "3", *reports]) == 1
    captured = capsys.readouterr()
    assert captured.out.strip().splitlines()[-1].startswith("Gate FAILED by the rule")
    assert f"Report written to {Path('out/junit.xml')}" in captured.out
    assert "--html out/r.html with --repeat: not written" in " ".join(captured.err.split())
    assert not (tmp_path / "out/r.html").exists()
    root = ET.parse(tmp_path / "out/junit.xml").getroot()
    assert (root.get("tests"), root.get("failures")) == ("2", "1")
    cases = {case.get("name"): case for case in root.iter("testcase")}
    props = {p.get("name"): p.get("value") for p in cases["c1"].iter("property")}
    assert props["verdict"] == "FAIL"
    assert props["passed"] == "2/3"
    assert props["verdicts"] == "PASS FAIL PASS"
    assert props["flaky"] == "true"
    failure = cases["c1"].find("failure")
    assert failure is not None
    assert failure.get("message") == "2 of 3 repeats passed; at least 3 must"
    assert cases["c0"].find("failure") is None
    suites = {suite.get("name"): suite for suite in root.iter("testsuite")}
    gate = {p.get("name"): p.get("value") for p in suites["aiojury gate"].iter("property")}
    assert (gate["exit_code"], gate["gate.require"], gate["pass_rate"]) == ("1", "3 of 3", "0.5000")
    xmlschema.XMLSchema(ROOT / "tests/junit/junit.xsd").validate(str(tmp_path / "out/junit.xml"))
    warned = [p.get("value") for p in suites["aiojury warnings"].iter("property")]
    assert len(warned) == 1
    assert str(warned[0]).startswith("--html out/r.html with --repeat: not written")
    copied = json.loads((tmp_path / "out/stability.json").read_text())
    assert copied == json.loads((tmp_path / "r/stability.json").read_text())
    # Each repeat keeps its own reports.
    assert all((tmp_path / f"r/repeat-{n}/junit.xml").exists() for n in (1, 2, 3))


def test_the_jury_file_gives_repeats_and_require(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _flaky_cases(tmp_path, "one.jsonl", ["c1"])
    (tmp_path / "jury.toml").write_text(
        'jurors = ["offline/reference"]\nagent = "flaky.py:answer"\n'
        "[gate]\nrepeats = 4\nrequire = 3\nmin_pass_rate = 0.5\n"
    )
    assert main(["run", "one.jsonl", "--jury", "jury.toml", "--out", "rep"]) == 1
    assert sorted(p.name for p in (tmp_path / "rep").glob("repeat-*")) == [
        f"repeat-{n}" for n in range(1, 5)
    ]
    assert "c1 (2/4)" in capsys.readouterr().out
    # --require without --repeat, or K above N: a usage error before the agent is called.
    assert main(["run", "one.jsonl", "--agent", "flaky.py:answer", "--require", "2"]) == 2
    assert "--require 2: only with --repeat N" in capsys.readouterr().err
    assert (
        main(["run", "one.jsonl", "--agent", "flaky.py:answer", "--repeat", "2", "--require", "3"])
        == 2
    )
    assert "--require 3: give K from 1 to --repeat 2" in capsys.readouterr().err
    assert len(calls(tmp_path)) == 4


def test_repeat_without_an_agent_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(EXAMPLE), "--repeat", "2"]) == 2
    assert "--repeat: only with an agent" in capsys.readouterr().err


def test_the_jury_files_agent_is_called_from_the_jury_files_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (tmp_path / "agent.py").rename(config / "agent.py")
    (config / "jury.toml").write_text(
        'jurors = ["offline/reference"]\nagent = "agent.py:answer"\nagent_concurrency = 2\n'
    )
    monkeypatch.chdir(tmp_path)
    assert main(["run", "golden.jsonl", "--jury", "config/jury.toml", "--out", "run"]) == 1
    assert len(calls(tmp_path)) == 24
    manifest = json.loads((tmp_path / "run/manifest.json").read_text())
    assert manifest["agent"]["name"] == "agent.py:answer"
    assert manifest["agent"]["concurrency"] == 2
    # Resumed by its directory alone, it finds the jury file and its agent again.
    assert main(["run", "--resume", "run"]) == 1
    assert len(calls(tmp_path)) == 24


def test_a_misspelt_agent_key_in_the_jury_file_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "jury.toml").write_text('jurors = ["offline/reference"]\nagent_concurency = 2\n')
    assert main(["run", "golden.jsonl", "--jury", "jury.toml", "--agent", "agent.py:answer"]) == 2
    assert "agent_concurency" in capsys.readouterr().err
    assert calls(tmp_path) == []


async def test_each_repeat_reports_what_it_warned_of_and_the_repeats_junit_all_of_it(
    tmp_path: Path, server: Any
) -> None:
    # A juror named by an alias is warned of in every repeat: each repeat's reports say it
    # once (not once more per repeat before it), and the repeats' JUnit says it once.
    _flaky_cases(tmp_path, "two.jsonl", ["c0", "c1"])
    (tmp_path / "alias.toml").write_text('jurors = ["openai/gpt-4.1-mini"]\n')
    run = await jury.run(
        "two.jsonl",
        agent="flaky.py:answer",
        jury="alias.toml",
        repeat=3,
        out="rep",
        junit="out/junit.xml",
        no_html=True,
        no_cache=True,
    )
    _each_repeat_warned_once(tmp_path, run)


def _each_repeat_warned_once(folder: Path, run: jury.Run) -> None:
    assert [w for w in run.warnings if "gpt-4.1-mini is an alias" in w]
    assert len(set(run.warnings)) == len(run.warnings)
    for n in (1, 2, 3):
        summary = json.loads((folder / f"rep/repeat-{n}/summary.json").read_text())
        assert summary["warnings"] == list(run.warnings)
    root = ET.parse(folder / "out/junit.xml").getroot()
    suites = {suite.get("name"): suite for suite in root.iter("testsuite")}
    warned = [p.get("value") for p in suites["aiojury warnings"].iter("property")]
    assert warned == list(run.warnings)
