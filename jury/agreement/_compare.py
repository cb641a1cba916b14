"""Comparing two sides (each one or more runs of the same configuration) case by case.

The seed article's rules: compare question by question, not by two averages; measure how much
a score moves with nothing changed (repeats of the same side); call a change a win only beyond
that noise; write the bar down before looking (`CompareRules`).

Tests, each on the cases both sides judged:
- pass/fail: the exact McNemar test, i.e. a two-sided binomial test on the discordant cases
  (pass -> fail against fail -> pass). With repeats, each case's pass share per side is
  compared and the same sign test runs on the cases that moved.
- ordinal metrics: the sign test (differences of ordinal values have signs, not sizes);
- the score and interval metrics: the Wilcoxon signed-rank test (Pratt's handling of zero
  differences is not used: zero differences are dropped, as in Wilcoxon's original test).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Literal

from pydantic import BaseModel, ConfigDict

from .._panel import CompareRules
from .._rubric import Level
from .._verdict import CaseVerdict, Verdict

__all__ = ["CaseChange", "Comparison", "Quantity", "compare_runs"]

_MODEL = ConfigDict(frozen=True)

Call = Literal["better", "worse", "within noise"]
Run = Mapping[str, CaseVerdict]


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
    call: Call
    why: str


class CaseChange(BaseModel):
    """A case whose verdict differs between the sides."""

    model_config = _MODEL

    case_id: str
    category: str | None
    #: Its verdict in each run of each side.
    a: tuple[Verdict | None, ...]
    b: tuple[Verdict | None, ...]
    #: Every repeat of A agrees, every repeat of B agrees, and they differ.
    consistent: bool


class Comparison(BaseModel):
    model_config = _MODEL

    runs_a: int
    runs_b: int
    common: int
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    changes: tuple[CaseChange, ...]
    #: Cases whose verdict differs between repeats of the same side.
    unstable_a: tuple[str, ...]
    unstable_b: tuple[str, ...]
    quantities: tuple[Quantity, ...]
    rules: CompareRules

    @property
    def worse(self) -> tuple[Quantity, ...]:
        return tuple(q for q in self.quantities if q.call == "worse")


def _number(value: object) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


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
        return None if result is None else _number(result.value)


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


def _noise(sides: Sequence[Sequence[Run]], read: _Reader) -> float | None:
    """The largest mean movement between two repeats of the same side, on their shared cases."""
    largest: float | None = None
    for runs in sides:
        for first, second in combinations(runs, 2):
            cases = sorted(set(first) & set(second))
            pairs = _paired(_per_case([first], cases, read), _per_case([second], cases, read))
            if pairs:
                movement = abs(sum(y - x for _, x, y in pairs) / len(pairs))
                largest = movement if largest is None else max(largest, movement)
    return largest


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
    measured = _noise((side_a, side_b), read)
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
    if not pairs:
        return Quantity(
            name=read.name,
            test=name,
            cases=0,
            a=None,
            b=None,
            effect=None,
            improved=0,
            worsened=0,
            p_value=None,
            noise=noise,
            noise_source=source,
            call="within noise",
            why="no case has a value on both sides",
        )
    p_value = _sign_test(up, down) if test == "sign" else _wilcoxon(differences)
    effect = sum(differences) / len(differences)
    bar = max(noise, minimum)
    call: Call
    if p_value >= rules.significance:
        call, why = "within noise", f"p = {p_value:.3g} >= {rules.significance:g}"
    elif abs(effect) <= bar:
        reason = "noise" if noise >= minimum else "minimum effect"
        call, why = "within noise", f"|change| {abs(effect):.3g} <= {reason} {bar:.3g}"
    else:
        call = "better" if effect > 0 else "worse"
        why = (
            f"p = {p_value:.3g} < {rules.significance:g} and |change| {abs(effect):.3g} > {bar:.3g}"
        )
    return Quantity(
        name=read.name,
        test=name,
        cases=len(pairs),
        a=sum(x for _, x, _ in pairs) / len(pairs),
        b=sum(y for _, _, y in pairs) / len(pairs),
        effect=effect,
        improved=up,
        worsened=down,
        p_value=p_value,
        noise=noise,
        noise_source=source,
        call=call,
        why=why,
    )


def _unstable(runs: Sequence[Run], cases: Sequence[str]) -> tuple[str, ...]:
    return tuple(
        case for case in cases if len({run[case].verdict for run in runs if case in run}) > 1
    )


def compare_runs(
    side_a: Sequence[Run],
    side_b: Sequence[Run],
    rules: CompareRules | None = None,
    *,
    levels: Mapping[str, Level] | None = None,
) -> Comparison:
    """Compare side B with side A (each a list of runs: case ID -> verdict).

    `levels` gives each metric's level of measurement (from the rubric); a metric not named
    there is treated as ordinal when every value is an integer, else as interval.
    """
    if not side_a or not side_b:
        raise ValueError("each side needs at least one run")
    rules = rules or CompareRules()
    in_a = set().union(*(set(run) for run in side_a))
    in_b = set().union(*(set(run) for run in side_b))
    common = sorted(in_a & in_b)
    changes = []
    for case in common:
        a = tuple(run[case].verdict if case in run else None for run in side_a)
        b = tuple(run[case].verdict if case in run else None for run in side_b)
        seen_a, seen_b = {v for v in a if v}, {v for v in b if v}
        if seen_a != seen_b:
            first = next(run[case] for run in side_a if case in run)
            changes.append(
                CaseChange(
                    case_id=case,
                    category=first.category,
                    a=a,
                    b=b,
                    consistent=len(seen_a) == len(seen_b) == 1,
                )
            )
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
            and (value := _number(verdict.metrics[name].value)) is not None
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
    return Comparison(
        runs_a=len(side_a),
        runs_b=len(side_b),
        common=len(common),
        only_a=tuple(sorted(in_a - in_b)),
        only_b=tuple(sorted(in_b - in_a)),
        changes=tuple(changes),
        unstable_a=_unstable(side_a, common),
        unstable_b=_unstable(side_b, common),
        quantities=tuple(quantities),
        rules=rules,
    )
