"""A run that did not finish (interrupted, stopped by a juror that cannot work, batches still
out) is never reported as a passed gate: the cases it selected that have no verdict count as
inconclusive, and every report says how many there are and how to judge them.

A new user's trial found `jury report` and `jury rescore` on a run stopped after 3 of its 24
cases printing "Gate PASSED ... of 3, exit 0".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import jury
from jury.cli import main

EXAMPLE = Path(__file__).parents[2] / "examples" / "shopnest" / "cases.jsonl"

pytestmark = pytest.mark.usefixtures("offline_in_tmp")


def stopped_after(kept: list[str]) -> None:
    """The example's run in ``run/`` as a process killed after judging the `kept` verdicts
    (one of each kind asked, in order) leaves it: no end in its manifest."""
    assert main(["run", str(EXAMPLE), "--out", "run", "--no-cache", "--progress", "none"]) == 1
    lines = Path("run/verdicts.jsonl").read_text(encoding="utf-8").splitlines()
    chosen = []
    for wanted in kept:
        chosen.append(next(x for x in lines if json.loads(x)["verdict"] == wanted))
        lines.remove(chosen[-1])
    Path("run/verdicts.jsonl").write_text("\n".join(chosen) + "\n", encoding="utf-8")
    manifest = json.loads(Path("run/manifest.json").read_text(encoding="utf-8"))
    for key in ("finished", "exit_code"):
        manifest.pop(key)
    Path("run/manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def test_a_run_stopped_on_passing_cases_leaves_its_gate_undecided_everywhere(
    capsys: pytest.CaptureFixture[str],
) -> None:
    stopped_after(["PASS", "PASS", "PASS"])
    capsys.readouterr()
    assert main(["report", "run", "--junit", "j.xml", "--json", "s.json"]) == 3
    printed = " ".join(capsys.readouterr().out.split())  # as one line, however it wraps
    assert "The run did not finish: 21 of its 24 cases have no verdict" in printed
    assert "they leave the gate undecided" in printed
    assert "(`jury run --resume` on the run that was judging them judges them)" in printed
    assert "Gate INCONCLUSIVE 3 passed, 0 failed, 0 inconclusive, 21 not judged of 24" in printed
    summary = json.loads(Path("s.json").read_text(encoding="utf-8"))
    assert (summary["not_judged"], summary["exit_code"]) == (21, 3)
    assert summary["pass_rate_interval"]["cases"] == 24
    assert '<property name="not_judged" value="21"' in Path("j.xml").read_text(encoding="utf-8")
    # The library reads the same from the directory, and so does a re-score of it.
    opened = jury.Run.open("run")
    assert (opened.exit_code, opened.passed, opened.summary.not_judged) == (3, False, 21)
    assert main(["rescore", "run", "--out", "again"]) == 3
    again = json.loads(Path("again/summary.json").read_text(encoding="utf-8"))
    assert again["not_judged"] == 21
    # Every figure counts the cases the run did not reach, as the gate does.
    assert summary["pass_rate"] == pytest.approx(3 / 24)
    assert summary["coverage"] == pytest.approx(3 / 24)
    assert opened.summary.pass_rate == pytest.approx(3 / 24)
    # A bar the judged cases clear even if every missing one fails: passed, and said so.
    assert main(["rescore", "run", "--out", "low", "--min-pass-rate", "0.1"]) == 0
    low = " ".join(capsys.readouterr().out.split())
    assert "the gate passes even if every one of them fails" in low


def test_a_run_stopped_after_a_failure_fails_a_gate_no_verdict_could_save() -> None:
    # The example's gate wants every case to pass: one failure decides it, finished or not.
    stopped_after(["PASS", "FAIL"])
    assert main(["report", "run", "--html", "page.html"]) == 1
    page = Path("page.html").read_text(encoding="utf-8")
    assert "1 passed, 1 failed, 0 inconclusive, 22 not judged of 24" in page
    assert "the gate fails whatever their verdicts" in page
