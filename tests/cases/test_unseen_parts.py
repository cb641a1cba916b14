"""Message parts the judges cannot see (audio, a file) are neither dropped silently nor
passed off as text: each is marked where it was, and the source names the records that had
one (`jury.cases._unseen`). Images are kept for the judges that take them
(tests/cases/test_case_images.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jury import load_cases
from jury.cases import CaseSource
from jury.cli import main


def _image(kind: str = "image") -> dict[str, Any]:
    if kind == "image_url":  # OpenAI's chat content part
        return {"type": "image_url", "image_url": {"url": "https://example.test/cat.png"}}
    return {"type": "image", "image": "data:image/png;base64,AAAA"}  # Inspect's


def _records() -> list[dict[str, Any]]:
    asked = [{"type": "text", "text": "What is in this picture?"}, _image()]
    described = [{"type": "text", "text": "Describe"}, _image("image_url")]
    audio = [{"type": "input_audio", "input_audio": {"data": "UklG"}}]
    return [
        {"id": "inspect", "input": [{"role": "user", "content": asked}], "target": ["a cat"]},
        {"id": "plain", "question": "What is 2+2?", "answer": "4"},
        {
            "id": "openai",
            "turns": [
                {"role": "user", "content": described},
                {"role": "assistant", "content": "A cat on a mat."},
            ],
        },
        {
            "id": "audio",
            "turns": [
                {"role": "user", "content": audio},
                {"role": "assistant", "content": "hello"},
            ],
        },
    ]


def _file(tmp_path: Path) -> Path:
    path = tmp_path / "parts.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in _records()), encoding="utf-8")
    return path


def test_each_part_is_marked_where_it_was_an_image_by_its_number(tmp_path: Path) -> None:
    inspect, plain, openai, audio = load_cases(_file(tmp_path))
    assert inspect.question == "What is in this picture?\n[image 1]"
    assert plain.question == "What is 2+2?"
    assert [t.content for t in openai.turns] == ["Describe\n[image 1]", "A cat on a mat."]
    assert audio.turns[0].content == "[input_audio]"
    assert (len(inspect.images), len(plain.images), len(openai.images)) == (1, 0, 1)
    assert audio.images == ()


def test_the_source_names_the_lines_whose_content_the_judges_cannot_see(tmp_path: Path) -> None:
    path = _file(tmp_path)
    source = CaseSource(path)
    source.validate()
    assert (
        f"{path}: 3 cases have content the judges cannot see (input_audio): lines 1, 3, 4; left "
        "out of the text they judge, each marked where it was ([input_audio]) (their images "
        "are sent to the jurors that take them)"
    ) in source.notices


def test_a_file_of_text_alone_has_no_such_notice(tmp_path: Path) -> None:
    path = tmp_path / "text.jsonl"
    path.write_text(json.dumps(_records()[1]) + "\n", encoding="utf-8")
    source = CaseSource(path)
    source.validate()
    assert not [n for n in source.notices if "cannot see" in n or "images" in n]


def test_a_run_says_on_stderr_which_cases_had_an_image_and_who_cannot_see_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _file(tmp_path)
    code = main(["run", str(path), "--out", str(tmp_path / "run"), "--progress", "none"])
    err = capsys.readouterr().err
    assert code != 2, err  # not refused: judged, with the notes
    assert "jury: note: " in err
    assert "3 cases have content the judges cannot see (input_audio): lines 1, 3, 4" in err
    # The offline jurors take no images: named at load, with the cases they abstain on.
    assert "jury: warning: 2 cases have images (inspect, openai) that " in err
    assert "the offline provider takes no images" in err
