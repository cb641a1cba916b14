"""Soft confidence in the reports (issue 21): a vote's probability of its verdict, its
distribution and where it came from (token log-probabilities, or the share of its samples),
shown in the HTML card, carried by the exports and the JUnit file, and printed in the
terminal where it is short (the jurors table, a dissenting juror's line). A vote without one
shows none: never a 0 or a 1."""

from __future__ import annotations

import csv
import html
import io
import json
import math
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from browser import browser_page, chromium
from extras import needs
from report_run import record_run

from conftest import case, scores, scripted
from jury import Juror, Panel
from jury.adapters import JudgeReply, JudgeRequest, TokenLogprob, Usage
from jury.cli import main
from jury.report._views import probability_text
from jury.testing import ScriptedModel

SURE, SAMPLED, PLAIN = "scripted/sure", "scripted/sampled", "scripted/plain"
#: "good": every juror passes it (the sampled one in 3 of its 4 samples); "split": the sampled
#: juror fails it in 3 of 4 and dissents; "bad": every juror fails it.
CASES = [case("good"), case("split"), case("bad")]


def tokens(text: str, value: str, odds: dict[str, float]) -> tuple[TokenLogprob, ...]:
    """The tokens of `text`: near certain, but for `value` (its first occurrence), written
    with the probability `odds[value]` and the alternatives `odds`."""
    head, _, tail = text.partition(value)
    top = tuple((t, math.log(p)) for t, p in odds.items())
    return (
        TokenLogprob(head, -0.0001, ((head, -0.0001),)),
        TokenLogprob(value, math.log(odds[value]), top),
        TokenLogprob(tail, -0.0001, ((tail, -0.0001),)),
    )


def sure(request: JudgeRequest) -> JudgeReply:
    """Correctness 4 at 0.6 (else 3: a fail) on the cases it passes; 2 at 0.8 on "bad"."""
    assert request.case is not None
    bad = request.case.id == "bad"
    text = json.dumps(scores(5, correctness=2 if bad else 4))
    value, odds = (" 2", {" 2": 0.8, " 4": 0.2}) if bad else (" 4", {" 4": 0.6, " 3": 0.4})
    logprobs = tokens(
        text, f'"correctness":{value}', {f'"correctness":{k}': p for k, p in odds.items()}
    )
    return JudgeReply(text=text, model=SURE, usage=Usage(1, 1), logprobs=logprobs)


def sampled() -> Callable[[JudgeRequest], Any]:
    asked: Counter[str] = Counter()

    def reply(request: JudgeRequest) -> Any:
        assert request.case is not None
        case_id = request.case.id
        asked[case_id] += 1
        odd = asked[case_id] == 3  # the third of its four samples says otherwise
        if case_id == "good":
            return scores(2 if odd else 5)
        return scores(5 if odd and case_id == "split" else 2)

    return reply


def plain(request: JudgeRequest) -> Any:
    assert request.case is not None
    return scores(2 if request.case.id == "bad" else 5)


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    panel = Panel(
        jurors=(
            Juror(model=ScriptedModel(sure, name=SURE), logprobs=True),
            Juror(model=scripted(sampled(), name=SAMPLED), samples=4),
            Juror(model=scripted(plain, name=PLAIN)),
        ),
        retry={"attempts": 1, "cool_down": 0},
    )
    stream = io.StringIO()
    path = record_run(tmp_path / "run", tmp_path / "cases.jsonl", CASES, panel=panel, stream=stream)
    (tmp_path / "terminal.txt").write_text(stream.getvalue(), encoding="utf-8")
    return path


def test_a_probability_never_reads_certain_unless_it_is() -> None:
    assert [probability_text(p) for p in (0.6, 0.999, 0.001, 1.0, 0.0)] == [
        "0.60", ">0.99", "<0.01", "1.00", "0.00"
    ]  # fmt: skip


def test_the_card_shows_each_votes_probability_distribution_and_source(run_dir: Path) -> None:
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    start = page.index('<article class="case" id="case-good"')
    card = page[start : page.index("</article>", start)]
    found = re.findall(r'data-juror="([^"]+)"(.*?)(?=<div class="vote |\Z)', card, re.S)
    votes = {juror: html.unescape(text) for juror, text in found}
    assert "p 0.60</span>" in votes[SURE]
    assert (
        "How sure: PASS 0.60 · FAIL 0.40 (from its reply's token log-probabilities)" in votes[SURE]
    )
    assert "p 0.75</span>" in votes[SAMPLED]
    assert "How sure: PASS 0.75 · FAIL 0.25 (from the share of its 4 samples)" in votes[SAMPLED]
    # The plain juror has no soft confidence: nothing is shown, not a 1.
    assert "confidence" not in votes[PLAIN]
    assert "How sure" not in votes[PLAIN]


