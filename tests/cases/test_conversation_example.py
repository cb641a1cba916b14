"""The bundled multi-turn example runs offline, and each case ends the way it was built to:
its ``metadata`` says the verdict and what catches a failure (a check, or the jury)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jury import CheckOutcome, Verdict, load_cases
from jury.cli import main
from jury.runs._records import read_verdicts

EXAMPLE = Path(__file__).parents[2] / "examples" / "conversations" / "cases.jsonl"


def test_the_example_holds_the_conversations_it_promises() -> None:
    cases = {case.id: case for case in load_cases(EXAMPLE)}
    assert len(cases) >= 8
    for built in (
        "booking-ok",
        "booking-wrong-order",
        "tool-error-ignored",
        "changed-mind-followed",
        "changed-mind-ignored",
        "jailbreak-held",
        "jailbreak-leaked",
    ):
        assert len(cases[built].turns) >= 4, built
    # Each case is a conversation with more than one step.
    assert all(sum(t.role == "assistant" for t in c.turns) >= 2 for c in cases.values())


def test_the_example_runs_offline_and_fails_exactly_where_it_was_built_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    code = main(["run", str(EXAMPLE), "--out", str(run), "--progress", "none"])
    assert code == 1, capsys.readouterr().err
    cases = {case.id: case for case in load_cases(EXAMPLE)}
    verdicts = {v.case_id: v for v in read_verdicts(run)}
    assert set(verdicts) == set(cases)
    for case_id, case in cases.items():
        verdict = verdicts[case_id]
        built = case.metadata
        assert verdict.verdict is Verdict(built["expected"]), (case_id, verdict.reasons)
        failed = {c.name for c in verdict.checks if c.required and c.outcome is CheckOutcome.FAIL}
        if built["expected"] == "PASS":
            assert not failed, case_id
        elif built["fails_on"] == ["jury"]:
            # No check can see it: the jury fails it.
            assert not failed, case_id
            assert verdict.votes, case_id
        else:
            assert failed == set(built["fails_on"]), (case_id, failed)
