"""`jury.plan`: how many cases a decision needs, from a past run or a stated pass rate.

It answers three questions (the statistics are `jury.agreement._power`'s):

- how many cases give the pass rate an interval no wider than ±w;
- how many cases detect a drop of d points between two versions with the given power, paired
  (the same cases put to both, as `jury compare` tests them; from the discordance seen
  between two runs when both are given) and with two separate sets;
- what a set of the current size (the run's, or `cases`) can and cannot detect.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from .._errors import ConfigError
from .._verdict import Verdict

__all__ = ["Plan", "PlanRow", "plan"]

#: The pass rate assumed when none is known: the one that needs the most cases.
NO_RATE = 0.5
_MODEL = ConfigDict(frozen=True)


class PlanRow(BaseModel):
    """One answer of a plan: the question, the cases it needs (None: no number does), how."""

    model_config = _MODEL

    question: str
    cases: int | None
    how: str


class Plan(BaseModel):
    """What `jury.plan` found: the assumptions it worked from, and a row per question."""

    model_config = _MODEL

    pass_rate: float
    #: Where the pass rate came from: "stated", the run's directory, or "none given".
    source: str
    #: The set's current size (the run's, or stated), when known.
    size: int | None
    level: float
    power: float
    interval: Literal["wilson", "exact"]
    #: The share of cases whose verdicts differed between the two runs (None: one run or
    #: none; the paired figures then assume independent verdicts).
    discordance: float | None = None
    rows: tuple[PlanRow, ...]


def plan(
    run: str | Path | None = None,
    *,
    against: str | Path | None = None,
    pass_rate: float | None = None,
    cases: int | None = None,
    width: Sequence[float] = (),
    drop: Sequence[float] = (),
    level: float | None = None,
    power: float = 0.8,
    interval: Literal["wilson", "exact"] | None = None,
) -> Plan:
    """How many cases a decision needs (what `jury plan` prints).

    `run` gives the pass rate and the current size (and, unless given, the gate's interval
    and level); `against`, a second run of the same cases, the discordance the paired figures
    use. Without a run, `pass_rate` (default 0.5, the rate that needs the most cases) and
    `cases` (the size to assess) are stated. `width` (half-widths, 0.05 = ±5 points) and
    `drop` (0.05 = five points) default to 0.05 each when neither is given. Raises
    `jury.ConfigError` for a value out of range or a run that cannot be read.
    """
    from ..agreement import _power as power_of
    from ..decide._proportion import METHOD_NAMES, level_text, proportion_interval

    source, rate, size, gate = _assumed(run, pass_rate, cases)
    level = level if level is not None else gate[1]
    method = interval if interval is not None else gate[0]
    if not 0 < level < 1 or not 0 < power < 1:
        raise ConfigError(f"level {level:g} and power {power:g}: each between 0 and 1")
    discordance = None if against is None else _discordance(run, against)
    if not width and not drop:
        width, drop = (0.05,), (0.05,)
    rows: list[PlanRow] = []
    try:
        for w in width:
            n = power_of.cases_for_width(rate, w, level=level)
            planned = proportion_interval(round(rate * n), n, method=method, level=level)
            shown = power_of.cases_for_interval(rate, w, method=method, level=level)
            rows += [
                PlanRow(
                    question=f"pass rate known to ±{_points(w)}",
                    cases=n,
                    how=f"normal approximation; at {n} cases: {planned.text()}",
                ),
                PlanRow(
                    question=f"the reports' interval within ±{_points(w)}",
                    cases=shown,
                    how=f"{level_text(level)} {METHOD_NAMES[method]} computed at each size, "
                    f"at {rate:.1%}",
                ),
            ]
        for d in drop:
            rows += _drop_rows(rate, d, level, power, discordance)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if size:
        rows += _size_rows(rate, size, level, power, method, discordance)
    return Plan(
        pass_rate=rate,
        source=source,
        size=size,
        level=level,
        power=power,
        interval=method,
        discordance=discordance,
        rows=tuple(rows),
    )


def _points(share: float) -> str:
    figure = f"{100 * share:.1f}".rstrip("0").rstrip(".")
    return f"{figure} point{'' if figure == '1' else 's'}"


def _assumed(
    run: str | Path | None, pass_rate: float | None, cases: int | None
) -> tuple[str, float, int | None, tuple[Literal["wilson", "exact"], float]]:
    """The source, pass rate, size and the gate's (interval, level) a plan starts from."""
    if pass_rate is not None and not 0 <= pass_rate <= 1:
        raise ConfigError(f"pass rate {pass_rate:g}: a share between 0 and 1 (0.9)")
    if cases is not None and cases < 1:
        raise ConfigError(f"cases {cases}: at least 1")
    if run is None:
        rate = NO_RATE if pass_rate is None else pass_rate
        return ("stated" if pass_rate is not None else "none given", rate, cases, ("wilson", 0.95))
    from ._repeat import STABILITY
    from ._result import Run

    if (Path(run) / STABILITY).exists() and not (Path(run) / "manifest.json").exists():
        raise ConfigError(
            f"{run} is a run of repeats: plan from one of them ({Path(run) / 'repeat-1'}), "
            "or state the pass rate (--pass-rate) and the size (--cases)"
        )
    found = Run.open(run)
    summary, gate = found.summary, found.panel.gate
    if not summary.total:
        raise ConfigError(f"{run}: the run has no verdict to plan from")
    rate = pass_rate if pass_rate is not None else summary.passed / summary.total
    return str(run), rate, cases or summary.total, (gate.interval, gate.level)