def test_the_exports_carry_each_votes_probability_and_leave_it_empty_where_there_is_none(
    run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", str(run_dir), "--rows", "votes", "--format", "jsonl"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    by = {(row["case_id"], row["juror"]): row for row in rows}
    good = by["good", SURE]
    assert (good["probability"], good["probability_from"]) == (pytest.approx(0.6), "logprobs")
    assert json.loads(good["distribution"]) == pytest.approx({"PASS": 0.6, "FAIL": 0.4})
    split = by["split", SAMPLED]
    assert (split["verdict"], split["probability"], split["probability_from"]) == (
        "FAIL",
        0.75,
        "samples",
    )
    assert json.loads(split["distribution"]) == {"FAIL": 0.75, "PASS": 0.25}
    assert (by["good", PLAIN]["probability"], by["good", PLAIN]["distribution"]) == (None, None)
    assert main(["export", str(run_dir), "--format", "csv"]) == 0
    table = {row["case_id"]: row for row in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    assert float(table["bad"][f"probability.{SURE}"]) == pytest.approx(0.8)
    assert table["split"][f"probability.{SAMPLED}"] == "0.75"
    # No column for a juror that never had one; an empty cell, never 0, where it had none.
    assert f"probability.{PLAIN}" not in table["good"]


def test_the_terminal_and_junit_say_how_sure_a_juror_was(run_dir: Path) -> None:
    terminal = (run_dir.parent / "terminal.txt").read_text(encoding="utf-8")
    assert "mean p (votes)" in terminal
    rows = {
        line.split()[0]: line for line in terminal.splitlines() if line.strip()[:9] == "scripted/"
    }
    # 0.6, 0.6 and 0.8 on its three cases; the sampled juror 0.75, 0.75 and 1 (all four of
    # its samples fail "bad"); the plain juror none.
    assert rows[SURE].rstrip().endswith("0.67 (3)")
    assert rows[SAMPLED].rstrip().endswith("0.83 (3)")
    assert rows[PLAIN].rstrip().endswith("-")
    assert f"{SAMPLED} (FAIL, p 0.75): " in terminal
    junit = (run_dir / "junit.xml").read_text(encoding="utf-8")
    assert f"{SURE}: FAIL (p 0.80, its reply's token log-probabilities)" in junit
    assert f"{SAMPLED}: FAIL (p 1.00, the share of its 4 samples)" in junit
    assert f"{PLAIN}: FAIL [" in junit


@needs("test")  # websockets drives the browser
@pytest.mark.skipif(chromium() is None, reason="chromium is not installed")
async def test_the_browser_shows_the_probability_in_the_vote_card(run_dir: Path) -> None:
    async with browser_page(run_dir / "report.html") as page:
        shown = await page.evaluate(
            "Object.fromEntries([...document.querySelectorAll('#case-split .vote')].map(v =>"
            " [v.dataset.juror, [v.querySelector('.confidence')?.textContent ?? null,"
            " v.querySelector('.confidence-detail')?.textContent ?? null]]))"
        )
        assert shown == {
            SURE: [
                "p 0.60",
                "How sure: PASS 0.60 · FAIL 0.40 (from its reply's token log-probabilities)",
            ],
            SAMPLED: [
                "p 0.75",
                "How sure: FAIL 0.75 · PASS 0.25 (from the share of its 4 samples)",
            ],
            PLAIN: [None, None],
        }
        assert page.errors == []


@pytest.fixture
def compare_page(run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`jury report --compare` of the run (A) and the same run re-scored (B): the votes, and
    their probabilities, are the same on both sides."""
    monkeypatch.chdir(tmp_path)
    assert main(["rescore", str(run_dir), "--threshold", "2", "--out", "b"]) in (0, 1, 3)
    assert main(["report", "--compare", str(run_dir), "b", "--html", "cmp.html"]) == 0
    return tmp_path / "cmp.html"


def test_the_comparison_shows_each_votes_probability_as_the_run_report_does(
    compare_page: Path,
) -> None:
    page = compare_page.read_text(encoding="utf-8")
    start = page.index('<article class="case" id="case-split"')
    card = page[start : page.index("</article>", start)]
    for side in ("side-a", "side-b"):
        half = card[card.index(f'<div class="{side}">') :]
        found = re.findall(r'data-juror="([^"]+)"(.*?)(?=<div class="vote" |\Z)', half, re.S)
        votes = {juror: html.unescape(text) for juror, text in found}
        assert "p 0.60</span>" in votes[SURE]
        assert "How sure: PASS 0.60 · FAIL 0.40" in votes[SURE]
        assert "p 0.75</span>" in votes[SAMPLED]
        sampled = "How sure: FAIL 0.75 · PASS 0.25 (from the share of its 4 samples)"
        assert sampled in votes[SAMPLED]
        assert "confidence" not in votes[PLAIN]


@needs("test")  # websockets drives the browser
@pytest.mark.skipif(chromium() is None, reason="chromium is not installed")
async def test_the_browser_shows_the_probability_on_both_sides_of_a_comparison(
    compare_page: Path,
) -> None:
    async with browser_page(compare_page) as page:
        shown = await page.evaluate(
            "['.side-a', '.side-b'].map(side => Object.fromEntries([...document"
            ".querySelectorAll(`#case-bad ${side} .vote`)].map(v => [v.dataset.juror,"
            " v.querySelector('.confidence')?.textContent ?? null])))"
        )
        # 0.8 from the sure juror's tokens; all four samples of the sampled juror fail
        # "bad": a share of exactly 1, shown as 1.00 (not ">0.99", which it is not).
        expected = {SURE: "p 0.80", SAMPLED: "p 1.00", PLAIN: None}
        assert shown == [expected, expected]
        assert page.errors == []
