"""promptfoo's deterministic assertions are applied as checks, those nothing applies are said
by type and count (a warning, in the reports), and a test's description is its case's ID.

The files are promptfoo's own `examples/simple-test` (`tests/data/tools`, see its SOURCE.md)
and `examples/simple-csv`; the answers are ours, given to the cases as an agent would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jury import Case, CheckOutcome, load_cases
from jury.cases import CaseSource
from jury.cases._promptfoo_asserts import applied
from jury.checks import CheckSuite
from jury.cli import main

TOOLS = Path(__file__).parents[1] / "data" / "tools"
SIMPLE_TEST = TOOLS / "promptfoo_simple-test"
CONFIG = SIMPLE_TEST / "promptfooconfig.yaml"


def must_find(case: Case, answer: str) -> CheckOutcome:
    answered = case.model_copy(update={"answer": answer})
    return CheckSuite.from_settings()["must_find"](answered).outcome


def test_the_examples_descriptions_are_the_case_ids() -> None:
    cases = load_cases(CONFIG)
    assert [c.id for c in cases] == [
        "Check for exact match",
        "Another basic substring check",
        "Check if output is JSON",
        "Check for semantic similarity",
        "Use LLM to evaluate output",
    ]


@pytest.mark.parametrize(
    ("case_id", "answer", "outcome"),
    [
        # equals: exactly the value (promptfoo compares the strings).
        ("Check for exact match", "Yarr", CheckOutcome.PASS),
        ("Check for exact match", "Yarr!", CheckOutcome.FAIL),
        ("Check for exact match", "yarr", CheckOutcome.FAIL),
        # icontains: a substring, case ignored.
        ("Another basic substring check", "Where be me GRUB?", CheckOutcome.PASS),
        ("Another basic substring check", "I want food", CheckOutcome.FAIL),
        # The icontains behind `$ref: '#/assertionTemplates/containsPirateNoise'`.
        ("Use LLM to evaluate output", "Arrr, the fox jumps", CheckOutcome.PASS),
        ("Use LLM to evaluate output", "The fox jumps", CheckOutcome.FAIL),
    ],
)
def test_the_examples_deterministic_assertions_are_checks(
    case_id: str, answer: str, outcome: CheckOutcome
) -> None:
    case = {c.id: c for c in load_cases(CONFIG)}[case_id]
    assert must_find(case, answer) is outcome


def test_the_examples_other_assertions_are_a_warning_by_type_and_count() -> None:
    source = CaseSource(CONFIG)
    source.validate()
    assert source.warnings == [
        f"{CONFIG}: promptfoo assertions not applied (no check or juror does what they ask; "
        "kept in metadata, and the verdicts are reached without them): "
        "is-json ×1, javascript ×1, python ×1"
    ]
    # The CSV of the same example: `fn:` is promptfoo's older `javascript:`, and a bare
    # `is-json` is that type (src/csv.ts), not a golden answer "is-json".
    csv = CaseSource(SIMPLE_TEST / "tests.csv")
    cases = csv.load()
    csv.validate()
    assert csv.warnings[0].endswith(": is-json ×1, javascript ×2")
    assert [c.golden_answer for c in cases] == [None, None, None]
    assert cases[2].metadata["assert"] == [{"type": "is-json", "value": None}]


def test_simple_csv_icontains_is_case_blind() -> None:
    config = TOOLS / "promptfoo_simple-csv" / "promptfooconfig.yaml"
    french = load_cases(config, fields={"question": "body"})[0]
    assert must_find(french, "BONJOUR le monde") is CheckOutcome.PASS
    assert must_find(french, "Salut le monde") is CheckOutcome.FAIL


@pytest.mark.parametrize(
    ("assertion", "passing", "failing"),
    [
        # Each as promptfoo's deterministic assertions page defines it.
        ({"type": "contains", "value": "30 days"}, "within 30 days.", "within 30 Days."),
        ({"type": "not-contains", "value": "@"}, "Use the form.", "Mail a@b.example."),
        ({"type": "not-icontains", "value": "email"}, "Use the form.", "E-mail or EMAIL us."),
        ({"type": "starts-with", "value": "Yes"}, "Yes, 30 days.", "Well, Yes."),
        ({"type": "not-starts-with", "value": "Yes"}, "Well, yes.", "Yes."),
        ({"type": "regex", "value": r"\d+ days"}, "In 30 days.", "In a month."),
        ({"type": "not-regex", "value": r"^Sorry"}, "Fine.\nSorry", "Sorry, no."),
        ({"type": "contains-any", "value": ["card", "cash"]}, "By cash.", "By Card."),
        ({"type": "icontains-any", "value": "card, cash"}, "By Card.", "By cheque."),
        ({"type": "contains-all", "value": ["card", "cash"]}, "cash or card", "card only"),
        ({"type": "not-contains-all", "value": ["card", "cash"]}, "card only", "cash, card"),
        ({"type": "not-contains-any", "value": ["card", "cash"]}, "cheque", "cash only"),
        ({"type": "icontains-all", "value": ["Card", "CASH"]}, "card, cash", "CARD"),
        ({"type": "not-equals", "value": "No"}, "No.", "No"),
        # A value written as the text promptfoo writes itself: a number.
        ({"type": "contains", "value": 30}, "30 days", "thirty days"),
    ],
)
def test_each_deterministic_type_means_what_promptfoo_means(
    assertion: dict[str, object], passing: str, failing: str
) -> None:
    found, unapplied = applied([assertion])
    assert not unapplied
    case = Case.model_validate({"id": "c", "question": "Q?", "must_find": found})
    assert must_find(case, passing) is CheckOutcome.PASS
    assert must_find(case, failing) is CheckOutcome.FAIL


@pytest.mark.parametrize(
    "assertion",
    [
        {"type": "contains", "value": "30 days", "transform": "output.trim()"},
        {"type": "contains", "value": "file://expected.txt"},
        {"type": "contains", "value": ["a", "b"]},
        {"type": "regex", "value": "(?<name>x)\\k<name>"},  # JavaScript's, not Python's
        {"type": "$ref"},
        "not an assertion",
    ],
)
def test_an_assertion_not_meant_the_same_is_not_applied_but_counted(assertion: object) -> None:
    found, unapplied = applied([assertion])
    assert found == []
    assert sum(unapplied.values()) == 1


def test_a_shared_description_is_no_id_and_says_why(tmp_path: Path) -> None:
    # Written here: no promptfoo example gives two tests one description.
    path = tmp_path / "tests.csv"
    path.write_text(
        "question,__expected,__description\n"
        "Q1?,contains: a,same\nQ2?,contains: b,same\nQ3?,contains: c,other\n"
    )
    source = CaseSource(path)
    cases = source.load()
    source.validate()
    assert cases[2].id == "other"
    assert cases[0].id.startswith("case-")
    assert cases[1].id.startswith("case-")
    assert cases[0].metadata["description"] == "same"
    assert (
        f"{path}: kept in metadata (the judges do not see it) on 2 of 3 lines: description "
        "(not the ID: another test has the same one)" in source.notices
    )


def test_a_gate_fails_an_answer_that_breaks_a_contains(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The new user's trial: promptfoo's `contains` / `not-contains` were kept in metadata and
    # the gate passed answers that break them.
    agent = tmp_path / "agent.py"
    agent.write_text(
        "def answer(case):\n"
        "    return {'Yes': 'Yarr', \"I'm hungry\": 'Food please'}.get(case.question, 'Arrr')\n"
    )
    out = tmp_path / "run"
    argv = ["run", str(CONFIG), "--agent", f"{agent}:answer", "--out", str(out)]
    code = main([*argv, "--progress", "none", "--no-cache"])
    err = capsys.readouterr().err
    assert code == 1
    summary = json.loads((out / "summary.json").read_text())
    reasons = {f["case_id"]: f["reasons"] for f in summary["failures"]}
    assert reasons["Another basic substring check"] == [
        "check must_find failed: 1 of 1 not found: promptfoo icontains: grub"
    ]
    # The answers that meet their checks are judged (the offline jurors may fail them).
    for met in ("Check for exact match", "Use LLM to evaluate output"):
        assert not any("must_find" in r for r in reasons.get(met, []))
    warning = "promptfoo assertions not applied"
    assert f"jury: warning: {CONFIG}: {warning}" in err
    assert any(warning in w for w in summary["warnings"])
