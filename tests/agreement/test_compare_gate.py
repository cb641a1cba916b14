"""`jury compare`'s gate, case by case: stable regressions fail it whatever the aggregate tests
say, flaky cases are listed apart and never called, and the cost rule (`cheaper`) is read from
the records."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from agreement_helpers import write_run
from jury import CallStats, Case, CaseVerdict, ConfigError, Verdict, Vote, VoteStatus
from jury.agreement._compare import compare_runs
from jury.cli import main
from jury.panel._panel import CompareRules

P, F, UNDECIDED = Verdict.PASS, Verdict.FAIL, Verdict.INCONCLUSIVE
STEADY = [f"steady-{i:02}" for i in range(14)]
REGRESSED = ["refund-window", "order-status", "tool-args", "pii-mask", "escalation"]


def verdicts(
    pattern: dict[str, Verdict], cost: float | None = 0.01, cache_hits: int = 0
) -> dict[str, CaseVerdict]:
    """One run: each case's verdict, with one vote whose calls cost `cost`."""
    calls = CallStats(attempts=1, cost=cost, cache_hits=cache_hits)
    vote = Vote(juror="j", status=VoteStatus.VALID, calls=calls)
    return {
        case: CaseVerdict(case_id=case, verdict=verdict, votes=(vote,))
        for case, verdict in pattern.items()
    }


def scenario() -> tuple[list[dict[str, Verdict]], list[dict[str, Verdict]]]:
    """The issue's scenario: 3 repeats a side; five cases go PASS -> FAIL in all three, one
    goes FAIL -> PASS, the rest pass throughout."""
    base = dict.fromkeys(STEADY, P) | {"improved": F}
    a = base | dict.fromkeys(REGRESSED, P)
    b = base | dict.fromkeys(REGRESSED, F) | {"improved": P}
    return [a, a, a], [b, b, b]


def flaky_only() -> tuple[list[dict[str, Verdict]], list[dict[str, Verdict]]]:
    """Only flaky changes: each changed case has PASS and FAIL among one side's repeats."""
    base = dict.fromkeys(STEADY, P)
    a = [base | {"x": P, "y": P}, base | {"x": F, "y": P}, base | {"x": P, "y": P}]
    b = [base | {"x": F, "y": F}, base | {"x": F, "y": P}, base | {"x": F, "y": F}]
    return a, b


def test_stable_regressions_fail_the_gate_though_the_sign_test_does_not() -> None:
    side_a, side_b = scenario()
    result = compare_runs([verdicts(r) for r in side_a], [verdicts(r) for r in side_b])
    pass_rate = result.quantities[0]
    assert pass_rate.p_value is not None
    assert pass_rate.p_value > 0.05  # 5 down, 1 up: the aggregate alone would let it through
    assert pass_rate.call == "not significant"
    assert pass_rate.noise_source == "repeats"
    assert pass_rate.noise == 0
    assert [c.case_id for c in result.regressions] == sorted(REGRESSED)
    assert [c.case_id for c in result.of_kind("improvement")] == ["improved"]
    # Regressions come first in the list of changes.
    assert [c.kind for c in result.changes] == ["regression"] * 5 + ["improvement"]
    assert result.outcome == "failed"
    assert result.reasons[0].startswith("5 stable regression(s): " + ", ".join(sorted(REGRESSED)))
    assert not result.warnings


def test_flaky_changes_are_listed_apart_and_never_called() -> None:
    side_a, side_b = flaky_only()
    result = compare_runs([verdicts(r) for r in side_a], [verdicts(r) for r in side_b])
    assert [(c.case_id, c.kind) for c in result.changes] == [("x", "flaky"), ("y", "flaky")]
    assert result.regressions == ()
    assert result.outcome == "passed"
    assert "2 changed case(s) are flaky" in " ".join(result.reasons)
    assert result.quantities[0].call != "worse"