def _discordance(run: str | Path | None, against: str | Path) -> float:
    """The share of the cases both runs decided whose verdicts differ."""
    from ._result import Run

    if run is None:
        raise ConfigError("--against: give the first run too (jury plan RUN --against RUN)")
    first = {v.case_id: v.verdict for v in Run.open(run).verdicts}
    second = {v.case_id: v.verdict for v in Run.open(against).verdicts}
    decided = (Verdict.PASS, Verdict.FAIL)
    common = [c for c in first if c in second and {first[c], second[c]} <= set(decided)]
    if not common:
        raise ConfigError(f"{run} and {against}: no case decided in both")
    return sum(first[c] is not second[c] for c in common) / len(common)


def _drop_rows(
    rate: float, drop: float, level: float, power: float, discordance: float | None
) -> list[PlanRow]:
    from ..agreement import _power as power_of

    psi = power_of.paired_discordance(rate, drop, discordance)
    seen = (
        f"discordance {psi:.1%} seen between the runs"
        if discordance is not None and psi == discordance
        else f"discordance {psi:.1%}, "
        + ("at least the drop" if discordance is not None else "assumed: independent verdicts")
    )
    paired = power_of.cases_for_paired_drop(
        rate, drop, level=level, power=power, discordance=discordance
    )
    separate = power_of.cases_for_drop(rate, drop, level=level, power=power)
    h = power_of.cohen_h(rate, rate - drop)
    return [
        PlanRow(
            question=f"a drop of {_points(drop)}, the same cases (paired)",
            cases=paired,
            how=f"exact McNemar test (jury compare's); {seen}",
        ),
        PlanRow(
            question=f"a drop of {_points(drop)}, two separate sets",
            cases=_ceil(separate),
            how=f"per version; normal test on Cohen's h = {h:.3f}",
        ),
    ]


def _ceil(value: float) -> int:
    import math

    return math.ceil(value - 1e-9)


def _size_rows(
    rate: float,
    size: int,
    level: float,
    power: float,
    method: Literal["wilson", "exact"],
    discordance: float | None,
) -> list[PlanRow]:
    from ..agreement import _power as power_of
    from ..decide._proportion import proportion_interval

    now = proportion_interval(round(rate * size), size, method=method, level=level)
    half = now.half_width or 0.0
    rows = [
        PlanRow(
            question=f"what {size:,} cases know: the pass rate to ±{_points(half)}",
            cases=size,
            how=now.text(),
        )
    ]
    for paired, name in ((True, "paired"), (False, "two separate sets")):
        found = power_of.detectable_drop(
            size, rate, level=level, power=power, discordance=discordance, paired=paired
        )
        rows.append(
            PlanRow(
                question=f"what {size:,} cases detect, {name}",
                cases=size,
                how=f"no drop, with power {power:g}"
                if found is None
                else f"a drop of {_points(found)} or more, with power {power:g}; a smaller "
                "one is likely missed",
            )
        )
    return rows
