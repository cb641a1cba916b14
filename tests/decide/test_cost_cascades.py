"""Cheapest first, by cost (issue 21, item 4): tiers ordered by what their jurors cost a case,
a cascade's calls and cost against the full panel's, the recommended cascade the cheapest
within a tolerance, and a juror of unknown price never taken as free."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import case
from jury import Juror, Jury, Panel, Verdict
from jury.adapters import JudgeRequest
from jury.agreement._fitting import cheapest_within
from jury.decide._cascade import cheapest_first, spend
from jury.testing import ScriptedModel

#: USD a case: two cheap jurors and one forty times dearer.
COSTS = {"s/cheap-a": 0.001, "s/cheap-b": 0.001, "s/dear": 0.04}


def criterion(passes: dict[str, bool]) -> Any:
    def reply(request: JudgeRequest) -> dict[str, Any]:
        assert request.case is not None
        return {"reason": "as scripted", "pass": passes[request.case.id]}

    return reply


def panel(tiers: dict[str, int]) -> Panel:
    # Every case should pass. The cheap two agree on c1 and c2 and split on c3; the dear
    # juror is right everywhere.
    said = {
        "s/cheap-a": {"c1": True, "c2": True, "c3": True},
        "s/cheap-b": {"c1": True, "c2": True, "c3": False},
        "s/dear": {"c1": True, "c2": True, "c3": True},
    }
    jurors = tuple(
        Juror(model=ScriptedModel(criterion(said[name]), name=name), tier=tiers[name])
        for name in sorted(said)
    )
    return Panel(jurors=jurors, rubric="grounded-answer", quorum=1)


async def verdicts_of(tiers: dict[str, int]) -> list[Any]:
    async with Jury(panel(tiers), checks=None) as jury:
        return [await jury.judge(case(cid)) for cid in ("c1", "c2", "c3")]


def test_cheapest_first_orders_tiers_by_cost_per_case_not_by_juror_count() -> None:
    costs = {"m-dear": 0.05, "m-cheap-1": 0.002, "m-cheap-2": 0.003, "m-mid": 0.01}
    assert cheapest_first(costs) == {"m-cheap-1": 1, "m-cheap-2": 2, "m-mid": 3, "m-dear": 4}


def test_seats_of_one_model_share_a_tier_priced_at_their_sum() -> None:
    # Two seats of "small" cost 0.006 together: dearer than "solo" alone (0.005).
    costs = {"small+plain": 0.003, "small+cot": 0.003, "solo": 0.005}
    groups = {"small+plain": "small", "small+cot": "small", "solo": "solo"}
    assert cheapest_first(costs, groups=groups) == {"solo": 1, "small+plain": 2, "small+cot": 2}


def test_a_cost_band_asks_the_cheap_models_together_before_the_expensive_one() -> None:
    costs = {"llama": 0.001, "chatgpt": 0.002, "palm": 0.004, "gpt-4": 0.06}
    banded = cheapest_first(costs, band=10.0)
    assert banded == {"llama": 1, "chatgpt": 1, "palm": 1, "gpt-4": 2}


def test_a_juror_of_unknown_price_goes_last_and_is_never_taken_as_free() -> None:
    costs: dict[str, float | None] = {"unknown": None, "cheap": 0.001, "dear": 0.09}
    assert cheapest_first(costs, band=1000.0) == {"cheap": 1, "dear": 1, "unknown": 2}


def test_equal_costs_put_the_stronger_juror_first() -> None:
    costs = {"a": 0.01, "b": 0.01}
    assert cheapest_first(costs, {"a": 0.6, "b": 0.8}) == {"b": 1, "a": 2}


async def test_cheap_first_beats_strongest_first_on_cost_at_equal_accuracy() -> None:
    cheap_first = {"s/cheap-a": 1, "s/cheap-b": 1, "s/dear": 2}
    assert cheapest_first(COSTS, band=2.0) == cheap_first
    dear_first = {"s/cheap-a": 2, "s/cheap-b": 2, "s/dear": 1}
    jurors = sorted(COSTS)
    options = []
    for label, tiers in (("strongest first", dear_first), ("cheapest first", cheap_first)):
        verdicts = await verdicts_of(tiers)
        accuracy = sum(v.verdict is Verdict.PASS for v in verdicts) / len(verdicts)
        spent = spend(verdicts, jurors, lambda juror: 1, COSTS)
        options.append((label, accuracy, spent.cost_ratio))
        if label == "strongest first":
            # The dear juror decides alone everywhere: fewest calls, most of the cost.
            assert spent.calls_ratio == pytest.approx(3 / 9)
            assert spent.cost_ratio == pytest.approx(3 * 0.04 / (3 * 0.042))
        else:
            # c3 splits the cheap tier and escalates: more calls, far less cost.
            assert spent.calls_ratio == pytest.approx(7 / 9)
            assert spent.cost_ratio == pytest.approx((3 * 0.002 + 0.04) / (3 * 0.042))
    assert options[0][1] == options[1][1] == 1.0
    assert cheapest_within(options, 0.01) == "cheapest first"


async def test_a_ratio_over_an_unknown_price_is_unknown() -> None:
    verdicts = await verdicts_of({"s/cheap-a": 1, "s/cheap-b": 1, "s/dear": 2})
    spent = spend(verdicts, sorted(COSTS), lambda juror: 2, {**COSTS, "s/dear": None})
    assert spent.cost_ratio is None
    assert spent.calls_ratio == pytest.approx(14 / 18)


def test_the_recommended_cascade_is_the_cheapest_within_the_tolerance() -> None:
    options: list[tuple[str, float, float | None]] = [
        ("full panel", 0.90, 1.0),
        ("strongest first", 0.905, 0.92),
        ("cheapest first", 0.897, 0.55),
        ("cheapest first, by cost band", 0.88, 0.40),  # 2.5 points short: too far
    ]
    assert cheapest_within(options, 0.01) == "cheapest first"
    assert cheapest_within(options, 0.03) == "cheapest first, by cost band"


def test_an_option_of_unknown_cost_is_not_recommended_as_free() -> None:
    options: list[tuple[str, float, float | None]] = [("unpriced", 0.9, None), ("priced", 0.9, 0.8)]
    assert cheapest_within(options) == "priced"
    assert cheapest_within([("unpriced", 0.9, None)]) == "unpriced"
