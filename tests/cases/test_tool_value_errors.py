"""A bad value in another tool's record is said in that record's own words, and in the
shape it was read as: not as an unknown field of a case that the record never was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jury import CaseFileError, load_cases

TOOLS = Path(__file__).parents[1] / "data" / "tools"


def test_an_mt_bench_question_with_a_number_among_its_turns_names_that_turn(
    tmp_path: Path,
) -> None:
    # The first of FastChat's questions in tests/data/tools, its second turn made a number.
    record = json.loads((TOOLS / "mt_bench_question.jsonl").read_text("utf-8").splitlines()[0])
    record["turns"][1] = 3
    path = tmp_path / "question.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(CaseFileError) as caught:
        load_cases(path)
    assert [str(e) for e in caught.value.errors] == [
        "line 1: turns[1]: expected a question's text, got 3 (read as MT-Bench questions)"
    ]


def test_a_sharegpt_conversation_with_chat_roles_loads_as_one_with_human_and_gpt(
    tmp_path: Path,
) -> None:
    # FastChat's data/dummy_conversation.json item 1, its "from"s given as chat roles.
    items = json.loads((TOOLS / "sharegpt_dummy_conversation.json").read_text("utf-8"))
    roles = {"human": "user", "gpt": "assistant"}
    chat = {**items[0], "conversations": [
        {**m, "from": roles[m["from"]]} for m in items[0]["conversations"]
    ]}  # fmt: skip
    path = tmp_path / "sharegpt.json"
    path.write_text(json.dumps([chat]), encoding="utf-8")
    (case,) = load_cases(path)
    (original,) = load_cases(TOOLS / "sharegpt_dummy_conversation.json")[:1]
    assert case.turns == original.turns
