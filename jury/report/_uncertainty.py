"""The gate's decision and what the reports say of the pass rate's uncertainty.

The pass rate every report shows is passed / total, an INCONCLUSIVE case counted as not
passed, with its interval (`Gate.interval` at `Gate.level`); the gate counts an inconclusive
case both ways (`GateOutcome`). The statistics are `jury.decide._proportion`'s, with the
standard library only: a run's summary, terminal and JUnit report import neither NumPy nor
SciPy.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from ..panel._panel import Gate

if TYPE_CHECKING:
    from ..decide._proportion import Interval

__all__ = [
    "INCONCLUSIVE_AS",
    "GateOutcome",
    "bounds_text",
    "decision_json",
    "gate_outcome",
    "interval_heading",
    "interval_json",
    "pass_rate_interval",
]

#: How the pass rate and its interval count an INCONCLUSIVE case (said in every report).
INCONCLUSIVE_AS = "not passed"


def pass_rate_interval(passed: float, total: int, gate: Gate | None = None) -> Interval:
    """passed / total with the gate's interval."""
    from ..decide._proportion import proportion_interval

    gate = gate or Gate()
    return proportion_interval(passed, total, method=gate.interval, level=gate.level)


def _share(value: float) -> str:
    """``"90%"``, ``"92.5%"``."""
    return f"{value:.1%}".replace(".0%", "%")


def interval_heading(gate: Gate | None = None) -> str:
    """The heading of a column of intervals: ``"95% Wilson"``."""
    from ..decide._proportion import METHOD_NAMES, level_text

    gate = gate or Gate()
    return f"{level_text(gate.level)} {METHOD_NAMES[gate.interval]}"


def bounds_text(interval: Interval) -> str:
    """An interval's bounds alone: ``"73.9–94.5%"`` (``"-"`` for no case)."""
    if interval.low is None or interval.high is None:
        return "-"
    return f"{100 * interval.low:.1f}–{100 * interval.high:.1f}%"


@dataclass(frozen=True)
class GateOutcome:
    """The gate's decision over `total` cases and why.

    `interval` is the pass rate's, inconclusive cases counted as not passed; `best` the same
    counting them as passed (None without any). `further` is, for a gate on the lower bound
    left undecided, how many more cases passing at the rate seen would likely decide it
    (None: no number would, or not asked).
    """

    code: int
    gate: Gate
    passed: int
    #: Inconclusive cases, and those of a run that did not finish (`not_judged` of them).
    inconclusive: int
    total: int
    further: int | None = None
    not_judged: int = 0

    @cached_property
    def interval(self) -> Interval:
        return pass_rate_interval(self.passed, self.total, self.gate)

    @cached_property
    def best(self) -> Interval | None:
        if not self.inconclusive:
            return None
        return pass_rate_interval(self.passed + self.inconclusive, self.total, self.gate)

    @property
    def inconclusive_matter(self) -> bool:
        """The inconclusive cases decide on which side of the bar the pass rate lies: it lies
        between the rate counting them as failures and the rate counting them as passes."""
        if not self.inconclusive or self.total == 0 or self.code != 3:
            return False
        worst = self.passed / self.total
        best = (self.passed + self.inconclusive) / self.total
        return worst <= self.gate.min_pass_rate <= best

    @property
    def inconclusive_decide(self) -> bool:
        """The inconclusive cases, not the number of cases, hold the gate undecided: with them
        passing it would pass (on the lower bound: that interval's lower bound clears the bar),
        and without them it does not."""
        if not self.inconclusive_matter:
            return False
        if self.gate.on == "estimate":
            return True
        assert self.best is not None
        return self.best.low is not None and self.best.low >= self.gate.min_pass_rate

    def rate_text(self) -> str:
        """``"87.5% (95% Wilson 73.9-94.5%)"``, saying how inconclusive cases count."""
        estimate = self.interval.estimate
        rate = "-" if estimate is None else f"{estimate:.1%}"
        what = (
            "inconclusive"
            if not self.not_judged
            else "not judged"
            if self.not_judged == self.inconclusive
            else "inconclusive or not judged"
        )
        counted = (
            f"; {self.inconclusive} {what} counted as {INCONCLUSIVE_AS}"
            if self.inconclusive
            else ""
        )
        return f"{rate} ({self.interval.text()}{counted})"

    def bar_text(self) -> str:
        """``"required 90%"`` or ``"lower bound required 90%"``."""
        bar = _share(self.gate.min_pass_rate)
        return f"lower bound required {bar}" if self.gate.on == "lower_bound" else f"required {bar}"

    def why(self) -> str | None:
        """What explains the decision: a run that did not finish, and the sentence of a gate
        on the lower bound (None when there is nothing to say)."""
        said = [text for text in (self._unfinished(), self._bound()) if text]
        return " ".join(said) or None

    def _unfinished(self) -> str | None:
        if not self.not_judged:
            return None
        then = {
            0: "the gate passes even if every one of them fails",
            1: "the gate fails whatever their verdicts",
        }.get(self.code, "they leave the gate undecided")
        return (
            f"The run did not finish: {self.not_judged:,} of its {self.total:,} cases have no "
            f"verdict, and {then} (`jury run --resume` on the run that was judging them "
            "judges them)."
        )

    def _bound(self) -> str | None:
        if self.gate.on != "lower_bound" or self.total == 0:
            return None
        low, high = self.interval.low, self.interval.high
        assert low is not None
        assert high is not None
        bar = _share(self.gate.min_pass_rate)
        band = f"{self.interval.text()}"
        if self.code == 0:
            return f"The lower bound {low:.1%} of the pass rate's {band} clears the bar {bar}."
        if self.code == 1:
            return f"The pass rate's {band} lies wholly below the bar {bar}."
        if self.inconclusive_decide:
            return (
                f"The bar {bar} is cleared with the {self.inconclusive} inconclusive case(s) "
                "passing and not without: decide them (rerun, or --resume once the judges "
                "are back)."
            )
        if self.inconclusive_matter:
            # Neither way do the inconclusive cases decide it alone: they come first.
            then = (
                f"; were they to pass, about {self.further:,} more case(s) passing at that rate "
                "would likely decide it"
                if self.further
                else ""
            )
            return (
                f"The pass rate's {band} straddles the bar {bar}, and its {self.inconclusive} "
                "inconclusive case(s) decide on which side the rate lies: decide them first "
                f"(rerun, or --resume once the judges are back){then}."
            )
        further = (
            f"about {self.further:,} more case(s) passing at the rate seen would likely decide it"
            if self.further
            else "no number of further cases at the rate seen would decide it"
        )
        return f"The pass rate's {band} straddles the bar {bar}: {further}."


