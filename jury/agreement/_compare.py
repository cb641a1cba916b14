"""Comparing two sides (each one or more runs of the same configuration) case by case.

The seed article's rules: compare question by question, not by two averages; measure how much
a score moves with nothing changed (repeats of the same side); write the bar down before
looking (`CompareRules`); a change wins only if it beats the last version by more than the
noise, or matches it and is cheaper (``cheaper = 0.4``: at most 60 % of the cost).

Each case that changed is one of:

- a **stable regression**: PASS in every repeat of A, FAIL in every repeat of B. The gate
  fails on any (``max_regressions`` tolerates some), whatever the aggregate tests say;
- a **stable improvement**: the other way round;
- **flaky**: PASS and FAIL among the repeats of one side. Listed apart, never called;
- **inconclusive**: a repeat gave no verdict (a judge was unavailable) or lacks the case. A
  judge error is never a fail, so these are not called either.

The aggregate tests are context, each worded by what it means. Each runs on the cases both
sides judged:
- pass/fail: the exact McNemar test, i.e. a two-sided binomial test on the discordant cases
  (pass -> fail against fail -> pass). With repeats, each case's pass share per side is
  compared and the same sign test runs on the cases that moved.
- ordinal metrics: the sign test (differences of ordinal values have signs, not sizes);
- the score and interval metrics: the Wilcoxon signed-rank test (Pratt's handling of zero
  differences is not used: zero differences are dropped, as in Wilcoxon's original test).
A quantity is "worse" or "better" only when its test is significant and it moves by more than
the noise (the largest movement between repeats of one side, or the rules' floor) and the
minimum effect; otherwise it is "not significant", "within noise" or "below minimum effect".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from .._errors import ConfigError
from .._verdict import CaseVerdict, Verdict
from ..adapters._rubric import Level
from ..decide._proportion import Interval, proportion_interval
from ..panel._panel import CompareRules
from ._changes import (
    CaseChange,
    ChangeKind,
    CostComparison,
    Run,
    SideCases,
    case_changes,
    compare_costs,
    number,
    weaknesses,
)

__all__ = [
    "CaseChange",
    "ChangeKind",
    "Comparison",
    "CostComparison",
    "Quantity",
    "compare_runs",
]

_MODEL = ConfigDict(frozen=True)

Call = Literal["better", "worse", "not significant", "within noise", "below minimum effect"]
Outcome = Literal["passed", "failed", "undecided"]
EXIT_CODES: dict[Outcome, int] = {"passed": 0, "failed": 1, "undecided": 3}


class Quantity(BaseModel):
    """One quantity compared across the two sides: the pass rate, a metric, or the score."""

    model_config = _MODEL

    name: str
    test: str
    #: Cases both sides have a value for.
    cases: int
    a: float | None
    b: float | None
    #: Mean over paired cases of B minus A (for pass/fail: the change in pass rate).
    effect: float | None
    #: Cases that went up and down.
    improved: int
    worsened: int
    p_value: float | None
    #: The largest movement between repeats of one side, or the floor the rules set.
    noise: float
    #: Where the noise came from: "repeats", "rules" or "none" (one run per side, no floor).
    noise_source: str
    #: Cases whose value moved between two repeats of one side (None: no side has repeats).
    moved_between_repeats: int | None = None
    call: Call
    why: str
    #: The pass rate's: each side's with its interval (the rules' `interval` and `level`).
    interval_a: Interval | None = None
    interval_b: Interval | None = None


class Comparison(BaseModel):
    """Side B against side A (`jury.compare`): each case that changed, each aggregate test,
    the cost, and the gate's `outcome` under the rules with its `reasons`."""

    model_config = _MODEL

    runs_a: int
    runs_b: int
    common: int
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    #: Regressions first, then improvements, flaky and inconclusive changes.
    changes: tuple[CaseChange, ...]
    #: Cases whose verdict differs between repeats of the same side.
    unstable_a: tuple[str, ...]
    unstable_b: tuple[str, ...]
    quantities: tuple[Quantity, ...]
    rules: CompareRules
    cost: CostComparison | None = None
    #: The gate's outcome under the rules, and why, most important reason first.
    outcome: Outcome = "passed"
    reasons: tuple[str, ...] = ()
    #: What makes the comparison weaker than it looks (repeats served from the cache, juries
    #: that differ, FAKE replies...).
    warnings: tuple[str, ...] = ()
    #: Each key of the recorded jury that differs between the sides: [A's value, B's value]
    #: (`jury.compare` reads the manifests; empty when compared from verdicts alone).
    jury_changes: dict[str, list[Any]] = {}
    #: By side, what degraded in its runs (FAKE replies, OFFLINE jurors, judge errors...).
    degraded: dict[str, list[str]] = {}

    @property
    def exit_code(self) -> int:
        """`jury compare`'s: 0 passed, 1 failed, 3 undecided (no case in common, or the cost
        rule cannot be checked)."""
        return EXIT_CODES[self.outcome]

    @property
    def passed(self) -> bool:
        return self.outcome == "passed"

    @property
    def worse(self) -> tuple[Quantity, ...]:
        return tuple(q for q in self.quantities if q.call == "worse")

    @property
    def better(self) -> tuple[Quantity, ...]:
        return tuple(q for q in self.quantities if q.call == "better")

    def of_kind(self, kind: ChangeKind) -> tuple[CaseChange, ...]:
        return tuple(c for c in self.changes if c.kind == kind)

    @property
    def regressions(self) -> tuple[CaseChange, ...]:
        return self.of_kind("regression")


