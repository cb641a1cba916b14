"""Files RAGAS's own code wrote (ragas 0.4.3, `tests/data/tools/ragas/make_files.py`): its
JSONL, CSV and Parquet writers, single-turn and multi-turn samples, loaded without ragas
installed and asserted field by field against the records in the files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from extras import needs

from jury import Case, CheckOutcome, ExpectedToolCall, load_cases
from jury.cases import CaseSource
from jury.checks import CheckSuite

RAGAS = Path(__file__).parents[1] / "data" / "tools" / "ragas"
FORMATS = ("jsonl", "csv", "parquet")
#: The same, Parquet read with pyarrow (the parquet extra).
READ = ("jsonl", "csv", pytest.param("parquet", marks=needs("parquet")))


def records(name: str) -> list[dict[str, Any]]:
    """The samples as RAGAS's `to_jsonl` wrote them: `model_dump(exclude_none=True)`."""
    text = (RAGAS / f"{name}.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def loaded(name: str, fmt: str) -> tuple[list[Case], list[str]]:
    source = CaseSource(RAGAS / f"{name}.{fmt}")
    try:
        source.validate()
        return list(source), list(source.notices)
    finally:
        source.close()


@pytest.mark.parametrize("fmt", READ)
def test_ragas_single_turn_samples_load_field_by_field(fmt: str) -> None:
    cases, notices = loaded("single_turn", fmt)
    path = RAGAS / f"single_turn.{fmt}"
    assert f"{path}: read 2 of 2 as RAGAS samples" in notices
    for case, sample in zip(cases, records("single_turn"), strict=True):
        assert case.question == sample["user_input"]
        assert case.answer == sample["response"]
        assert case.golden_answer == sample["reference"]
        assert case.trace.context == tuple(sample["retrieved_contexts"])
        # What a case has no field for is kept whole, tables and lists as RAGAS gave them.
        assert case.metadata == {
            key: sample[key]
            for key in (
                "reference_contexts", "retrieved_context_ids", "multi_responses", "rubrics",
                "persona_name", "query_style", "query_length",
            )
        }  # fmt: skip
        assert (case.expected_tool, case.expected_tool_calls, case.turns) == (None, None, ())
    assert cases[1].metadata["rubrics"] == {
        "score1_description": "another scientist",
        "score5_description": "Fleming",
    }


@pytest.mark.parametrize("fmt", READ)
def test_ragas_multi_turn_samples_load_with_their_several_reference_tool_calls(
    fmt: str,
) -> None:
    cases, notices = loaded("multi_turn", fmt)
    assert f"{RAGAS / f'multi_turn.{fmt}'}: read 2 of 2 as RAGAS samples" in notices
    for case, sample in zip(cases, records("multi_turn"), strict=True):
        # Every reference call: its name, in order, with its arguments, in the case's field.
        assert case.expected_tool_calls == tuple(
            ExpectedToolCall(name=call["name"], arguments=call["args"])
            for call in sample["reference_tool_calls"]
        )
        assert (case.expected_tool, case.expected_tool_argument) == (None, None)
        assert case.expected_tool_order is None
        assert case.golden_answer == sample["reference"]
        assert case.metadata == {
            "rubrics": sample["rubrics"],
            "reference_topics": sample["reference_topics"],
        }
        messages = sample["user_input"]
        made = [call for m in messages if m["type"] == "ai" for call in m.get("tool_calls", [])]
        results = [m["content"] for m in messages if m["type"] == "tool"]
        # The AIMessages' tool calls, each answered by the ToolMessage after it, in order.
        assert [(c.name, c.arguments, c.result) for c in case.trace.tool_calls] == [
            (call["name"], call["args"], result) for call, result in zip(made, results, strict=True)
        ]
        said = [m for m in messages if m["type"] != "tool"]
        assert [t.role for t in case.turns] == [
            "user" if m["type"] == "human" else "assistant" for m in said
        ]
        assert [t.content for t in case.turns] == [m["content"] for m in said]
        assert case.answer == messages[-1]["content"]
    weather, booking = cases
    assert [c.name for c in weather.expected_tool_calls or ()] == [
        "weather_check",
        "temperature_conversion",
        "alerts",
    ]
    assert (weather.expected_tool_calls or ())[2].arguments == {
        "location": "New York",
        "kinds": ["storm"],
    }
    assert (booking.expected_tool_calls or ())[1].arguments == {
        "date": "2025-03-15",
        "name": "Greco",
        "options": {"window": True},
    }


@needs("parquet")
@pytest.mark.parametrize("name", ["single_turn", "multi_turn"])
def test_ragas_csv_and_parquet_give_the_cases_its_jsonl_gives(name: str) -> None:
    # RAGAS's to_csv writes a list or table cell as Python's str() of it; its Parquet file
    # holds them as Arrow lists and structs: all three are the same samples.
    jsonl, csv, parquet = (load_cases(RAGAS / f"{name}.{fmt}") for fmt in FORMATS)
    assert [c.model_dump() for c in csv] == [c.model_dump() for c in jsonl]
    assert [c.model_dump() for c in parquet] == [c.model_dump() for c in jsonl]


def test_the_tool_calls_check_holds_ragas_agents_to_their_reference_calls() -> None:
    suite = CheckSuite.from_settings()
    weather, booking = load_cases(RAGAS / "multi_turn.jsonl")
    # The agents made every reference call in order (booking_table with more arguments).
    assert suite["tool_calls"](weather).outcome is CheckOutcome.PASS
    assert suite["tool_calls"](booking).outcome is CheckOutcome.PASS
    # The same conversation with the conversion asked for the wrong temperature fails.
    calls = list(weather.trace.tool_calls)
    calls[1] = calls[1].model_copy(update={"arguments": {"temperature_fahrenheit": 57}})
    wrong = Case(
        id="wrong", expected_tool_calls=weather.expected_tool_calls, trace={"tool_calls": calls}
    )
    found = suite["tool_calls"](wrong)
    assert found.outcome is CheckOutcome.FAIL
    assert found.reason.startswith(
        'call 2, temperature_conversion({"temperature_fahrenheit": 75}), was made with other'
    )
