"""Reports of a large run: the HTML report shows every failed and inconclusive case and passing
cases up to a cap, the terminal lists up to a cap, and every figure still counts every case;
the agreement gathered one verdict at a time is the one computed over all the verdicts."""

from __future__ import annotations

import io
import json
import random
import re
from pathlib import Path

import pytest
from report_run import CASES, record_run

import jury.report._publish as publishing
from conftest import case
from jury import Ballot, CaseVerdict, Verdict, Vote, VoteStatus
from jury.agreement import summarize_agreement
from jury.agreement._tally import AgreementTally
from jury.cli import main
from jury.report._agreement import rubric_metrics
from jury.runs._records import read_verdicts

#: The report's cases and 20 more that pass.
MANY = [*CASES, *(case(f"good-{i:02d}", category="policy") for i in range(20))]


def _section(html: str, name: str) -> str:
    start = html.index(f'<section id="{name}">')
    return html[start : html.index("</section>", start)]


def _cards(html: str) -> list[tuple[str, str]]:
    return re.findall(r'<article class="case" id="case-([^"]+)" data-verdict="(\w+)"', html)


def test_a_capped_html_report_shows_every_failure_and_counts_every_case(tmp_path: Path) -> None:
    run = record_run(tmp_path / "run", tmp_path / "cases.jsonl", MANY)
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    full = (run / "report.html").read_text(encoding="utf-8")
    capped_path = tmp_path / "capped.html"
    code = main(["report", str(run), "--html", str(capped_path), "--html-cases", "2"])
    assert code == summary["exit_code"]
    capped = capped_path.read_text(encoding="utf-8")

    passing = sorted(v.case_id for v in read_verdicts(run) if v.verdict is Verdict.PASS)
    not_passing = {v.case_id for v in read_verdicts(run) if v.verdict is not Verdict.PASS}
    assert summary["passed"] == len(passing) > 2
    assert not_passing
    assert len(_cards(full)) == summary["total"] == len(MANY)
    shown = _cards(capped)
    assert {i for i, v in shown if v != "PASS"} == not_passing
    assert [i for i, v in shown if v == "PASS"] == passing[:2]
    hidden = len(passing) - 2
    assert f"{hidden} passing cases not shown" in capped
    assert f"Cases ({len(shown)} shown of {summary['total']})" in capped
    assert 'id="not-shown"' not in full
    # Every figure is the uncapped run's: the gate, the counts, the errors, the agreement,
    # categories, jurors and cost are the same bytes in both pages.
    for name in ("summary", "by-category", "agreement-section", "jurors-section"):
        assert _section(capped, name) == _section(full, name)
    gate = f"{summary['passed']} passed, {summary['failed']} failed, "
    assert gate + f"{summary['inconclusive']} inconclusive of {summary['total']}" in capped
    # Each shown case's prompt is on the page; a hidden case has neither card nor prompt.
    assert capped.count('<details class="prompt" id="prompt-') == len(shown)
    assert 'id="case-good-19"' not in capped
    assert 'id="prompt-good-19"' not in capped


def test_the_terminal_lists_a_capped_number_of_cases_and_says_how_many_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(publishing, "TERMINAL_CASES", 1)
    stream = io.StringIO()
    run = record_run(tmp_path / "run", tmp_path / "cases.jsonl", stream=stream)
    out = stream.getvalue()
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    failed = [note["case_id"] for note in summary["failures"]]
    assert len(failed) == 3
    listed = out[out.index(f"Failed ({len(failed)})") : out.index("Inconclusive (")]
    assert failed[0] in listed
    assert not any(case_id in listed for case_id in failed[1:])
    assert f"... and {len(failed) - 1} more" in listed
    # The counts are every case's.
    assert f"{summary['failed']} failed" in out


def _random_verdicts(seed: int) -> list[CaseVerdict]:
    """Verdicts of jurors a-d with missing, invalid and abstained votes, samples, and a
    juror that voted on a few cases only."""
    rng = random.Random(seed)
    verdicts = []
    for index in range(60):
        votes = []
        for juror in ("a", "b", "c", "d"):
            if juror == "d" and index % 7:
                continue
            status = rng.choice([VoteStatus.VALID] * 6 + [VoteStatus.INVALID, VoteStatus.ABSTAINED])
            score = rng.randint(1, 5)
            samples: tuple[Ballot, ...] = ()
            if juror == "c":
                samples = tuple(
                    Ballot(
                        scores={"correctness": s},
                        reason="",
                        verdict=Verdict(("FAIL", "PASS")[s > 2]),
                    )
                    for s in (score, rng.randint(1, 5), score)
                )
            votes.append(
                Vote(
                    juror=juror,
                    status=status,
                    verdict=None
                    if status is not VoteStatus.VALID
                    else Verdict(("FAIL", "PASS")[score > 2]),
                    scores={"correctness": score, "tone": rng.choice(["calm", "curt"])}
                    if status is VoteStatus.VALID
                    else {},
                    samples=samples,
                )
            )
        verdicts.append(
            CaseVerdict(case_id=f"c{index:03d}", verdict=Verdict.PASS, votes=tuple(votes))
        )
    return verdicts


@pytest.mark.parametrize("declared", [False, True])
def test_agreement_gathered_one_verdict_at_a_time_is_the_agreement_of_all(
    declared: bool,
) -> None:
    verdicts = _random_verdicts(7)
    metrics = rubric_metrics("five-metric", verdicts, required=True) if declared else None
    if declared:
        # The five-metric rubric's scores, so that its declared metrics have ratings.
        verdicts = [
            v.model_copy(
                update={
                    "votes": tuple(
                        vote.model_copy(
                            update={"scores": {"correctness": vote.scores["correctness"]}}
                        )
                        if vote.scores
                        else vote
                        for vote in v.votes
                    )
                }
            )
            for v in verdicts
        ]
    expected = summarize_agreement(verdicts, metrics, bootstrap=200)
    tally = AgreementTally()
    shuffled = list(verdicts)
    random.Random(1).shuffle(shuffled)
    for verdict in shuffled:
        tally.add(verdict)
    got = tally.page(metrics, bootstrap=200, confidence=0.95, seed=0)
    # Every figure the page shows (tests/agreement/test_plain.py holds them to the last bits
    # on random ratings; here, on verdicts with every kind of vote).
    for name, figures in {"verdict": got.verdict, **got.metrics}.items():
        want = expected.all()[name]
        for mine, theirs in (
            (figures.alpha, want.alpha),
            (figures.fleiss_kappa, want.fleiss_kappa),
            (figures.gwet_ac1, want.gwet_ac1),
            (figures.percent_agreement, want.percent_agreement),
        ):
            assert (mine.units, mine.reason) == (theirs.units, theirs.reason)
            assert mine.value == pytest.approx(theirs.value, abs=1e-12)
        assert (figures.alpha.low, figures.alpha.high) == pytest.approx(
            (want.alpha.low, want.alpha.high), abs=1e-12
        )
    assert list(got.metrics) == list(expected.metrics)