def _pass(verdict: CaseVerdict) -> float | None:
    if verdict.verdict is Verdict.PASS:
        return 1.0
    if verdict.verdict is Verdict.FAIL:
        return 0.0
    return None


def _per_case(runs: Sequence[Run], cases: Sequence[str], read: _Reader) -> dict[str, float]:
    """Each case's value, averaged over the runs that have one."""
    out: dict[str, float] = {}
    for case in cases:
        values = [v for run in runs if case in run and (v := read(run[case])) is not None]
        if values:
            out[case] = sum(values) / len(values)
    return out


class _Reader:
    def __init__(self, name: str, metric: str | None = None) -> None:
        self.name = name
        self.metric = metric

    def __call__(self, verdict: CaseVerdict) -> float | None:
        if self.name == "pass rate":
            return _pass(verdict)
        if self.metric is None:
            return verdict.score
        result = verdict.metrics.get(self.metric)
        return None if result is None else number(result.value)


def _paired(a: Mapping[str, float], b: Mapping[str, float]) -> list[tuple[str, float, float]]:
    return [(case, a[case], b[case]) for case in sorted(a) if case in b]


def _sign_test(up: int, down: int) -> float:
    from scipy.stats import binomtest

    if up + down == 0:
        return 1.0
    return float(binomtest(up, up + down, 0.5, alternative="two-sided").pvalue)


def _wilcoxon(differences: Sequence[float]) -> float:
    from scipy.stats import wilcoxon

    moved = [d for d in differences if d != 0]
    if not moved:
        return 1.0
    return float(wilcoxon(moved, zero_method="wilcox").pvalue)


def _noise(sides: Sequence[Sequence[Run]], read: _Reader) -> tuple[float | None, int | None]:
    """The largest mean movement between two repeats of the same side, on their shared
    cases, and how many cases moved between repeats (None for both without repeats)."""
    largest: float | None = None
    moved: set[str] | None = None
    for runs in sides:
        for first, second in combinations(runs, 2):
            cases = sorted(set(first) & set(second))
            pairs = _paired(_per_case([first], cases, read), _per_case([second], cases, read))
            moved = moved if moved is not None else set()
            moved.update(case for case, x, y in pairs if x != y)
            if pairs:
                movement = abs(sum(y - x for _, x, y in pairs) / len(pairs))
                largest = movement if largest is None else max(largest, movement)
    return largest, None if moved is None else len(moved)