def gate_outcome(
    passed: int, failed: int, inconclusive: int, gate: Gate | None = None, not_judged: int = 0
) -> GateOutcome:
    """0 the gate passed, 1 it failed, 3 undecided.

    On the estimate (the default): the gate fails when even counting every inconclusive case
    as a pass the rate is below the bar (a definite failure outranks inconclusive); it is
    undecided when counting them as failures would put the rate below it. On the lower bound:
    it passes when the interval's lower bound, inconclusive cases counted as failures, reaches
    the bar; fails when the interval counting them as passes lies wholly below it; else it is
    undecided, and `GateOutcome.further` says how many more cases would likely decide it.
    """
    gate = gate or Gate()
    inconclusive += not_judged  # a case without its verdict yet could go either way
    total = passed + failed + inconclusive
    bar = gate.min_pass_rate
    if total == 0:
        return GateOutcome(0, gate, passed, inconclusive, total)
    if gate.on == "estimate":
        if (passed + inconclusive) / total < bar:
            code = 1
        elif passed / total < bar:
            code = 3
        else:
            code = 0
        return GateOutcome(code, gate, passed, inconclusive, total, not_judged=not_judged)
    worst = pass_rate_interval(passed, total, gate)
    top = pass_rate_interval(passed + inconclusive, total, gate)
    assert worst.low is not None
    assert top.high is not None
    if worst.low >= bar:
        code = 0
    elif top.high < bar:
        code = 1
    else:
        code = 3
    further = None
    if code == 3:
        from ..decide._proportion import cases_to_decide

        # More cases at the rate seen move the interval away from the bar on the side that
        # rate is on: the rate without the inconclusive cases when above the bar, else the
        # rate with them (when that is above, the figure holds once they pass).
        seen = passed if passed / total > bar else passed + inconclusive
        if seen / total != bar:
            # 0 (the rate with them passing is decided already) is said by `why`, not here.
            found = cases_to_decide(seen, total, bar, method=gate.interval, level=gate.level)
            further = found or None
    return GateOutcome(code, gate, passed, inconclusive, total, further, not_judged)


def interval_json(interval: Interval, counted_as: str = INCONCLUSIVE_AS) -> dict[str, object]:
    """An interval as ``summary.json`` keeps it, saying how inconclusive cases count."""
    return {
        "estimate": interval.estimate,
        "low": interval.low,
        "high": interval.high,
        "method": interval.method,
        "level": interval.level,
        "passed": interval.successes,
        "cases": interval.n,
        "inconclusive_counted_as": counted_as,
    }


def decision_json(outcome: GateOutcome) -> dict[str, object]:
    """The gate's decision as ``summary.json`` keeps it."""
    return {
        "exit_code": outcome.code,
        "on": outcome.gate.on,
        "min_pass_rate": outcome.gate.min_pass_rate,
        "inconclusive_counted_as_passed": (
            None if outcome.best is None else interval_json(outcome.best, "passed")
        ),
        "further_cases": outcome.further,
        "why": outcome.why(),
    }
