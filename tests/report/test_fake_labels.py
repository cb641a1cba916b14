"""Replies from `jury.testing`'s fake are labelled FAKE in every output of a run, as offline
jurors are OFFLINE: the run line, the terminal report (header and jurors table),
`summary.json`, the HTML report (banner, each vote, jurors table; looked at in a real
browser), `junit.xml` and `jury export`; they are priced $0, and a rerun says that its cached
replies came from the fake. A server that does not say it is the fake is labelled nowhere."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import chromium, open_page
from extras import needs

from jury.cli import main
from served import JURORS, ServerThread

CASES = [
    {"id": f"c{n}", "question": "Where is ORD-101?", "answer": answer, "golden_answer": "Shipped."}
    for n, answer in enumerate(("It has shipped.", "WRONG: it was lost.", "Shipped yesterday."))
]


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[ServerThread]:
    thread = ServerThread()
    for name, value in thread.server.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in CASES))
    (tmp_path / "jury.toml").write_text(f"jurors = {json.dumps(list(JURORS))}\n")
    try:
        yield thread
    finally:
        thread.stop()


def run(out: str, capsys: pytest.CaptureFixture[str]) -> tuple[str, str, dict[str, Any]]:
    """`jury run` into `out`: what it printed (report, run line) and its summary."""
    command = ["run", "cases.jsonl", "--jury", "jury.toml", "--out", out, "--progress", "plain"]
    assert main(command) in (0, 1)
    said = capsys.readouterr()
    return said.out, said.err, json.loads((Path(out) / "summary.json").read_text())


def test_every_output_of_a_run_against_the_fake_labels_it_fake_and_prices_it_at_zero(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report, line, summary = run("first", capsys)
    calls = len(CASES) * len(JURORS)
    assert len(served.requests) == calls
    # The run line, and the terminal report's header and jurors table.
    assert f"FAKE replies {calls} (jury.testing's fake server, priced $0)" in line
    assert f"FAKE replies ({', '.join(sorted(JURORS))})" in report.replace("\n", " ")
    jurors = report[report.index("\nJurors\n") : report.index("\nGate ")]
    assert all(f"{juror} (FAKE)" in jurors for juror in JURORS)
    # Priced $0, not at the real models' prices.
    assert re.findall(r"\$[0-9.]+", jurors) == ["$0.0000"] * len(JURORS)
    # summary.json: the run, each juror, the calls.
    assert summary["fake"] is True
    assert all(summary["jurors"][juror]["fake"] for juror in JURORS)
    assert summary["calls"]["fake"] == calls
    assert summary["cost"] == 0.0
    # junit.xml: each case names the jurors the fake answered, and each vote's line says so.
    root = ET.parse(tmp_path / "first" / "junit.xml").getroot()
    for testcase in root.iter("testcase"):
        properties = {p.get("name"): p.get("value") for p in testcase.iter("property")}
        assert set((properties["fake"] or "").split(", ")) == set(JURORS)
        text = "".join(testcase.itertext())
        assert all(f"{juror} (FAKE):" in text for juror in JURORS)
    # jury export: a row per vote says it.
    assert main(["export", "first", "--rows", "votes", "--format", "jsonl"]) == 0
    rows = [json.loads(r) for r in capsys.readouterr().out.splitlines()]
    assert len(rows) == calls
    assert all(row["fake"] is True for row in rows)

    # A rerun is served from the cache, and says where those replies came from.
    report, line, summary = run("second", capsys)
    assert len(served.requests) == calls
    source = f"FAKE {served.server.url}/v1"
    assert f"calls 0 (cached {calls} from {source})" in line
    assert f"Cached replies: {calls} from {source}." in report
    assert summary["calls"]["cached_from"] == [source]
    assert summary["fake"] is True


@needs("test")  # websockets drives the browser
@pytest.mark.skipif(chromium() is None, reason="chromium is not installed")
def test_the_html_report_of_a_run_against_the_fake_shows_fake_in_a_browser(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run("first", capsys)
    page = open_page(
        tmp_path / "first" / "report.html",
        [
            "document.querySelector('p.fake').innerText",
            "document.querySelector('p.fake').getBoundingClientRect().height > 0",
            "[...document.querySelectorAll('.vote .tag.fake')].map(e => e.textContent)",
            "[...document.querySelectorAll('#jurors td:first-child')].map(e => e.innerText)",
            "document.getElementById('jurors-section').innerText",
        ],
    )
    assert page.errors == []
    banner, shown, tags, names, section = page.values.values()
    assert banner.startswith("FAKE replies")
    assert all(juror in banner for juror in JURORS)
    assert shown is True
    assert tags == ["FAKE"] * len(CASES) * len(JURORS)
    assert sorted(names) == sorted(f"{juror} (FAKE)" for juror in JURORS)
    assert "Total cost: $0.0000" in section


def test_a_server_that_does_not_say_it_is_the_fake_is_labelled_nowhere(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    served.server.mark = False
    report, line, summary = run("first", capsys)
    assert "FAKE" not in report + line
    assert summary["fake"] is False
    assert summary["cost"] > 0  # priced as the real models' replies
    for name in ("junit.xml", "report.html"):
        assert "FAKE" not in (tmp_path / "first" / name).read_text(encoding="utf-8")
