"""The gate of a run, and the rules of `jury compare`: the ``[gate]`` and ``[compare]`` tables
of a jury file."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, model_validator

__all__ = ["CompareRules", "Gate"]

_STRICT = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)


class Gate(BaseModel):
    """When a run passes as a release gate.

    The pass rate is reported with its confidence interval (`interval` at `level`). The gate
    holds `min_pass_rate` by the pass rate itself (``on = "estimate"``), or by the interval's
    lower bound (``on = "lower_bound"``: it passes only when the data show the rate is at
    least the bar; an interval that straddles the bar leaves it INCONCLUSIVE). With
    ``repeats = N`` the agent answers each case N times, and with ``require = K`` a case
    passes only when at least K of its N answers pass.
    """

    model_config = _STRICT

    #: The share of cases that must pass. An inconclusive case is counted both ways: the gate
    #: fails when it fails even with them passing, and is inconclusive when it fails with them
    #: failing (the pass rate shown counts them as not passed).
    min_pass_rate: float = Field(default=1.0, ge=0, le=1)
    #: A case on which a configured juror has no valid vote (unavailable or invalid; an
    #: abstention is a juror that cannot measure, and does not count) is INCONCLUSIVE, even
    #: when the others meet the quorum: for gates that must not decide without a family.
    require_every_juror: StrictBool = False
    #: What `min_pass_rate` is held by: the pass rate, or its interval's lower bound.
    on: Literal["estimate", "lower_bound"] = "estimate"
    #: The pass rate's interval: Wilson's score interval, or Clopper-Pearson's ("exact").
    interval: Literal["wilson", "exact"] = "wilson"
    #: The interval's confidence level.
    level: float = Field(default=0.95, gt=0, lt=1)
    #: Answers asked of the agent per case (``jury run --repeat N``).
    repeats: int | None = Field(default=None, ge=1)
    #: Of a case's `repeats` answers, how many must pass for the case to pass (``--require``).
    require: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _a_bar_the_bound_can_reach(self) -> Gate:
        if self.on == "lower_bound" and self.min_pass_rate >= 1:
            raise ValueError(
                'on = "lower_bound" with min_pass_rate = 1: an interval\'s lower bound never '
                "reaches 1, so the gate could never pass; set min_pass_rate below 1 (0.9)"
            )
        if self.require is not None and self.repeats is not None and self.require > self.repeats:
            raise ValueError(f"require = {self.require} of repeats = {self.repeats}: at most N")
        return self


class CompareRules(BaseModel):
    """How `jury compare` decides whether a change is real, written down before any result.

    The gate fails on a stable regression (a case that passes in every repeat of A and
    fails in every repeat of B), whatever the aggregate tests say; cases whose repeats
    disagree are flaky and never called. An aggregate (the pass rate, a metric, the score) is
    called better or worse only when its paired test is significant at `significance` and it
    moves by more than both the noise (the largest movement between repeated runs of the same
    side, or the floor given here) and the minimum effect; a worse one fails the gate too.
    """

    model_config = _STRICT

    significance: float = Field(default=0.05, gt=0, lt=1)
    #: Smallest change in pass rate that counts (0.05 = five points).
    min_effect: float = Field(default=0.0, ge=0, le=1)
    #: Smallest change in a metric's or the score's mean that counts, in its own units.
    min_score_effect: float = Field(default=0.0, ge=0)
    #: A pass-rate noise floor measured before (used as the noise when no side has repeats).
    noise: float = Field(default=0.0, ge=0, le=1)
    #: The same for metric and score means.
    score_noise: float = Field(default=0.0, ge=0)
    #: Stable regressions (PASS in every repeat of A, FAIL in every repeat of B) the gate
    #: tolerates; by default none.
    max_regressions: int = Field(default=0, ge=0)
    #: Runs each side needs (the seed article asks every question three times); fewer is a
    #: usage error.
    min_repeats: int = Field(default=1, ge=1)
    #: The cost rule: B passes when it beats A beyond the noise, or matches it (no stable
    #: regression, nothing worse) at a cost of at most ``1 - cheaper`` of A's (0.4: 60 %).
    cheaper: float | None = Field(default=None, gt=0, lt=1)
    #: Whose cost the rule compares: the judge calls' (from the records) or the agent's (each
    #: case's ``metadata.cost_usd``).
    cost: Literal["judges", "agent"] = "judges"
    #: The interval shown around each side's pass rate, and its level (as `Gate`'s; `jury
    #: compare --jury FILE` takes them from the file's ``[gate]`` unless ``[compare]`` says).
    interval: Literal["wilson", "exact"] = "wilson"
    level: float = Field(default=0.95, gt=0, lt=1)
