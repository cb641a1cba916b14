"""`jury estimate` prices soft confidence: a juror whose probability is the share of its
samples is told what the samples past the first cost, and a juror whose model gives no
log-probabilities what sampling for a probability would cost; log-probabilities cost no call."""

from __future__ import annotations

import pytest

from conftest import case
from jury import Juror, Panel
from jury.runs._estimate import estimate

CASES = [case(f"c{i}") for i in range(4)]


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def test_the_samples_past_the_first_are_priced() -> None:
    panel = Panel(jurors=(Juror(model="openai/gpt-6-luna", samples=3),), reasks=0)
    result = estimate(panel, CASES)
    (row,) = result.jurors
    assert (row.probability, row.samples, row.calls) == ("samples", 3, 12)
    assert row.cost is not None
    extra = row.cost * 2 / 3
    assert (
        f"openai/gpt-6-luna: its probability is the share of its 3 samples (3 calls a case): "
        f"${extra:,.4f} of its ${row.cost:,.4f} is the 2 sample(s) past the first"
    ) in result.notes


def test_a_model_without_log_probabilities_is_told_what_sampling_would_cost() -> None:
    panel = Panel(jurors=("anthropic/claude-haiku-5-5",), reasks=0)
    result = estimate(panel, CASES)
    (row,) = result.jurors
    assert row.probability == "none"
    assert row.cost is not None
    assert (
        "anthropic/claude-haiku-5-5: its votes carry no probability (its model gives no "
        f"log-probabilities); samples = 5 gives one for about ${row.cost * 5:,.4f} instead of "
        f"${row.cost:,.4f}"
    ) in result.notes


def test_log_probabilities_cost_no_call_and_no_note() -> None:
    juror = Juror(model="openai/gpt-4.1-mini-2025-04-14", logprobs=True)
    result = estimate(Panel(jurors=(juror,), reasks=0), CASES)
    (row,) = result.jurors
    assert (row.probability, row.calls) == ("logprobs", 4)
    assert not any("probability" in note for note in result.notes)
