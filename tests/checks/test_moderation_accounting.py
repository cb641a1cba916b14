"""A run's accounting adds up: the moderation check's calls (the strict fake serves OpenAI's
endpoint) count in the run's call statistics under a row of their own, at the endpoint's price
(free), in summary.json, the terminal report and the HTML report; a cached one is counted as
a cache hit, and the calls of a model that did not answer are counted too."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_moderation import INSULT, MODEL, POLITE, conversation, flag_insults, judge, moderated

from jury import CheckOutcome, summarize
from jury.cli import main
from jury.testing import FakeProviderServer, Fault
from served import ServerThread

ROW = "moderation: omni-moderation-latest"


async def test_the_checks_calls_are_in_the_run_summary(server: FakeProviderServer) -> None:
    server.script(MODEL, flag_insults)
    verdicts = [
        await judge(moderated(), conversation(INSULT, POLITE)),
        await judge(moderated(), conversation(POLITE)),
    ]
    check = next(c for c in verdicts[0].checks if c.name == "moderation")
    assert check.model == "openai-moderation/omni-moderation-latest"
    assert check.calls is not None
    assert (check.calls.attempts, check.calls.cost) == (1, 0.0)
    summary = summarize(verdicts)
    calls = summary.check_calls[ROW]
    assert (calls.attempts, calls.cache_hits, calls.cost) == (2, 0, 0.0)
    assert calls.latency_s > 0
    assert calls.served_by == (MODEL,)
    # The run's totals are the jurors' and the check's.
    jurors = sum(j.calls.attempts for j in summary.jurors.values())
    assert summary.calls.attempts == jurors + 2
    assert len(server.requests) == 2  # the scripted juror is not served over HTTP


async def test_the_calls_of_a_model_that_did_not_answer_are_counted(
    server: FakeProviderServer,
) -> None:
    server.inject(Fault.http(503), model=MODEL, times=None)
    verdict = await judge(moderated(), conversation(POLITE))
    check = next(c for c in verdict.checks if c.name == "moderation")
    assert check.outcome is CheckOutcome.UNAVAILABLE
    assert summarize([verdict]).check_calls[ROW].attempts == 3  # each retry was a request


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[ServerThread]:
    thread = ServerThread()
    thread.server.script(MODEL, flag_insults)
    for name, value in thread.server.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)  # the default cache, .jury-cache, is made here
    try:
        yield thread
    finally:
        thread.stop()


def test_jury_run_reports_the_moderation_calls_everywhere(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        "".join(
            json.dumps({"id": f"c{n}", "question": "Where is my order?", "answer": text}) + "\n"
            for n, text in enumerate((INSULT, POLITE, POLITE + " Thanks!"))
        )
    )
    jury_file = tmp_path / "jury.toml"
    jury_file.write_text('jurors = ["offline/reference"]\n[checks.moderation]\nenabled = true\n')
    served.server.mark = False  # as the real endpoint answers (the fake's are labelled FAKE)

    def run(out: str) -> tuple[dict[str, object], str]:
        command = ["run", str(cases), "--jury", str(jury_file), "--out", out]
        assert main([*command, "--progress", "none"]) == 1
        printed = capsys.readouterr().out
        return json.loads((tmp_path / out / "summary.json").read_text()), printed

    summary, printed = run("first")
    assert len(served.server.requests_for(MODEL)) == 3
    row = summary["check_calls"][ROW]  # type: ignore[index]
    assert (row["attempts"], row["cache_hits"], row["cost"]) == (3, 0, 0.0)
    assert summary["cost"] == 0.0
    # Two votes (the flagged case spared its judge) and three moderations.
    assert summary["calls"]["attempts"] == 2 + 3  # type: ignore[index]
    line = next(line for line in printed.splitlines() if line.startswith(f" {ROW}"))
    assert line.split()[-2:] == ["0/0", "$0.0000"]
    # No votes (votes, valid, invalid, unavailable); three calls.
    assert line.split()[2:7] == ["-", "-", "-", "-", "3"]
    html = (tmp_path / "first" / "report.html").read_text(encoding="utf-8")
    table = html[html.index('<table id="jurors">') :]
    table = table[: table.index("</table>")]
    assert f'<tr class="check-calls"><td>{ROW} <span class="tag cat">check</span></td>' in table

    # A rerun pays nothing twice, and says so.
    summary, printed = run("second")
    assert len(served.server.requests_for(MODEL)) == 3
    row = summary["check_calls"][ROW]  # type: ignore[index]
    assert (row["attempts"], row["cache_hits"]) == (0, 3)
    assert "cached" in printed


def test_a_moderation_outage_is_listed_once_with_the_judge_errors(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    served.server.inject(Fault.http(503), model=MODEL, times=None)
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        "".join(
            json.dumps({"id": f"c{n}", "question": "What is 2+2?", "answer": "4", "gold": "4"})
            + "\n"
            for n in range(3)
        )
    )
    jury_file = tmp_path / "jury.toml"
    jury_file.write_text(
        'jurors = ["offline/reference"]\nretry = {attempts = 2, base_delay = 0.01}\n'
        "[checks.moderation]\nenabled = true\n"
    )
    # The jury passes every case; the check could not run: the gate is undecided.
    command = ["run", str(cases), "--jury", str(jury_file), "--out", "run", "--progress", "none"]
    assert main(command) == 3
    capsys.readouterr()
    html = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    errors = html[html.index('id="errors"') : html.index('<section id="cases">')]
    assert "Judge errors (3 checks that could not ask their model)" in errors
    assert "the moderation check × 3 cases (unavailable)" in errors
    assert html.count("did not answer") == 1
    for n in range(3):
        start = html.index(f'<article class="case" id="case-c{n}"')
        card = html[start : html.index("</article>", start)]
        assert 'check moderation unavailable: <a href="#error-1">judge error 1</a>' in card
        assert 'could not run: moderation (<a href="#error-1">judge error 1</a>)' in card
