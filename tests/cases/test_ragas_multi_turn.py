"""RAGAS's multi-turn samples load as RAGAS writes them: `reference_tool_calls` only exists on a
`MultiTurnSample`, whose `user_input` is a list of messages, not a text.

The records are written as `EvaluationDataset.to_jsonl` writes them (explodinggradients/ragas
at 3e28e9de, src/ragas/dataset_schema.py: a sample's `model_dump(exclude_none=True)`, messages
from src/ragas/messages.py); the conversation is the ToolCallAccuracy example of its
docs/concepts/metrics/available_metrics/agents.md. `ragas` itself is not installed: it pulls
langchain and would downgrade openai.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jury import CaseFileError, load_cases

DOCS_SAMPLE: dict[str, Any] = {
    "user_input": [
        {"content": "What's the weather like in New York right now?", "type": "human"},
        {
            "content": "The current temperature in New York is 75°F and it's partly cloudy.",
            "type": "ai",
            "tool_calls": [{"name": "weather_check", "args": {"location": "New York"}}],
        },
        {"content": "Can you translate that to Celsius?", "type": "human"},
        {
            "content": "Let me convert that to Celsius for you.",
            "type": "ai",
            "tool_calls": [
                {"name": "temperature_conversion", "args": {"temperature_fahrenheit": 75}}
            ],
        },
        {"content": "75°F is approximately 23.9°C.", "type": "tool"},
        {"content": "75°F is approximately 23.9°C.", "type": "ai"},
    ],
    "reference_tool_calls": [
        {"name": "weather_check", "args": {"location": "New York"}},
        {"name": "temperature_conversion", "args": {"temperature_fahrenheit": 75}},
    ],
}


def written(tmp_path: Path, *records: dict[str, Any]) -> Path:
    path = tmp_path / "ragas.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    return path


def test_a_ragas_multi_turn_sample_is_a_conversation_with_its_expected_tool_calls(
    tmp_path: Path,
) -> None:
    (case,) = load_cases(written(tmp_path, DOCS_SAMPLE))
    assert [(t.role, t.content) for t in case.turns] == [
        ("user", "What's the weather like in New York right now?"),
        ("assistant", "The current temperature in New York is 75°F and it's partly cloudy."),
        ("user", "Can you translate that to Celsius?"),
        ("assistant", "Let me convert that to Celsius for you."),
        ("assistant", "75°F is approximately 23.9°C."),
    ]
    assert case.question == "Can you translate that to Celsius?"
    assert case.answer == "75°F is approximately 23.9°C."
    # Names, order and arguments in the case's own field, not only in metadata.
    assert [(c.name, c.arguments) for c in case.expected_tool_calls or ()] == [
        ("weather_check", {"location": "New York"}),
        ("temperature_conversion", {"temperature_fahrenheit": 75}),
    ]
    assert (case.expected_tool, case.expected_tool_order, case.metadata) == (None, None, {})
    assert [(c.name, c.arguments) for c in case.trace.tool_calls] == [
        ("weather_check", {"location": "New York"}),
        ("temperature_conversion", {"temperature_fahrenheit": 75}),
    ]


def test_a_ragas_tool_message_answers_the_call_just_before_it_not_an_older_unanswered_one(
    tmp_path: Path,
) -> None:
    # The weather_check call got no ToolMessage; the one result is the conversion's.
    (case,) = load_cases(written(tmp_path, DOCS_SAMPLE))
    results = {c.name: c.result for c in case.trace.tool_calls}
    assert results == {
        "weather_check": None,
        "temperature_conversion": "75°F is approximately 23.9°C.",
    }


def test_one_ragas_reference_tool_call_is_the_expected_tool_and_its_arguments(
    tmp_path: Path,
) -> None:
    sample = {
        "user_input": [
            {"content": "Weather in NYC?", "type": "human"},
            {"content": "", "type": "ai", "tool_calls": [{"name": "weather", "args": {"c": 1}}]},
            {"content": "sunny", "type": "tool"},
            {"content": "It is sunny.", "type": "ai"},
        ],
        "reference": "Sunny.",
        "reference_tool_calls": [{"name": "weather", "args": {"c": 1}}],
    }
    (case,) = load_cases(written(tmp_path, sample))
    assert (case.expected_tool, case.expected_tool_argument) == ("weather", {"c": 1})
    assert [(c.name, c.result) for c in case.trace.tool_calls] == [("weather", "sunny")]
    assert (case.answer, case.golden_answer) == ("It is sunny.", "Sunny.")


def test_a_ragas_message_of_an_unknown_type_is_refused_naming_user_input(tmp_path: Path) -> None:
    sample = {"user_input": [{"content": "hi", "type": "robot"}], "reference": "x"}
    with pytest.raises(CaseFileError, match=r"line 1: user_input.*unknown role.*RAGAS"):
        load_cases(written(tmp_path, sample))
