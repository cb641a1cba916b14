"""A juror lost in a run is named everywhere the run is reported (issue 31): the terminal's
"Judge errors" section and last lines, summary.json, report.html (looked at in a real
browser) and junit.xml; `jury report` says it again of the recorded run, and ``[gate]
require_every_juror`` (or ``jury rescore --require-every-juror``) holds the cases decided
without it INCONCLUSIVE.

The run: two jurors of two families on one OpenAI-compatible server, and two offline
jurors. One juror's server is down for the whole run (503 on every call: an outage, not a
configuration error, so the run goes on), the other fails on some cases and answers the rest.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import chromium, open_page
from extras import needs

from jury.cli import main
from jury.testing import Fault, LoggedRequest, valid_reply
from served import ServerThread

DOWN, FLAKY = "openai-api/local/down-model", "openai-api/local/flaky-model"
CASES = [
    {
        "id": f"c{n}",
        "question": f"Where is ORD-10{n}?",
        "answer": f"ORD-10{n} has shipped.",
        "golden_answer": f"ORD-10{n} has shipped.",
    }
    for n in range(6)
]
#: The cases the flaky juror answers with text that is not JSON (invalid votes).
GARBLED = ("c1", "c4")
JURY = f"""
[[juror]]
model = "{DOWN}"
family = "meta"

[[juror]]
model = "{FLAKY}"
family = "mistral"

[[juror]]
model = "offline/reference"

[[juror]]
model = "offline/facts"

[retry]
attempts = 2
base_delay = 0.01
second_chance = false
"""


def flaky(request: LoggedRequest) -> Any:
    text = json.dumps(request.body)
    if any(f"ORD-10{case[1:]}" in text for case in GARBLED):
        return "no idea"
    return valid_reply(request.schema)


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[ServerThread]:
    thread = ServerThread()
    for name, value in thread.server.env(service="local").items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in CASES))
    (tmp_path / "jury.toml").write_text(JURY)
    # An outage for the whole run (503: not a configuration error, so the run goes on).
    thread.server.inject(Fault.http(503, message="upstream down"), model="down-model", times=None)
    thread.server.script("flaky-model", flaky)
    try:
        yield thread
    finally:
        thread.stop()


def run(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    command = ["run", "cases.jsonl", "--jury", "jury.toml", "--out", "r", "--progress", "none"]
    code = main([*command, *extra])
    return code, capsys.readouterr().out


def test_a_lost_juror_is_named_in_the_terminal_summary_junit_and_report(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = run(capsys)
    # Terminal: the section, each juror's missed cases, the first error of each kind.
    section = out[out.index("Judge errors") : out.index("\nGate ")]
    assert f"{DOWN}: missed 6 of 6 case(s) (6 unavailable)" in section
    assert "HTTP 503 x6, first on c" in section
    assert "upstream down" in section
    assert f"{FLAKY}: missed 2 of 6 case(s) (2 invalid)" in section
    assert "invalid reply x2, first on c" in section
    # The last lines: decided without the family of the juror that was down.
    last = out[out.index("\n\n", out.index("Judge errors")) :].splitlines()
    family = next(line for line in last if "decided without the meta family" in line)
    assert family.startswith("4 case(s) decided without the meta family")  # 2 short of quorum
    assert DOWN in family
    # summary.json
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    lost = summary["judge_errors"]
    assert lost[DOWN]["missed"] == 6
    assert [e["kind"] for e in lost[DOWN]["errors"]] == ["HTTP 503"]
    assert lost[DOWN]["errors"][0]["count"] == 6
    assert lost[FLAKY]["invalid"] == 2
    assert set(lost) == {DOWN, FLAKY}
    assert summary["decided_without"]["meta"] == {"cases": 4, "jurors": [DOWN]}
    assert "mistral" not in summary["decided_without"]  # it voted on every decided case
    assert summary["inconclusive"] == 2
    assert code == 3
    # junit.xml: a suite of its own, with properties and system-err.
    root = ET.parse(tmp_path / "r" / "junit.xml").getroot()
    suite = next(s for s in root.iter("testsuite") if s.get("name") == "aiojury judge errors")
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties[f"judge_errors.{DOWN}.missed"] == "6"
    assert properties["decided_without.meta"] == "4"
    err = suite.findtext("system-err") or ""
    assert f"{DOWN}: missed 6 of 6 case(s)" in err
    assert "decided without the meta family" in err
    # report.html: the section and the family line, as text.
    html = (tmp_path / "r" / "report.html").read_text(encoding="utf-8")
    assert "Judge errors by juror" in html
    assert f"{DOWN}: missed 6 of 6 case(s) (6 unavailable)" in html
    assert "decided without the meta family" in html
    # `jury report` of the recorded run says it all again.
    assert main(["report", "r"]) == 3
    again = capsys.readouterr().out
    assert f"{DOWN}: missed 6 of 6 case(s)" in again
    assert "4 case(s) decided without the meta family" in again


def test_require_every_juror_holds_the_cases_decided_without_a_juror_inconclusive(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys)
    assert main(["rescore", "r", "--require-every-juror", "--out", "strict"]) == 3
    out = capsys.readouterr().out
    summary = json.loads((tmp_path / "strict" / "summary.json").read_text())
    assert summary["inconclusive"] == 6
    assert summary["decided_without"] == {}
    assert "[gate] require_every_juror: a juror has no valid vote on this case" in out
    # The same from the jury file, on a new run.
    (tmp_path / "jury.toml").write_text(JURY + "\n[gate]\nrequire_every_juror = true\n")
    code, _ = run(capsys, "--out", "again")
    assert code == 3
    assert json.loads((tmp_path / "again" / "summary.json").read_text())["inconclusive"] == 6


def test_a_bad_require_every_juror_is_named_with_exit_2(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "jury.toml").write_text(JURY + '\n[gate]\nrequire_every_juror = "yes"\n')
    assert main(["run", "cases.jsonl", "--jury", "jury.toml", "--progress", "none"]) == 2
    err = capsys.readouterr().err
    assert "gate.require_every_juror" in err
    assert "Traceback" not in err


@needs("test")  # websockets drives the browser
@pytest.mark.skipif(chromium() is None, reason="chromium is not installed")
def test_the_lost_juror_is_shown_in_the_html_report_in_a_browser(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys)
    page = open_page(
        tmp_path / "r" / "report.html",
        [
            "document.getElementById('judge-errors').innerText",
            "document.getElementById('judge-errors').getBoundingClientRect().height > 0",
            "[...document.querySelectorAll('p.family-lost')].map(e => e.innerText)",
        ],
    )
    assert page.errors == []
    section, shown, families = page.values.values()
    assert f"{DOWN}: missed 6 of 6 case(s) (6 unavailable)" in section
    assert "HTTP 503 x6" in section
    assert shown is True
    assert len(families) == 1
    assert families[0].startswith("4 case(s) decided without the meta family")