def _call(
    effect: float,
    p_value: float,
    noise: float,
    source: str,
    moved: int | None,
    minimum: float,
    significance: float,
) -> tuple[Call, str]:
    change = f"change {effect:+.3g}"
    if p_value >= significance:
        return "not significant", f"p = {p_value:.3g} >= {significance:g}: not significant"
    if abs(effect) <= noise and noise >= minimum:
        if source == "repeats":
            return "within noise", (
                f"p = {p_value:.3g}, but the {change} is within the noise measured between "
                f"repeats ({noise:.3g}; {moved} case(s) moved between repeats of one side)"
            )
        return "within noise", (
            f"p = {p_value:.3g}, but the {change} is within the noise floor the rules set "
            f"({noise:.3g})"
        )
    if abs(effect) <= minimum:
        return "below minimum effect", (
            f"p = {p_value:.3g}, but the {change} is no more than the minimum effect the rules "
            f"set ({minimum:.3g})"
        )
    bar = max(noise, minimum)
    call: Call = "better" if effect > 0 else "worse"
    return call, f"p = {p_value:.3g} < {significance:g} and |change| {abs(effect):.3g} > {bar:.3g}"


def _quantity(
    read: _Reader,
    test: Literal["sign", "wilcoxon"],
    side_a: Sequence[Run],
    side_b: Sequence[Run],
    cases: Sequence[str],
    rules: CompareRules,
) -> Quantity:
    pass_rate = read.name == "pass rate"
    pairs = _paired(_per_case(side_a, cases, read), _per_case(side_b, cases, read))
    differences = [y - x for _, x, y in pairs]
    up = sum(1 for d in differences if d > 0)
    down = sum(1 for d in differences if d < 0)
    measured, moved = _noise((side_a, side_b), read)
    floor = rules.noise if pass_rate else rules.score_noise
    noise = max(measured or 0.0, floor)
    source = (
        "repeats" if measured is not None and measured >= floor else "rules" if floor else "none"
    )
    minimum = rules.min_effect if pass_rate else rules.min_score_effect
    if test == "sign":
        name = "McNemar (exact)" if pass_rate and len(side_a) == len(side_b) == 1 else "sign test"
    else:
        name = "Wilcoxon signed-rank"
    common: dict[str, Any] = {
        "name": read.name,
        "test": name,
        "noise": noise,
        "noise_source": source,
    }
    if not pairs:
        return Quantity(
            **common,
            cases=0,
            a=None,
            b=None,
            effect=None,
            improved=0,
            worsened=0,
            p_value=None,
            moved_between_repeats=moved,
            call="not significant",
            why="untested: no case has a value on both sides",
        )
    p_value = _sign_test(up, down) if test == "sign" else _wilcoxon(differences)
    effect = sum(differences) / len(differences)
    call, why = _call(effect, p_value, noise, source, moved, minimum, rules.significance)
    sums = (sum(x for _, x, _ in pairs), sum(y for _, _, y in pairs))
    if pass_rate:
        # Each side's pass rate over the paired cases, a case's share of passing repeats
        # counted as its part of a pass (inconclusive verdicts are left out, as the test
        # leaves them out).
        common["interval_a"], common["interval_b"] = (
            proportion_interval(total, len(pairs), method=rules.interval, level=rules.level)
            for total in sums
        )
    return Quantity(
        **common,
        cases=len(pairs),
        a=sums[0] / len(pairs),
        b=sums[1] / len(pairs),
        effect=effect,
        improved=up,
        worsened=down,
        p_value=p_value,
        moved_between_repeats=moved,
        call=call,
        why=why,
    )


def _unstable(runs: Sequence[Run], cases: Sequence[str]) -> tuple[str, ...]:
    return tuple(
        case for case in cases if len({run[case].verdict for run in runs if case in run}) > 1
    )


def _ids(changes: Sequence[CaseChange], shown: int = 10) -> str:
    names = ", ".join(c.case_id for c in changes[:shown])
    return names + (f" and {len(changes) - shown} more" if len(changes) > shown else "")


