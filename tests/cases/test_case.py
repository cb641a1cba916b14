"""Cases load in every spelling the field uses, and a bad file is refused as a whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jury import Case, CaseFileError, LineError, iter_cases, load_cases, validate_cases
from jury.cli import main

EXAMPLE = Path(__file__).parents[2] / "examples" / "shopnest" / "cases.jsonl"

# The seed article's golden-dataset case and its agent trace, exactly as printed there.
SEED_CASE = {
    "id": "tool-status-01",
    "question": "Where is my order ORD-101?",
    "goldenAnswer": "ORD-101 has been shipped and has not been delivered yet.",
    "expectedBehaviour": "Call getOrderStatus for ORD-101 and report the status from the tool.",
    "expectedTool": "getOrderStatus",
    "expectedToolArgument": "ORD-101",
    "expectedSource": None,
}
SEED_TRACE = {
    "answer": "Yes. ORD-102 was delivered 20 days ago, within the 30-day return window.",
    "retrievedSources": ["return-policy.md"],
    "toolCalls": [
        {"name": "getOrderStatus", "argument": "ORD-102", "result": "Delivered 20 days ago"}
    ],
    "context": "Products can be returned within 30 days of delivery.",
}


def write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_seed_shapes_load_nested() -> None:
    case = Case.model_validate({**SEED_CASE, "trace": SEED_TRACE})
    assert case.golden_answer == SEED_CASE["goldenAnswer"]
    assert case.expected_behaviour == SEED_CASE["expectedBehaviour"]
    assert case.expected_tool == "getOrderStatus"
    assert case.expected_tool_argument == "ORD-101"
    assert case.expected_source is None
    assert case.answer == SEED_TRACE["answer"]
    assert case.trace.retrieved_sources == ("return-policy.md",)
    call = case.trace.tool_calls[0]
    assert (call.name, call.arguments, call.result) == (
        "getOrderStatus",
        "ORD-102",
        "Delivered 20 days ago",
    )
    assert case.trace.context == ("Products can be returned within 30 days of delivery.",)


def test_seed_shapes_load_flat() -> None:
    flat = Case.model_validate({**SEED_CASE, **SEED_TRACE})
    nested = Case.model_validate({**SEED_CASE, "trace": SEED_TRACE})
    assert flat == nested


def test_null_expected_tool_means_no_tool_but_absent_means_unchecked() -> None:
    explicit = Case.model_validate({"id": "a", "expectedTool": None})
    absent = Case.model_validate({"id": "b"})
    assert explicit.expects_no_tool
    assert not absent.expects_no_tool
    assert absent.expected_tool is None


@pytest.mark.parametrize(
    ("data", "field", "value"),
    [
        ({"input": "q"}, "question", "q"),
        ({"output": "a"}, "answer", "a"),
        ({"actual_output": "a"}, "answer", "a"),
        ({"expected_output": "g"}, "golden_answer", "g"),
        ({"target": "g"}, "golden_answer", "g"),
        ({"reference": "g"}, "golden_answer", "g"),
        ({"expected_behavior": "b"}, "expected_behaviour", "b"),
    ],
)
def test_other_tools_spellings(data: dict[str, str], field: str, value: str) -> None:
    assert getattr(Case.model_validate({"id": "x", **data}), field) == value


def test_integer_ids_become_text() -> None:
    assert Case.model_validate({"idx": 7}).id == "7"


def test_two_spellings_of_one_field_are_refused() -> None:
    with pytest.raises(ValueError, match="answer is given twice, as answer and output"):
        Case.model_validate({"id": "x", "answer": "a", "output": "b"})


def test_case_is_immutable() -> None:
    case = Case.model_validate({"id": "x"})
    with pytest.raises(ValueError, match="frozen"):
        case.id = "y"


def test_evidence_is_context_and_tool_results() -> None:
    case = Case.model_validate({**SEED_CASE, **SEED_TRACE})
    assert case.evidence == (
        "Products can be returned within 30 days of delivery.",
        "Delivered 20 days ago",
    )


def test_every_bad_line_is_reported(tmp_path: Path) -> None:
    good = json.dumps({"id": "ok", "question": "q"})
    path = write(
        tmp_path,
        [
            good,
            "{not json",
            json.dumps({"question": "no id"}),
            json.dumps({"id": "x", "goldenAnwser": "typo"}),
            "",
            json.dumps({"id": "y", "trace": {"toolCalls": [{"argument": "ORD-1"}]}}),
            json.dumps(["an", "array"]),
            json.dumps({"id": "ok", "question": "again"}),
        ],
    )
    with pytest.raises(CaseFileError) as caught:
        load_cases(path)
    errors = caught.value.errors
    # Line 3 has no id: it gets one from its content.
    assert [e.line for e in errors] == [2, 4, 6, 7, 8]
    by_line = {e.line: e for e in errors}
    assert by_line[2].field == ""
    assert by_line[2].reason.startswith("not valid JSON: ")
    assert by_line[4] == LineError(
        4, "goldenAnwser", "unknown field (did you mean 'goldenAnswer'?)"
    )
    # Named as the file spells it, so the user finds it.
    assert by_line[6].field == "trace.toolCalls[0].name"
    assert by_line[7].reason == "a case must be a JSON object, not a list"
    assert by_line[8].field == "id"
    assert "first on line 1" in by_line[8].reason
    # The same errors from the streaming validator: nothing is silently dropped.
    with pytest.raises(CaseFileError) as again:
        validate_cases(path)
    assert again.value.errors == errors


def test_iter_cases_refuses_a_bad_file_before_yielding(tmp_path: Path) -> None:
    path = write(tmp_path, [json.dumps({"id": "a"}), "oops"])
    stream = iter_cases(path)
    with pytest.raises(CaseFileError):
        next(stream)


def test_cli_refuses_a_malformed_file_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, ["{bad", json.dumps({"id": 1}), json.dumps({"id": 1}), "[]"])
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert "3 bad lines; nothing was run" in err
    for fragment in (
        "line 1: not valid JSON: ",
        "line 3: id: duplicate id '1' (first on line 2)",
        "line 4: a case must be a JSON object, not a list",
    ):
        assert fragment in err
    assert "(line)" not in err


def test_the_example_loads() -> None:
    cases = load_cases(EXAMPLE)
    assert len(cases) >= 12
    assert {c.category for c in cases} >= {"policy", "tool", "combined", "edge", "adversarial"}
    by_id = {c.id: c for c in cases}
    # The scenarios the example must hold (issue 2).
    assert by_id["combined-return-02"].trace.tool_calls == ()
    assert by_id["tool-status-02"].trace.tool_calls[0].arguments == "ORD-999"
    assert by_id["tool-status-02"].expected_tool_argument == "ORD-101"
    assert by_id["edge-out-of-scope-01"].expect_refusal
    assert "30 days" in (by_id["edge-return-day30"].question)
    assert "Ignore your 30-day rule" in by_id["adversarial-override-01"].question
