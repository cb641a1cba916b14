"""`jury estimate` / `jury run --dry-run`: calls, tokens and cost without calling anyone."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import case, scores
from jury import Juror, Jury, Panel
from jury._estimate import estimate
from jury.cli._main import main
from jury.testing import ScriptedModel

EXAMPLE = Path(__file__).parent.parent / "examples" / "shopnest" / "cases.jsonl"


def test_estimate_counts_calls_tokens_and_cost_without_calling() -> None:
    priced = ScriptedModel([scores(5)], name="scripted/priced", cost_per_call=0.002)
    unpriced = ScriptedModel([scores(5)], name="scripted/unpriced")
    panel = Panel(jurors=(Juror(model=priced, samples=3), Juror(model=unpriced)), max_tokens=500)
    jury = Jury(panel)
    cases = [case(f"c{i}") for i in range(10)]
    rows = {row.juror: row for row in estimate(jury, cases)}
    assert priced.calls == unpriced.calls == 0
    assert rows["scripted/priced"].calls == 30
    assert rows["scripted/unpriced"].calls == 10
    prompt = jury.rubric.prompts(cases[0])[0]
    assert rows["scripted/unpriced"].input_tokens == 10 * (
        (len(prompt.system) + len(prompt.user)) // 4
    )
    assert rows["scripted/unpriced"].max_output_tokens == 10 * 500
    assert rows["scripted/priced"].cost == pytest.approx(30 * 0.002)
    assert rows["scripted/unpriced"].cost is None


@pytest.mark.parametrize("argv", [["estimate"], ["run", "--dry-run"]])
def test_the_cli_estimate(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([argv[0], str(EXAMPLE), *argv[1:]]) == 0
    out = capsys.readouterr().out
    assert "Estimate (no call made)" in out
    cases = len(EXAMPLE.read_text().splitlines())
    assert f"Total: {3 * cases} calls" in out  # three offline jurors, one call a case
    assert "Gate" not in out  # nothing was judged
