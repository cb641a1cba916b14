"""A case keeps the images of its messages, from every shape of message the readers know,
each marked in the text where it was by its number (`jury.cases._images`)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from images_helpers import JPEG, PNG, PNG_URI, URL

from jury import Case, CaseFileError, load_cases
from jury.cases import CaseSource
from jury.cli import main


def _load(tmp_path: Path, *records: dict[str, Any]) -> list[Case]:
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return load_cases(path)


def _asked(part: dict[str, Any], *, key: str = "content") -> dict[str, Any]:
    """A conversation whose user asks about one image part, and the assistant's answer."""
    said = [{"type": "text", "text": "What is this?"}, part]
    return {
        "id": "c",
        "turns": [{"role": "user", key: said}, {"role": "assistant", "content": "A cat."}],
    }


PARTS: dict[str, dict[str, Any]] = {
    "openai chat image_url": {"type": "image_url", "image_url": {"url": PNG_URI}},
    "openai responses input_image": {"type": "input_image", "image_url": PNG_URI},
    "anthropic base64 source": {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": PNG},
    },
    "inspect ContentImage": {"type": "image", "image": PNG_URI},
    "langchain base64 block": {
        "type": "image",
        "source_type": "base64",
        "data": PNG,
        "mime_type": "image/png",
    },
    "otel blob part": {
        "type": "blob",
        "modality": "image",
        "mime_type": "image/png",
        "content": PNG,
    },
}


@pytest.mark.parametrize("shape", PARTS)
def test_an_image_part_is_kept_as_the_cases_image_and_marked_where_it_was(
    tmp_path: Path, shape: str
) -> None:
    (case,) = _load(tmp_path, _asked(PARTS[shape]))
    assert case.turns[0].content == "What is this?\n[image 1]"
    assert [(i.media_type, i.data, i.url) for i in case.images] == [("image/png", PNG, None)]


def test_a_gemini_inline_data_part_is_kept(tmp_path: Path) -> None:
    parts = [{"text": "What is this?"}, {"inline_data": {"mime_type": "image/jpeg", "data": JPEG}}]
    record = {
        "id": "g",
        "turns": [{"role": "user", "parts": parts}, {"role": "model", "parts": [{"text": "A"}]}],
    }
    (case,) = _load(tmp_path, record)
    assert case.question == "What is this?\n[image 1]"
    assert [(i.media_type, i.data) for i in case.images] == [("image/jpeg", JPEG)]


def test_an_image_by_url_is_kept_as_its_url(tmp_path: Path) -> None:
    part = {"type": "image", "source": {"type": "url", "url": URL}}
    (case,) = _load(tmp_path, _asked(part))
    assert [(i.url, i.data) for i in case.images] == [(URL, None)]


def test_images_are_numbered_in_order_and_one_image_met_twice_keeps_its_number(
    tmp_path: Path,
) -> None:
    first = {"type": "image_url", "image_url": {"url": PNG_URI}}
    second = {"type": "image_url", "image_url": {"url": URL}}
    turns = [
        {"role": "user", "content": [first, {"type": "text", "text": "and"}, second]},
        {"role": "assistant", "content": "Two cats."},
        {"role": "user", "content": [{"type": "text", "text": "The first again:"}, first]},
        {"role": "assistant", "content": "Yes."},
    ]
    (case,) = _load(tmp_path, {"id": "n", "turns": turns})
    assert [t.content for t in case.turns] == [
        "[image 1]\nand\n[image 2]",
        "Two cats.",
        "The first again:\n[image 1]",
        "Yes.",
    ]
    assert [i.url for i in case.images] == [None, URL]


def test_an_inspect_question_and_its_image_are_kept_together(tmp_path: Path) -> None:
    asked = [{"type": "text", "text": "What is in this picture?"}, PARTS["inspect ContentImage"]]
    record = {"id": "i", "input": [{"role": "user", "content": asked}], "target": "a cat"}
    (case,) = _load(tmp_path, record)
    assert case.question == "What is in this picture?\n[image 1]"
    assert len(case.images) == 1


def test_a_case_validated_in_code_outside_a_file_keeps_its_images_too() -> None:
    case = Case.model_validate(_asked(PARTS["inspect ContentImage"]))
    assert case.images[0].data == PNG
    assert case.question == "What is this?\n[image 1]"