def _decide(result: Comparison) -> tuple[Outcome, list[str]]:
    """The gate under the rules: stable regressions first, then the aggregate tests, then
    (with ``cheaper``) the cost."""
    rules = result.rules
    if result.common == 0:
        return "undecided", ["the sides have no case in common"]
    failed: list[str] = []
    regressions = result.regressions
    if len(regressions) > rules.max_regressions:
        allowed = f" (the rules allow {rules.max_regressions})" if rules.max_regressions else ""
        failed.append(
            f"{len(regressions)} stable regression(s){allowed}: {_ids(regressions)} passed in "
            f"every repeat of A and failed in every repeat of B"
        )
    failed += [f"{q.name} is worse: {q.why}" for q in result.worse]
    if failed:
        return "failed", failed
    context = []
    flaky = result.of_kind("flaky")
    if flaky:
        context.append(
            f"{len(flaky)} changed case(s) are flaky (PASS and FAIL among one side's repeats) "
            f"and not called: {_ids(flaky)}"
        )
    undecided = result.of_kind("inconclusive")
    if undecided:
        context.append(
            f"{len(undecided)} changed case(s) have an inconclusive or missing verdict in some "
            f"repeat and are not called: {_ids(undecided)}"
        )
    if regressions:
        context.append(f"{len(regressions)} stable regression(s) within the rules' allowance")
    if result.cost is None:
        return "passed", ["no stable regression and nothing worse beyond the noise", *context]
    if result.better:
        names = ", ".join(q.name for q in result.better)
        return "passed", [f"B beats A beyond the noise ({names})", *context]
    if result.cost.cheap_enough is None:
        return "undecided", [f"B matches A, but the cost rule cannot be checked: {result.cost.why}"]
    if result.cost.cheap_enough:
        return "passed", [f"B matches A and is cheaper: {result.cost.why}", *context]
    return "failed", [f"B matches A but is not cheaper: {result.cost.why}"]


def compare_runs(
    side_a: Sequence[Run],
    side_b: Sequence[Run],
    rules: CompareRules | None = None,
    *,
    levels: Mapping[str, Level] | None = None,
    cases: SideCases | None = None,
) -> Comparison:
    """Compare side B with side A (each a list of runs: case ID -> verdict).

    `levels` gives each metric's level of measurement (from the rubric); a metric not named
    there is treated as ordinal when every value is an integer, else as interval. `cases`
    (each run's cases, by ID, per side) is read by the ``cost = "agent"`` rule.
    """
    if not side_a or not side_b:
        raise ValueError("each side needs at least one run")
    rules = rules or CompareRules()
    for side, runs in (("A", side_a), ("B", side_b)):
        if len(runs) < rules.min_repeats:
            raise ConfigError(
                f"the rules ask for {rules.min_repeats} runs a side (compare.min_repeats); "
                f"{side} has {len(runs)}"
            )
    in_a = set().union(*(set(run) for run in side_a))
    in_b = set().union(*(set(run) for run in side_b))
    common = sorted(in_a & in_b)
    quantities = [_quantity(_Reader("pass rate"), "sign", side_a, side_b, common, rules)]
    metric_names: dict[str, None] = {}
    for run in (*side_a, *side_b):
        for verdict in run.values():
            metric_names.update(dict.fromkeys(verdict.metrics))
    levels = levels or {}
    for name in metric_names:
        values = [
            value
            for run in (*side_a, *side_b)
            for verdict in run.values()
            if name in verdict.metrics
            and (value := number(verdict.metrics[name].value)) is not None
        ]
        if not values:
            continue
        level = levels.get(name) or (
            "ordinal" if all(v.is_integer() for v in values) else "interval"
        )
        test: Literal["sign", "wilcoxon"] = (
            "sign" if level in ("ordinal", "nominal") else "wilcoxon"
        )
        quantities.append(_quantity(_Reader(name, name), test, side_a, side_b, common, rules))
    if any(v.score is not None for run in (*side_a, *side_b) for v in run.values()):
        quantities.append(_quantity(_Reader("score"), "wilcoxon", side_a, side_b, common, rules))
    result = Comparison(
        runs_a=len(side_a),
        runs_b=len(side_b),
        common=len(common),
        only_a=tuple(sorted(in_a - in_b)),
        only_b=tuple(sorted(in_b - in_a)),
        changes=tuple(case_changes(side_a, side_b, common)),
        unstable_a=_unstable(side_a, common),
        unstable_b=_unstable(side_b, common),
        quantities=tuple(quantities),
        rules=rules,
        cost=compare_costs(rules, side_a, side_b, common, cases),
        warnings=tuple(weaknesses(side_a, side_b)),
    )
    outcome, reasons = _decide(result)
    return result.model_copy(update={"outcome": outcome, "reasons": tuple(reasons)})
