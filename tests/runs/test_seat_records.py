"""A run's manifest records each seat's strategy, and a plain seat as jurors were recorded
before strategies: a run recorded then still resumes and merges with one recorded now."""

from __future__ import annotations

from jury import Juror, Panel
from jury.runs._records import jury_identity, panel_record

MODEL = "openai/gpt-4.1-mini-2025-04-14"


def test_a_plain_seat_is_recorded_without_a_strategy_and_another_with_its_own() -> None:
    record = panel_record(Panel(jurors=(Juror(model=MODEL), Juror(model=MODEL, strategy="cot"))))
    plain, cot = record["jurors"]
    assert "strategy" not in plain
    assert cot["strategy"] == "cot"


def test_seats_that_differ_only_in_strategy_are_different_juries() -> None:
    one = panel_record(Panel(jurors=(Juror(model=MODEL, strategy="metrics"),)))
    other = panel_record(Panel(jurors=(Juror(model=MODEL, strategy="reference"),)))
    assert jury_identity(one) != jury_identity(other)
