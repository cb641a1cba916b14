"""A run of repeats says what degraded in its repeats (FAKE replies, OFFLINE reference jurors,
judge errors, families lost), each once with the repeats it happened in: in stability.json,
the repeats' JUnit file, the terminal's stability block and the `jury.Run` it returns."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

import jury
from jury.testing import Fault, LoggedRequest, valid_reply

FLAKY = """
import os
from pathlib import Path

def answer(case):
    # Every second answer is wrong: the second repeat's, of three.
    seen = Path(os.environ["AGENT_LOG"])
    with open(seen, "a") as log:
        log.write(case.id + "\\n")
    if seen.read_text().split().count(case.id) % 2 == 0:
        return "No, returns are never accepted."
    return "Yes, within the 30-day window."
"""
OPENAI = "gpt-4.1-mini-2025-04-14"
ANTHROPIC = "claude-haiku-5-5"
#: A quorum of one: a case the Anthropic juror misses is decided by the OpenAI juror alone.
JURY = f'jurors = ["openai/{OPENAI}", "anthropic/{ANTHROPIC}"]\nquorum = 1\n'


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JURY_CACHE_DIR", raising=False)
    monkeypatch.setenv("AGENT_LOG", str(tmp_path / "agent.log"))
    (tmp_path / "flaky.py").write_text(FLAKY)
    case = {"question": "Can I return it?", "golden_answer": "Yes, within the 30-day window."}
    (tmp_path / "one.jsonl").write_text(json.dumps({"id": "c1", **case}) + "\n")
    (tmp_path / "jury.toml").write_text(JURY)


def _spoiled_on_the_wrong_answer(logged: LoggedRequest) -> Any:
    """The Anthropic juror replies out of range to every ask about the wrong answer (the
    second repeat's), re-asks included: its vote there is invalid."""
    if "never accepted" in json.dumps(logged.body):
        return Fault.out_of_range()
    return valid_reply(logged.schema)


async def test_the_repeats_outputs_say_what_degraded_and_in_which_repeats(
    tmp_path: Path, server: Any
) -> None:
    server.script(ANTHROPIC, _spoiled_on_the_wrong_answer)
    run = await jury.run(
        "one.jsonl",
        agent="flaky.py:answer",
        jury="jury.toml",
        repeat=3,
        out="rep",
        junit="out/junit.xml",
        no_html=True,
        no_cache=True,
    )
    # Each repeat's own summary is what the repeats' outputs are read against.
    own = [json.loads((tmp_path / f"rep/repeat-{n}/summary.json").read_text()) for n in (1, 2, 3)]
    lost_in = [n for n, s in enumerate(own, start=1) if s["judge_errors"]]
    assert lost_in == [2]
    errors = own[1]["judge_errors"][f"anthropic/{ANTHROPIC}"]
    stability = json.loads((tmp_path / "rep/stability.json").read_text())
    assert run.stability == stability
    said = stability["degraded"]
    assert said["fake"]["repeats"] == [n for n, s in enumerate(own, start=1) if s["fake"]]
    assert said["fake"]["repeats"] == [1, 2, 3]
    assert set(said["fake"]["jurors"]) == {f"openai/{OPENAI}", f"anthropic/{ANTHROPIC}"}
    juror = said["judge_errors"][f"anthropic/{ANTHROPIC}"]
    assert juror["repeats"] == lost_in
    assert (juror["missed"], juror["invalid"]) == (errors["missed"], errors["invalid"])
    assert [e["kind"] for e in juror["errors"]] == [e["kind"] for e in errors["errors"]]
    assert [e["repeat"] for e in juror["errors"]] == [2]
    assert said["decided_without"]["anthropic"]["repeats"] == [2]
    assert (
        said["decided_without"]["anthropic"]["cases"]
        == own[1]["decided_without"]["anthropic"]["cases"]
    )
    assert "offline" not in said
    # The terminal's block says each once, with its repeats, before the reports' lines.
    block = "\n".join(run.stability_lines)
    assert block.count("FAKE replies") == 1
    assert "In repeats 1, 2, 3: FAKE replies" in block
    assert f"Judge errors in repeat 2: anthropic/{ANTHROPIC}: missed 1 of 3 case(s)" in block
    assert "In repeat 2: 1 case(s) decided without the anthropic family" in block
    # The repeats' JUnit file: a suite of its own, as the single run's says its losses.
    root = ET.parse(tmp_path / "out/junit.xml").getroot()
    suites = {suite.get("name"): suite for suite in root.iter("testsuite")}
    props = {p.get("name"): p.get("value") for p in suites["aiojury degraded"].iter("property")}
    assert props["fake.repeats"] == "1 2 3"
    assert props[f"judge_errors.anthropic/{ANTHROPIC}.repeats"] == "2"
    assert props["decided_without.anthropic.repeats"] == "2"
    err = suites["aiojury degraded"].find("system-err")
    assert err is not None
    assert err.text == "\n".join(said["lines"])


async def test_offline_jurors_are_said_with_the_repeats(tmp_path: Path) -> None:
    (tmp_path / "jury.toml").write_text('jurors = ["offline/reference"]\n')
    run = await jury.run(
        "one.jsonl", agent="flaky.py:answer", jury="jury.toml", repeat=2, out="rep", no_html=True
    )
    assert run.stability is not None
    said = run.stability["degraded"]
    assert said["offline"] == {"jurors": ["offline/reference"], "repeats": [1, 2]}
    assert "In repeats 1, 2: OFFLINE reference jurors (offline/reference)" in "\n".join(
        run.stability_lines
    )


def _gone_on_the_wrong_answer(logged: LoggedRequest) -> Any:
    """The OpenAI model is gone (404) from the second repeat on: asked of the wrong answer."""
    if "never accepted" in json.dumps(logged.body):
        return Fault.http(404)
    return valid_reply(logged.schema)


async def test_a_juror_lost_in_a_later_repeat_is_not_told_to_check_a_url_that_worked(
    tmp_path: Path, server: Any
) -> None:
    (tmp_path / "jury.toml").write_text(f'jurors = ["openai/{OPENAI}"]\n')
    server.script(OPENAI, _gone_on_the_wrong_answer)
    with pytest.raises(jury.JurorUnusable) as raised:
        await jury.run("one.jsonl", agent="flaky.py:answer", jury="jury.toml", repeat=3, out="rep")
    fix = raised.value.fix
    # The first repeat's vote was valid at this URL: the fix says so, not "check the URL".
    first = json.loads((tmp_path / "rep/repeat-1/summary.json").read_text())
    assert first["jurors"][f"openai/{OPENAI}"]["valid"] == 1
    assert "check the model name" not in fix
    assert f"openai/{OPENAI} gave valid votes at this URL in repeat 1 of this run" in fix
    assert "404" in str(raised.value.error)
    assert not (tmp_path / "rep/repeat-2/summary.json").exists()
