"""A JSON record in a case's own fields, with an ID and no field map, is validated as it is,
without the shape readers (`CaseSource._cases`, for speed): it must load, and fail, exactly as
the general path does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jury import CaseFileError
from jury.cases import CaseSource


def _source(tmp_path: Path, records: list[dict[str, Any]], suffix: str = "jsonl") -> CaseSource:
    path = tmp_path / f"cases.{suffix}"
    if suffix == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    else:
        path.write_text(json.dumps(records))
    return CaseSource(path)


def test_a_duplicate_id_among_plain_records_is_refused_naming_both_lines(tmp_path: Path) -> None:
    source = _source(tmp_path, [{"id": "a", "question": "q"}, {"id": "a", "question": "r"}])
    with pytest.raises(CaseFileError) as caught:
        source.validate()
    assert "duplicate id 'a' (first on line 1)" in str(caught.value)


def test_a_plain_record_with_a_bad_field_is_refused_with_its_line_and_key(tmp_path: Path) -> None:
    records: list[dict[str, Any]] = [{"id": "a", "question": "q"}, {"id": "b", "max_words": 0}]
    with pytest.raises(CaseFileError) as caught:
        _source(tmp_path, records).validate()
    assert [(e.line, e.field) for e in caught.value.errors] == [(2, "max_words")]


def test_a_plain_record_with_a_misspelt_field_gets_the_same_hint_as_any_other(
    tmp_path: Path,
) -> None:
    with pytest.raises(CaseFileError) as caught:
        _source(tmp_path, [{"id": "a", "question": "q", "goldenAnwser": "x"}]).validate()
    assert "goldenAnswer" in str(caught.value)


def test_plain_records_and_records_in_a_shape_load_alike_in_one_file(tmp_path: Path) -> None:
    records: list[dict[str, Any]] = [
        {"id": "plain", "question": "What is 2+2?", "answer": "4", "golden_answer": "4"},
        {"id": "evals", "input": [{"role": "user", "content": "What is 2+2?"}], "ideal": "4"},
        {"question": "no id", "answer": "4"},
    ]
    source = _source(tmp_path, records)
    cases = source.load()
    assert [c.question for c in cases] == ["What is 2+2?", "What is 2+2?", "no id"]
    assert cases[0].golden_answer == cases[1].golden_answer == "4"
    assert cases[2].id.startswith("case-")


def test_the_unseen_parts_of_a_plain_records_conversation_are_noticed(tmp_path: Path) -> None:
    # Audio: an image is carried to the judges (`_images`), audio is still unseen.
    audio = {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}}
    records: list[dict[str, Any]] = [
        {"id": "a", "question": "q"},
        {
            "id": "b",
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "Listen"}, audio]},
                {"role": "assistant", "content": "A cat."},
            ],
        },
    ]
    source = _source(tmp_path, records, suffix="json")
    source.validate()
    assert any("(input_audio): item" in n and "2" in n for n in source.notices), source.notices