def test_an_inconclusive_repeat_is_no_regression() -> None:
    # A judge error is never a fail: B's second repeat could not judge the case.
    a = [{"c": P}] * 3
    b = [{"c": F}, {"c": UNDECIDED}, {"c": F}]
    result = compare_runs([verdicts(r) for r in a], [verdicts(r) for r in b])
    assert [c.kind for c in result.changes] == ["inconclusive"]
    assert result.outcome == "passed"
    assert "inconclusive or missing verdict" in " ".join(result.reasons)
    # A case missing from a repeat is not called either.
    missing = [{"c": F, "d": P}, {"d": P}, {"c": F, "d": P}]
    result = compare_runs([verdicts(r) for r in a], [verdicts(r) for r in missing])
    assert [c.kind for c in result.changes] == ["inconclusive"]


def test_the_rules_tolerate_regressions_and_demand_repeats() -> None:
    side_a, side_b = scenario()
    runs_a, runs_b = [verdicts(r) for r in side_a], [verdicts(r) for r in side_b]
    assert compare_runs(runs_a, runs_b, CompareRules(max_regressions=5)).outcome == "passed"
    assert compare_runs(runs_a, runs_b, CompareRules(max_regressions=4)).outcome == "failed"
    with pytest.raises(ConfigError, match=r"3 runs a side .* B has 1"):
        compare_runs(runs_a, runs_b[:1], CompareRules(min_repeats=3))


def same_quality(
    cost_a: float | None, cost_b: float | None, cache_hits: int = 0
) -> tuple[list[dict[str, CaseVerdict]], list[dict[str, CaseVerdict]]]:
    pattern = dict.fromkeys(STEADY, P)
    return (
        [verdicts(pattern, cost_a)] * 3,
        [verdicts(pattern, cost_b, cache_hits)] * 3,
    )


@pytest.mark.parametrize(
    ("cost_b", "outcome", "words"),
    [
        (0.006, "passed", "B costs 60% of A (at most the 60% the rules allow)"),
        (0.007, "failed", "B costs 70% of A (more than the 60% the rules allow)"),
    ],
)
def test_the_cost_rule_reads_the_judges_cost_from_the_records(
    cost_b: float, outcome: str, words: str
) -> None:
    side_a, side_b = same_quality(0.01, cost_b)
    result = compare_runs(side_a, side_b, CompareRules(cheaper=0.4))
    assert result.cost is not None
    assert result.cost.a == pytest.approx(0.01 * len(STEADY))
    assert result.cost.ratio == pytest.approx(cost_b / 0.01)
    assert result.outcome == outcome
    assert words in result.reasons[0]


def test_the_cost_rule_cannot_pass_on_unknown_or_cached_costs() -> None:
    unknown = compare_runs(*same_quality(0.01, None), CompareRules(cheaper=0.4))
    assert unknown.outcome == "undecided"
    assert "B: a judge call's price is unknown" in unknown.reasons[0]
    # Replies served from the cache were paid for by another run: B only looks cheap.
    cached = compare_runs(*same_quality(0.01, 0.0, cache_hits=1), CompareRules(cheaper=0.4))
    assert cached.outcome == "undecided"
    assert "came from the cache" in cached.reasons[0]
    assert any("repeats took" in w for w in cached.warnings)


def test_a_stable_regression_fails_the_cost_rule_however_cheap() -> None:
    side_a, side_b = scenario()
    runs_a = [verdicts(r, 0.01) for r in side_a]
    runs_b = [verdicts(r, 0.001) for r in side_b]
    result = compare_runs(runs_a, runs_b, CompareRules(cheaper=0.4))
    assert result.outcome == "failed"
    assert "stable regression" in result.reasons[0]


def test_beating_a_beyond_the_noise_passes_the_cost_rule_at_any_cost() -> None:
    cases = [f"c{i:02}" for i in range(20)]
    runs_a = [verdicts(dict.fromkeys(cases, F), 0.01)] * 2
    runs_b = [verdicts(dict.fromkeys(cases, P), 0.02)] * 2
    result = compare_runs(runs_a, runs_b, CompareRules(cheaper=0.4))
    assert result.quantities[0].call == "better"
    assert result.outcome == "passed"
    assert result.reasons[0] == "B beats A beyond the noise (pass rate)"