def test_a_case_written_back_with_its_images_reads_the_same() -> None:
    case = Case.model_validate(_asked(PARTS["anthropic base64 source"]))
    again = Case.model_validate_json(case.model_dump_json())
    assert again == case
    assert again.images == case.images


def test_an_image_given_as_a_data_uri_string_is_read_in_the_images_field() -> None:
    case = Case(id="s", question="What is [image 1]?", answer="A cat.", images=[PNG_URI, URL])
    assert [(i.media_type, i.url) for i in case.images] == [("image/png", None), (None, URL)]


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        (
            "data:image/png;base64,@@@",
            "line 1: turns: turns[0]: image: an image's data is not valid base64",
        ),
        (
            "data:image/png,rawtext",
            "line 1: turns: turns[0]: image: an image's data: URI must be base64",
        ),
        (
            "data:text/plain;base64,QUJD",
            "an image's media_type must be image/..., got 'text/plain'",
        ),
        ("ftp://example.test/a.png", "an image url must be http(s) or a data: URI"),
    ],
)
def test_a_broken_image_stops_the_file_naming_the_line_and_the_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], url: str, reason: str
) -> None:
    path = tmp_path / "bad.jsonl"
    record = _asked({"type": "image_url", "image_url": {"url": url}})
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    code = main(["run", str(path), "--out", str(tmp_path / "run"), "--progress", "none"])
    err = capsys.readouterr().err
    assert code == 2
    assert reason in err
    assert "Traceback" not in err
    assert "pydantic" not in err
    assert not (tmp_path / "run").exists()


def test_the_source_names_the_lines_with_images_and_says_where_they_go(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    records = [_asked(PARTS["inspect ContentImage"]), {"id": "p", "question": "Q", "answer": "A"}]
    records[0]["id"] = "img"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    source = CaseSource(path)
    source.validate()
    assert (
        f"{path}: 1 case has images: line 1; each is marked where it was ([image 1]) and sent "
        "to the jurors whose models take images (the others abstain)"
    ) in source.notices


def _inspect_sample(image: str) -> dict[str, Any]:
    """An Inspect sample whose image is named as Inspect's own tests name theirs."""
    asked = [
        {"type": "text", "text": "What is in this picture?"},
        {"type": "image", "image": image},
    ]
    return {"id": "i", "input": [{"role": "user", "content": asked}], "target": "balloons"}


def test_an_inspect_image_named_relative_to_its_dataset_is_read_from_that_folder(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "dataset"
    (folder / "images").mkdir(parents=True)
    (folder / "images" / "ballons.png").write_bytes(base64.b64decode(PNG))
    (case,) = _load(folder, _inspect_sample("images/ballons.png"))
    assert case.question == "What is in this picture?\n[image 1]"
    assert [(i.media_type, i.data) for i in case.images] == [("image/png", PNG)]


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("../secret.png", "'../secret.png' is outside the dataset's folder"),
        ("/etc/secret.png", "'/etc/secret.png' is outside the dataset's folder"),
        ("link.png", "'link.png' is outside the dataset's folder"),
        ("missing.png", "'missing.png' cannot be read in"),
        ("notes.txt", "'notes.txt' is not an image file"),
    ],
)
def test_an_inspect_image_outside_its_dataset_folder_or_not_there_stops_the_file(
    tmp_path: Path, name: str, reason: str
) -> None:
    folder = tmp_path / "dataset"
    folder.mkdir()
    (tmp_path / "secret.png").write_bytes(base64.b64decode(PNG))
    (folder / "link.png").symlink_to(tmp_path / "secret.png")
    (folder / "notes.txt").write_text("not an image")
    path = folder / "cases.jsonl"
    path.write_text(json.dumps(_inspect_sample(name)) + "\n", encoding="utf-8")
    with pytest.raises(CaseFileError) as raised:
        load_cases(path)
    assert "line 1" in str(raised.value)
    assert reason in str(raised.value)


def test_an_inspect_image_by_name_outside_any_folder_says_what_to_give() -> None:
    with pytest.raises(ValueError, match="come from no folder to find it in"):
        Case.model_validate(_asked({"type": "image", "image": "ballons.png"}))
