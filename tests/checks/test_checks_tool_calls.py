"""The tool_calls check: every expected call made, in order, each with matching arguments
(RAGAS's `reference_tool_calls`, DeepEval's `expected_tools` with `input_parameters`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jury import Case, CaseFileError, CheckOutcome, ExpectedToolCall, load_cases
from jury.checks import CheckSettings, CheckSuite

PASS, FAIL, NA = CheckOutcome.PASS, CheckOutcome.FAIL, CheckOutcome.NOT_APPLICABLE
SUITE = CheckSuite.from_settings()
WEATHER = {"name": "weather", "arguments": {"city": "Paris"}}
NEWS = {"name": "news", "arguments": {"topic": "rain", "limit": 3}}


def case(expected: Any, *made: tuple[str, Any], **fields: Any) -> Case:
    trace = {"tool_calls": [{"name": name, "arguments": args} for name, args in made]}
    return Case.model_validate(
        {"id": "c", "answer": "An answer.", "expected_tool_calls": expected, "trace": trace}
        | fields
    )


def result(c: Case) -> Any:
    return SUITE["tool_calls"](c)


def test_every_expected_call_made_in_order_passes_with_other_calls_between() -> None:
    found = result(
        case(
            [WEATHER, NEWS],
            ("lookup", "x"),
            ("weather", {"city": "Paris", "units": "C"}),
            ("lookup", "y"),
            ("news", {"limit": 3, "topic": "rain"}),
        )
    )
    assert (found.outcome, found.reason) == (PASS, "2 expected calls made in order")
    assert found.evidence.startswith('lookup(\'x\') → weather({"city": "Paris", "units": "C"})')
    assert found.stage == "tool argument"


def test_a_call_never_made_fails_naming_it() -> None:
    found = result(case([WEATHER, NEWS], ("weather", {"city": "Paris"})))
    assert found.outcome is FAIL
    assert found.reason == 'call 2, news({"limit": 3, "topic": "rain"}), was never made'


def test_calls_made_in_the_other_order_fail_as_out_of_order() -> None:
    found = result(
        case([WEATHER, NEWS], ("news", NEWS["arguments"]), ("weather", {"city": "Paris"}))
    )
    assert found.outcome is FAIL
    assert "call 2, news" in found.reason
    assert found.reason.endswith("was made only before call 1: out of order")


def test_a_call_with_other_arguments_fails_quoting_what_it_was_given() -> None:
    found = result(
        case([WEATHER, NEWS], ("weather", {"city": "Lyon"}), ("news", NEWS["arguments"]))
    )
    assert found.outcome is FAIL
    assert found.reason == (
        'call 1, weather({"city": "Paris"}), was made with other arguments: '
        'weather({"city": "Lyon"})'
    )


def test_a_tool_expected_twice_must_be_called_twice_with_each_arguments() -> None:
    london = {"name": "weather", "arguments": {"city": "London"}}
    assert result(case([WEATHER, london], ("weather", {"city": "Paris"}))).outcome is FAIL
    twice = case([WEATHER, london], ("weather", {"city": "Paris"}), ("weather", {"city": "London"}))
    assert result(twice).outcome is PASS
    # The same arguments twice do not count as two calls.
    same = case([WEATHER, WEATHER], ("weather", {"city": "Paris"}))
    assert result(same).reason.endswith("was made only before call 1: out of order")


@pytest.mark.parametrize(
    ("expected", "given", "outcome"),
    [
        # The tool_argument rule: a single value matches a call of exactly one value...
        ("ORD-101", {"order_id": "ORD-101"}, PASS),
        ("ORD-101", '{"order_id": "ORD-101"}', PASS),
        ("ORD-101", "ord-101", FAIL),
        # ...dicts match on the keys the case gives, recursively; lists item by item.
        ({"order_id": "ORD-1"}, {"order_id": "ORD-1", "verbose": True}, PASS),
        ({"filter": {"ids": [1, 2]}}, {"filter": {"ids": [2, 1]}}, FAIL),
        ({"limit": 1}, {"limit": True}, FAIL),
        # No arguments given (or RAGAS's `{}`): any call of the tool.
        (None, {"anything": 1}, PASS),
        ({}, None, PASS),
    ],
)
def test_arguments_match_by_the_tool_argument_rule(
    expected: Any, given: Any, outcome: CheckOutcome
) -> None:
    c = case([{"name": "lookup", "arguments": expected}], ("lookup", given))
    assert result(c).outcome is outcome


@pytest.mark.parametrize("expected", [None, []])
def test_not_applicable_when_the_case_expects_no_calls(expected: Any) -> None:
    found = result(case(expected, ("weather", {"city": "Paris"})))
    assert (found.outcome, found.reason) == (NA, "the case gives no expected tool calls")


def test_no_call_at_all_fails_the_first_expected_call() -> None:
    found = result(case([WEATHER]))
    assert (found.outcome, found.evidence) == (FAIL, "no tool")
    assert found.reason == 'call 1, weather({"city": "Paris"}), was never made'


def test_calls_across_a_conversations_turns_are_one_sequence() -> None:
    turns = [
        {"role": "user", "content": "Weather, then news."},
        {"role": "assistant", "content": "", "tool_calls": [WEATHER]},
        {"role": "user", "content": "And the news?"},
        {"role": "assistant", "content": "", "tool_calls": [NEWS]},
        {"role": "assistant", "content": "Sunny; no rain news."},
    ]
    c = Case.model_validate({"id": "c", "turns": turns, "expected_tool_calls": [WEATHER, NEWS]})
    assert result(c).outcome is PASS
    reversed_ = Case.model_validate(
        {"id": "c", "turns": turns, "expectedToolCalls": [NEWS, WEATHER]}
    )
    assert result(reversed_).outcome is FAIL


def test_the_check_can_be_turned_off_in_the_checks_table() -> None:
    settings = CheckSettings.model_validate({"tool_calls": {"enabled": False}})
    assert "tool_calls" not in CheckSuite.from_settings(settings).names
    assert "tool_calls" in SUITE.names


def written(tmp_path: Path, *records: dict[str, Any]) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_our_own_jsonl_field_and_its_camel_case_spelling_load(tmp_path: Path) -> None:
    calls = [{"name": "weather", "args": {"city": "Paris"}}, {"tool": "news"}]
    path = written(
        tmp_path,
        {"id": "a", "question": "q", "expected_tool_calls": calls},
        {"id": "b", "question": "q", "expectedToolCalls": calls},
    )
    for loaded in load_cases(path):
        assert loaded.expected_tool_calls == (
            ExpectedToolCall(name="weather", arguments={"city": "Paris"}),
            ExpectedToolCall(name="news"),
        )


def test_our_own_csv_column_holds_the_calls_as_json(tmp_path: Path) -> None:
    path = tmp_path / "cases.csv"
    cell = json.dumps([WEATHER, {"name": "news"}]).replace('"', '""')
    path.write_text(f'id,question,expected_tool_calls\na,q,"{cell}"\n', encoding="utf-8")
    (loaded,) = load_cases(path)
    assert loaded.expected_tool_calls == (
        ExpectedToolCall(name="weather", arguments={"city": "Paris"}),
        ExpectedToolCall(name="news"),
    )


def test_bad_expected_calls_are_refused_naming_the_line_and_field(tmp_path: Path) -> None:
    path = written(
        tmp_path,
        {"id": "a", "question": "q", "expected_tool_calls": [{"name": " "}]},
        {"id": "b", "question": "q", "expected_tool_calls": [{"name": "x", "result": 1}]},
        {"id": "c", "question": "q", "expected_tool": None, "expected_tool_calls": [WEATHER]},
    )
    with pytest.raises(CaseFileError) as caught:
        load_cases(path)
    errors = [str(e) for e in caught.value.errors]
    assert len(errors) == 3
    assert errors[0] == "line 1: expected_tool_calls[0].name: must not be empty"
    assert errors[1].startswith("line 2: expected_tool_calls[0].result")
    assert errors[2].startswith("line 3:")
    assert "expected_tool is null (no tool may be called) and expected_tool_calls" in errors[2]


def test_expected_arguments_written_as_json_text_match_the_table_they_spell() -> None:
    # A flattened OpenAI tool call gives its arguments as JSON text, on either side.
    text = {"name": "weather", "arguments": '{"city": "Paris"}'}
    assert result(case([text], ("weather", '{"city": "Paris"}'))).outcome is PASS
    assert result(case([text], ("weather", {"city": "Paris"}))).outcome is PASS
    assert result(case([text], ("weather", {"city": "Lyon"}))).outcome is FAIL
