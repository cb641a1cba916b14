"""`jury calibrate --select --budget USD_PER_1000` (issue 21, item 4): seat sets ranked by
held-out accuracy within a budget, a set over it excluded, a seat of unknown price said and
never counted as free, and the best set set against its best seat and the strongest single
model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from learned_helpers import scenario

from jury import ConfigError
from jury.agreement._evidence import Labelled
from jury.agreement._select import select, within_budget
from jury.cli import main

#: Seats (model+strategy) and each one's chance of being right; the "gpt" seats are dear.
RIGHT = {"gpt+plain": 0.9, "gpt+cot": 0.88, "small+plain": 0.7, "small+cot": 0.68, "mini": 0.66}
MODELS = {"gpt+plain": "gpt", "gpt+cot": "gpt", "small+plain": "small", "small+cot": "small"}
MODELS["mini"] = "mini"
#: USD a case.
COSTS: dict[str, float | None] = {
    "gpt+plain": 0.02,
    "gpt+cot": 0.03,
    "small+plain": 0.0005,
    "small+cot": 0.0008,
    "mini": 0.0002,
}


def table(cases: int = 300, seed: int = 1) -> Labelled:
    rng = np.random.default_rng(seed)
    labels = [int(x) for x in rng.integers(0, 2, cases)]
    keys = ("FAIL", "PASS")
    rows: list[dict[tuple[str, str | None], str]] = []
    for label in labels:
        row: dict[tuple[str, str | None], str] = {}
        for seat, right in RIGHT.items():
            said = label if rng.random() < right else 1 - label
            row[(seat, None)] = keys[said]
        rows.append(row)
    jurors = [{k[0]: v for k, v in row.items()} for row in rows]
    return Labelled("pass", keys, [f"c{i}" for i in range(cases)], rows, jurors, labels)


def test_a_set_over_the_budget_is_excluded_and_the_rest_ranked_by_accuracy() -> None:
    subsets = select(table(), sorted(RIGHT), COSTS, model="weights", penalty=None)
    found = within_budget(subsets, 2.0, MODELS)  # $2 per 1000 cases: no gpt seat fits
    assert found.ranked
    assert all(not any(s.startswith("gpt") for s in sub.jurors) for sub in found.ranked)
    assert all(1000 * (sub.cost or 0) <= 2.0 for sub in found.ranked)
    assert {sub.jurors for sub in found.over} >= {("gpt+plain",), ("gpt+cot",)}
    accuracies = [sub.accuracy for sub in found.ranked]
    assert accuracies == sorted(accuracies, reverse=True)
    assert len(found.ranked) + len(found.over) == len(subsets)


def test_a_larger_budget_lets_the_dear_seats_in() -> None:
    subsets = select(table(), sorted(RIGHT), COSTS, model="weights", penalty=None)
    found = within_budget(subsets, 100.0, MODELS)
    assert not found.over
    best = found.best
    assert best is not None
    assert any(s.startswith("gpt") for s in best.jurors)
    # The best set is set against its best seat alone and the strongest single model.
    assert found.best_seat is not None
    assert found.best_seat.jurors[0] in best.jurors
    assert found.strongest_model is not None
    assert found.strongest_model[0] == "gpt"


def test_a_seat_of_unknown_price_is_said_and_never_counted_as_free() -> None:
    costs = {**COSTS, "mini": None}
    subsets = select(table(), sorted(RIGHT), costs, model="weights", penalty=None)
    found = within_budget(subsets, 100.0, MODELS)
    assert found.unpriced == ("mini",)
    assert all("mini" not in sub.jurors for sub in found.ranked)
    assert all("mini" in sub.jurors for sub in found.unknown)
    assert len(found.unknown) == 2 ** (len(RIGHT) - 1)


def test_a_budget_at_or_below_zero_is_refused() -> None:
    with pytest.raises(ConfigError, match="--budget: 0 USD per 1000 cases; it must be above 0"):
        within_budget([], 0.0, MODELS)


def test_calibrate_select_budget_says_when_no_price_is_known(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Replayed jurors report no usage: their price is unknown, and calibrate says so.
    cases, jury, _ = scenario(tmp_path, cases=80)
    code = main(["calibrate", str(cases), "--jury", str(jury), "--select", "--budget", "5"])
    out = capsys.readouterr().out
    assert code == 0
    assert "Seat sets within $5 per 1000 cases" in out
    assert "price unknown for strong, weak-a, weak-b" in out
    assert "No seat set is known to cost at most the budget." in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--budget", "5"], "--budget: ranks seat sets, so it goes with --select"),
        (["--select", "--budget", "-1"], "--budget: -1 USD per 1000 cases; it must be above 0"),
    ],
)
def test_a_bad_budget_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    cases, jury, _ = scenario(tmp_path, cases=40)
    code = main(["calibrate", str(cases), "--jury", str(jury), *extra])
    assert code == 2
    assert message in capsys.readouterr().err


def test_the_report_says_whether_the_best_set_beats_its_best_seat_and_the_strongest_model() -> None:
    import io

    from jury.report._calibration import print_budget

    subsets = select(table(), sorted(RIGHT), COSTS, model="weights", penalty=None)
    out = io.StringIO()
    print_budget(within_budget(subsets, 2.0, MODELS), out)
    text = out.getvalue()
    assert "Seat sets within $2 per 1000 cases, by held-out accuracy" in text
    assert "over the budget" in text
    assert "its best seat (small+plain, " in text
    assert "the strongest single model (gpt) (gpt+plain" in text
    assert "does not beat the strongest single model" in text
