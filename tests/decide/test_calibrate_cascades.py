"""`jury calibrate --cascades` (issue 21): the recommended cascade order, each order fitted on
inner folds of the labelled cases and measured on the fold it did not see."""

from __future__ import annotations

from pathlib import Path

import pytest
from learned_helpers import scenario

from jury.cli import main


def test_calibrate_recommends_a_cascade_order_measured_out_of_sample(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases, jury, _ = scenario(tmp_path, cases=80)
    code = main(["calibrate", str(cases), "--jury", str(jury), "--cascades"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "Cascade orders (2 inner folds of the labelled cases" in out
    for order in (
        "as the panel has it",
        "strongest first",
        "cheapest first",
        "cheapest first, by cost band",
    ):
        assert f"  {order}: accuracy " in out
    # Replayed jurors report no usage: no cost is known, and none is taken as free.
    assert "cost unknown" in out
    (line,) = [x for x in out.splitlines() if x.startswith("Recommended cascade: ")]
    # Unknown costs: the most accurate order is recommended, with its tiers.
    assert "tiers: strong " in line
    assert "weak-a " in line
    assert "weak-b " in line
