"""The gate knows its own uncertainty: the pass rate with its interval in every report, and a
gate held by the interval's lower bound that is INCONCLUSIVE (exit 3) when the interval
straddles the bar, saying how many more cases would likely decide it."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from scipy.stats import binomtest

from jury import Gate
from jury.cli import main
from jury.decide._proportion import cases_to_decide
from jury.report._uncertainty import decision_json, gate_outcome

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "shopnest" / "cases.jsonl"
#: The example: 11 of its 24 cases pass under the offline panel.
PASSED, TOTAL = 11, 24


pytestmark = pytest.mark.usefixtures("offline_in_tmp")


def _jury(tmp_path: Path, gate: str) -> str:
    path = tmp_path / "jury.toml"
    path.write_text(
        'jurors = ["offline/reference", "offline/evidence", "offline/facts"]\n[gate]\n' + gate
    )
    return str(path)


def test_the_lower_bound_gate_passes_only_when_the_bound_clears_the_bar() -> None:
    bar = Gate(min_pass_rate=0.8, on="lower_bound")
    assert gate_outcome(95, 5, 0, bar).code == 0  # 95% [88.8, 97.8]
    assert gate_outcome(50, 50, 0, bar).code == 1  # 50% [40.4, 59.6]: wholly below
    assert gate_outcome(37, 3, 0, bar).code == 0  # 92.5% [80.1, 97.4]: just clears 80%
    undecided = gate_outcome(35, 5, 0, bar)  # 87.5% [73.9, 94.5]
    assert undecided.code == 3
    assert undecided.further == cases_to_decide(35, 40, 0.8)
    assert undecided.further is not None
    assert undecided.further > 0
    why = undecided.why()
    assert why is not None
    assert f"about {undecided.further} more case(s)" in why
    assert "straddles the bar 80%" in why


def test_the_estimate_gate_is_unchanged_and_counts_inconclusive_cases_both_ways() -> None:
    bar = Gate(min_pass_rate=0.9)
    assert gate_outcome(36, 4, 0, bar).code == 0
    assert gate_outcome(35, 1, 4, bar).code == 3  # 35/40 short; 39/40 would clear
    assert gate_outcome(33, 7, 0, bar).code == 1
    assert gate_outcome(36, 4, 0, bar).why() is None


def test_inconclusive_cases_that_hold_the_bound_gate_are_named_not_more_cases() -> None:
    bar = Gate(min_pass_rate=0.5, on="lower_bound")
    # 40 of 100 passed, 40 inconclusive: the bar is between 40% and 80%.
    held = gate_outcome(40, 20, 40, bar)
    assert held.code == 3
    assert held.further is None
    assert held.inconclusive_decide
    assert "inconclusive case(s) passing and not without" in str(held.why())
    assert held.rate_text().endswith("; 40 inconclusive counted as not passed)")
    # summary.json keeps both intervals, each saying how it counts them.
    best = decision_json(held)["inconclusive_counted_as_passed"]
    assert isinstance(best, dict)
    assert (best["passed"], best["inconclusive_counted_as"]) == (80, "passed")


def test_inconclusive_cases_that_would_not_clear_the_bound_are_not_said_to_clear_it() -> None:
    bar = Gate(min_pass_rate=0.5, on="lower_bound")
    # 0 of 3 passed, 2 inconclusive: even 2 of 3 passing has a lower bound of 20.8% < 50%.
    held = gate_outcome(0, 1, 2, bar)
    assert held.code == 3
    assert held.best is not None
    assert held.best.low == pytest.approx(binomtest(2, 3).proportion_ci(method="wilson").low)
    assert not held.inconclusive_decide
    why = str(held.why())
    assert "cleared" not in why
    assert "its 2 inconclusive case(s) decide on which side the rate lies" in why
    assert held.further == cases_to_decide(2, 3, 0.5)
    assert f"were they to pass, about {held.further} more case(s)" in why


def test_a_bound_gate_at_one_hundred_percent_is_refused_before_the_run() -> None:
    with pytest.raises(ValueError, match="lower bound never reaches 1"):
        Gate(on="lower_bound")
    with pytest.raises(ValueError, match="require = 4 of repeats = 3"):
        Gate(repeats=3, require=4)


def test_every_report_of_the_example_shows_the_pass_rate_with_its_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", str(EXAMPLE), "--out", "run"]) == 1
    last = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
    reference = binomtest(PASSED, TOTAL).proportion_ci(method="wilson")
    band = f"{100 * reference.low:.1f}–{100 * reference.high:.1f}%"
    # The terminal's last line is the gate's, one line however narrow the terminal.
    assert last[-1].startswith("Gate FAILED")
    assert f"pass rate 45.8% (95% Wilson {band}) (required 100%)" in last[-1]
    assert last[-1].endswith("exit 1")

    summary = json.loads((tmp_path / "run/summary.json").read_text())
    interval = summary["pass_rate_interval"]
    assert interval["method"] == "wilson"
    assert interval["level"] == 0.95
    assert interval["estimate"] == pytest.approx(PASSED / TOTAL)
    assert interval["low"] == pytest.approx(reference.low, abs=1e-12)
    assert interval["high"] == pytest.approx(reference.high, abs=1e-12)
    assert interval["inconclusive_counted_as"] == "not passed"
    edge = summary["by_category"]["edge"]
    edge_reference = binomtest(edge["passed"], edge["total"]).proportion_ci(method="wilson")
    assert edge["pass_rate_interval"]["low"] == pytest.approx(edge_reference.low, abs=1e-12)

    suites = {s.get("name"): s for s in ET.parse(tmp_path / "run/junit.xml").getroot()}
    gate = {p.get("name"): p.get("value") for p in suites["aiojury gate"].iter("property")}
    assert gate["pass_rate.low"] == f"{reference.low:.4f}"
    assert gate["pass_rate.method"] == "wilson"
    assert gate["pass_rate.inconclusive_counted_as"] == "not passed"
    assert "category.edge.pass_rate.high" in gate
    own = suites["policy"].find("properties")
    assert own is not None
    policy = {p.get("name") for p in own}
    assert {"pass_rate", "pass_rate.low", "pass_rate.high"} <= policy

    html = (tmp_path / "run/report.html").read_text()
    assert f"pass rate 45.8% (95% Wilson {band})" in html
    assert re.search(r'<td class="num interval">\d+\.\d–\d+\.\d%</td>', html)


def test_a_gate_on_the_lower_bound_that_the_estimate_passes_exits_3_with_the_cases_to_add(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    on_estimate = _jury(tmp_path, "min_pass_rate = 0.4\n")
    assert main(["run", str(EXAMPLE), "--jury", on_estimate, "--out", "estimate"]) == 0
    capsys.readouterr()
    on_bound = _jury(tmp_path, 'min_pass_rate = 0.4\non = "lower_bound"\n')
    assert main(["run", str(EXAMPLE), "--jury", on_bound, "--out", "bound"]) == 3
    out = " ".join(capsys.readouterr().out.split())
    further = cases_to_decide(PASSED, TOTAL, 0.4)
    assert further is not None
    assert further > 0
    assert f"straddles the bar 40%: about {further} more case(s)" in out
    assert "Gate INCONCLUSIVE" in out
    assert "(lower bound required 40%)" in out
    decision = json.loads((tmp_path / "bound/summary.json").read_text())["gate_decision"]
    assert decision["exit_code"] == 3
    assert decision["further_cases"] == further


def test_the_level_and_the_exact_interval_are_the_jury_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jury = _jury(tmp_path, 'min_pass_rate = 0.3\ninterval = "exact"\nlevel = 0.9\n')
    assert main(["run", str(EXAMPLE), "--jury", jury, "--out", "run"]) == 0
    reference = binomtest(PASSED, TOTAL).proportion_ci(confidence_level=0.9, method="exact")
    out = " ".join(capsys.readouterr().out.split())
    assert f"90% Clopper-Pearson {100 * reference.low:.1f}–{100 * reference.high:.1f}%" in out
    assert "90% Clopper-Pearson" in out.split("Results by category")[1]
    interval = json.loads((tmp_path / "run/summary.json").read_text())["pass_rate_interval"]
    assert (interval["method"], interval["level"]) == ("exact", 0.9)
    assert interval["low"] == pytest.approx(reference.low, abs=1e-10)


def test_rescore_holds_the_gate_by_the_bound_without_a_judge_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", str(EXAMPLE), "--out", "run"]) == 1
    command = ["rescore", "run", "--min-pass-rate", "0.4", "--out"]
    assert main([*command, "estimate"]) == 0
    assert main([*command, "bound", "--gate-on", "lower_bound", "--interval", "exact"]) == 3
    capsys.readouterr()
    assert main(["rescore", "run", "--gate-on", "lower_bound", "--out", "never"]) == 2
    assert "lower bound never reaches 1" in capsys.readouterr().err


def test_compare_shows_each_sides_pass_rate_with_the_jury_files_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", str(EXAMPLE), "--out", "a"]) == 1
    assert main(["rescore", "a", "--threshold", "5", "--out", "b"]) == 1
    capsys.readouterr()
    assert main(["compare", "a", "b"]) in (0, 1)
    out = " ".join(capsys.readouterr().out.split())
    reference = binomtest(PASSED, TOTAL).proportion_ci(method="wilson")
    band = f"95% Wilson {100 * reference.low:.1f}–{100 * reference.high:.1f}%"
    assert f"A 45.8% ({band})" in out
    # The comparison's HTML page too, each side with its interval.
    assert main(["report", "--compare", "a", "b", "--html", "compare.html"]) == 0
    page = (tmp_path / "compare.html").read_text()
    b = json.loads((tmp_path / "b/summary.json").read_text())
    theirs = binomtest(b["passed"], b["total"]).proportion_ci(method="wilson")
    assert f"({band})" in page
    assert f"(95% Wilson {100 * theirs.low:.1f}–{100 * theirs.high:.1f}%)" in page
    capsys.readouterr()
    jury = _jury(tmp_path, 'interval = "exact"\nlevel = 0.9\n')
    assert main(["compare", "a", "b", "--jury", jury, "--json"]) in (0, 1)
    rate = json.loads(capsys.readouterr().out)["quantities"][0]
    assert rate["name"] == "pass rate"
    exact = binomtest(PASSED, TOTAL).proportion_ci(confidence_level=0.9, method="exact")
    assert rate["interval_a"]["method"] == "exact"
    assert rate["interval_a"]["low"] == pytest.approx(exact.low, abs=1e-10)
    assert rate["interval_b"]["estimate"] == pytest.approx(rate["b"])
    # A flag outranks the jury file.
    assert main(["compare", "a", "b", "--jury", jury, "--level", "0.99", "--json"]) in (0, 1)
    assert json.loads(capsys.readouterr().out)["quantities"][0]["interval_a"]["level"] == 0.99