def test_the_agent_cost_comes_from_each_case() -> None:
    side_a, side_b = same_quality(0.01, 0.01)
    cases_a = [{c: Case(id=c, metadata={"cost_usd": 0.10}) for c in STEADY}] * 3
    cases_b = [{c: Case(id=c, metadata={"cost_usd": 0.05}) for c in STEADY}] * 3
    rules = CompareRules(cheaper=0.4, cost="agent")
    result = compare_runs(side_a, side_b, rules, cases=(cases_a, cases_b))
    assert result.cost is not None
    assert result.cost.ratio == pytest.approx(0.5)
    assert result.outcome == "passed"
    cases_b[1] = {c: Case(id=c) for c in STEADY}
    result = compare_runs(side_a, side_b, rules, cases=(cases_a, cases_b))
    assert result.outcome == "undecided"
    assert "records no metadata.cost_usd" in result.reasons[0]


def write_sides(
    tmp_path: Path,
    sides: tuple[Sequence[dict[str, Verdict]], Sequence[dict[str, Verdict]]],
    cost: tuple[float, float] = (0.01, 0.01),
) -> list[str]:
    """Run directories for both sides: ``--a RUN... --b RUN...``."""
    argv = []
    for side, runs, paid in (("a", sides[0], cost[0]), ("b", sides[1], cost[1])):
        argv.append(f"--{side}")
        argv += [
            str(write_run(tmp_path / f"{side}{i}", verdicts(r, paid).values(), "five-metric"))
            for i, r in enumerate(runs)
        ]
    return argv


def test_the_cli_names_the_five_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sides = write_sides(tmp_path, scenario())
    assert main(["compare", *sides]) == 1
    out = capsys.readouterr().out
    listed = out.index("Stable regressions")
    assert listed < out.index("Stable improvements") < out.index("Aggregate tests")
    for case in REGRESSED:
        assert f"  {case}: PASS/PASS/PASS -> FAIL/FAIL/FAIL" in out
    assert "pass rate: not significant — p = " in out
    assert "Result FAILED" in out
    assert "5 stable regression(s)" in out
    assert main(["compare", *sides, "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["outcome"] == "failed"
    assert [c["case_id"] for c in data["changes"] if c["kind"] == "regression"] == sorted(REGRESSED)


def test_the_cli_passes_flaky_changes_and_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", *write_sides(tmp_path, flaky_only())]) == 0
    out = capsys.readouterr().out
    assert "Flaky, not called" in out
    assert "Result PASSED" in out
    assert "no stable regression and nothing worse beyond the noise" in out
    assert "2 changed case(s) are flaky (PASS and FAIL among one side's repeats)" in out


def test_the_jury_files_compare_rules_set_the_cost_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pattern = dict.fromkeys(STEADY, P)
    sides = write_sides(tmp_path, ([pattern] * 3, [pattern] * 3), cost=(0.01, 0.008))
    rules = tmp_path / "jury.toml"
    rules.write_text('jurors = ["offline/reference"]\n[compare]\ncheaper = 0.4\nmin_repeats = 3\n')
    assert main(["compare", *sides, "--jury", str(rules)]) == 1
    out = capsys.readouterr().out
    assert "B matches A but is not cheaper: B costs 80% of A" in out
    # A flag given on the command line takes precedence over the file.
    assert main(["compare", *sides, "--jury", str(rules), "--cheaper", "0.2"]) == 0
    two_of_a = [*sides[:3], *sides[4:]]  # --a A0 A1 --b B0 B1 B2
    assert main(["compare", *two_of_a, "--jury", str(rules)]) == 2
    assert "compare.min_repeats" in capsys.readouterr().err
