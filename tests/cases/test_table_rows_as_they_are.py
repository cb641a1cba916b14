"""A table's rows in a case's own fields are read as they are (as JSON records are), told once
from the header; a header that names a promptfoo column still sends every row through the
shapes. A record without a conversation is read without the collector of parts the judges
cannot see; one with a conversation still has them collected and said. The speed this buys
is measured in benchmarks/loading_pairs.py, not here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jury.cases import CaseSource
from jury.cases._read import table_keys
from jury.cases._shapes import recognise
from jury.cases._unseen import collect


def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of records the shape recogniser is asked about, in a list of one."""
    calls = [0]

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return recognise(*args, **kwargs)

    monkeypatch.setattr("jury.cases._source.recognise", counting)
    return calls


def test_rows_of_a_plain_table_with_ids_skip_the_shape_recogniser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "cases.csv"
    path.write_text("id,question,answer\nc1,Where?,Here.\nc2,When?,Now.\n", "utf-8")
    calls = counted(monkeypatch)
    source = CaseSource(path)
    assert source.validate() == 2
    assert [(c.id, c.question, c.answer) for c in source] == [
        ("c1", "Where?", "Here."),
        ("c2", "When?", "Now."),
    ]
    assert calls == [0]


def test_a_header_with_a_promptfoo_column_sends_rows_through_the_shapes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "tests.csv"
    path.write_text("id,question,__expected\nc1,Where?,Here.\n", "utf-8")
    calls = counted(monkeypatch)
    source = CaseSource(path)
    (case,) = list(source)
    assert (case.question, case.golden_answer) == ("Where?", "Here.")
    assert calls == [1]


def test_a_bad_cell_of_a_plain_table_is_said_as_before(tmp_path: Path) -> None:
    path = tmp_path / "cases.tsv"
    path.write_text("id\tquestion\tmin_words\nc1\tWhere?\tmany\n", "utf-8")
    with pytest.raises(Exception, match=r"line 2: min_words: expected a whole number"):
        CaseSource(path).validate()


def test_table_keys_come_from_the_whole_header_row_only() -> None:
    assert table_keys(b'\xef\xbb\xbfid,"trace.answer",q\r\n1,2,3\n', ",") == ["id", "trace", "q"]
    # A quoted newline inside a header cell is one cell.
    assert table_keys(b'id,"multi\nline"\n1,2\n', ",") == ["id", "multi\nline"]
    # A header the first 64 KiB do not hold whole tells nothing of the rows' keys.
    long = b"a" * (1 << 16)
    assert table_keys(long, ",") is None
    assert table_keys(b"", ",") is None


def collects(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of records read with the unseen-part collector set, in a list of one."""
    calls = [0]

    def counting(found: list[str], folder: Path | None = None) -> Any:
        calls[0] += 1
        return collect(found, folder)

    monkeypatch.setattr("jury.cases._source.collect", counting)
    return calls


def test_a_record_without_a_conversation_is_read_without_the_part_collector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(
        json.dumps({"id": "a", "question": "Where?", "answer": "Here."}) + "\n", "utf-8"
    )
    calls = collects(monkeypatch)
    source = CaseSource(path)
    assert [c.answer for c in source] == ["Here."]
    assert calls == [0]


def test_a_conversations_unseen_part_is_still_collected_and_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    audio = {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}}
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "Hear this"}, audio]},
        {"role": "assistant", "content": "A bell."},
    ]
    path = tmp_path / "cases.jsonl"
    path.write_text(
        json.dumps({"id": "a", "question": "Where?"})
        + "\n"
        + json.dumps({"id": "b", "messages": messages})
        + "\n",
        "utf-8",
    )
    calls = collects(monkeypatch)
    source = CaseSource(path)
    source.validate()
    cases = list(source)
    assert cases[1].turns[0].content == "Hear this\n[input_audio]"
    assert calls[0] >= 1  # the conversation's line (each pass reads it once)
    assert any("line 2" in n and "input_audio" in n for n in source.notices), source.notices


def test_a_header_is_split_into_lines_as_the_table_reader_splits_it(tmp_path: Path) -> None:
    # A form feed inside a header cell is no line break for the table reader: the header
    # read first must not stop there and miss the promptfoo column after it.
    assert table_keys(b"id,question\x0c,__expected\nc1,Where?,Here.\n", ",") == [
        "id",
        "question",
        "__expected",
    ]
    path = tmp_path / "ff.csv"
    path.write_bytes(b"id,question\x0c,__expected\nc1,Where?,Here.\n")
    (case,) = CaseSource(path)
    assert case.golden_answer == "Here."
