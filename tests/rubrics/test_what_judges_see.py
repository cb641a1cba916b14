"""What a judge is shown of a case: the columns a file chose to show (``judge.X``), never its
metadata, and a word when there is no reference to compare with."""

from __future__ import annotations

import json
from pathlib import Path

from jury import load_cases, load_rubric


def test_a_column_mapped_to_judge_is_shown_under_its_label_and_metadata_is_not(
    tmp_path: Path,
) -> None:
    path = tmp_path / "goldens.jsonl"
    record = {
        "question": "Where is my order?",
        "answer": "It ships today.",
        "golden_answer": "Today.",
        "persona_text": "an impatient customer",
        "internal": "do-not-show-me",
    }
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    fields = {"judge.persona": "persona_text", "metadata.internal": "internal"}
    (case,) = load_cases(path, fields=fields)
    assert case.judge == {"persona": "an impatient customer"}
    (prompt,) = load_rubric("five-metric").prompts(case)
    assert "<persona-" in prompt.user
    assert "an impatient customer" in prompt.user
    assert "do-not-show-me" not in prompt.user


def test_a_judge_is_told_when_there_is_no_golden_answer(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(
        json.dumps({"id": "a", "question": "Name an actor.", "answer": "Tom Hanks"})
        + "\n"
        + json.dumps({"id": "b", "question": "2+2?", "answer": "4", "golden_answer": "4"})
        + "\n",
        encoding="utf-8",
    )
    without, given = load_cases(path)
    rubric = load_rubric("five-metric")
    (told,) = rubric.prompts(without)
    assert "no golden answer was given: judge correctness against the question" in told.user
    (compared,) = rubric.prompts(given)
    assert "no golden answer was given" not in compared.user
