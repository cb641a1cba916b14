"""The labels file: append-only lines, the latest wins, undo as a withdrawal, a changed case
flagged, bad lines named, one writer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import case
from jury import ConfigError, load_rubric
from jury._errors import LabelsLockedError
from jury.runs._labels import (
    Label,
    LabelWriter,
    case_hash,
    current_labels,
    majority_labels,
    read_labels,
    validate_labels,
    with_file_labels,
)

RUBRIC = load_rubric("five-metric")
CASES = {c.id: c for c in (case("c1"), case("c2", answer="No."))}


def _label(case_id: str, who: str = "ana", /, **labels: object) -> Label:
    return Label(case_id=case_id, labeller=who, time="2026-12-01T10:00:00+00:00", labels=labels)


def _write(path: Path, *lines: object) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_each_label_is_appended_as_one_line_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    with LabelWriter(path) as writer:
        writer.append(_label("c1", correctness=4))
        writer.append(_label("c1", correctness=2))
        writer.append(_label("c2", "bo", **{"pass": False}))
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3
    assert json.loads(lines[0]) == {
        "case_id": "c1",
        "labels": {"correctness": 4},
        "labeller": "ana",
        "time": "2026-12-01T10:00:00+00:00",
    }
    labels = read_labels(path)
    assert [label.line for label in labels] == [1, 2, 3]
    now = current_labels(labels)
    assert now[("c1", "ana")].labels == {"correctness": 2}  # the relabel wins
    assert now[("c2", "bo")].labels == {"pass": False}


def test_a_withdrawal_takes_the_labellers_label_back(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    with LabelWriter(path) as writer:
        writer.append(_label("c1", correctness=4))
        writer.append(Label(case_id="c1", labeller="ana", time="t", labels=None))
    assert json.loads(path.read_text().splitlines()[1])["withdrawn"] is True
    assert current_labels(read_labels(path)) == {}


def test_a_second_writer_on_one_labels_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    with (
        LabelWriter(path),
        pytest.raises(LabelsLockedError, match="another `jury label` is writing"),
    ):
        LabelWriter(path)
    with LabelWriter(path):  # released when the first one closed
        pass


def test_a_torn_last_line_is_left_out_and_cut_before_the_next_label(tmp_path: Path) -> None:
    path = _write(tmp_path / "labels.jsonl", _label("c1", correctness=4).record())
    with path.open("a") as handle:
        handle.write('{"case_id": "c2", "lab')
    assert [label.case_id for label in read_labels(path)] == ["c1"]
    with LabelWriter(path) as writer:
        writer.append(_label("c2", correctness=1))
    assert [label.case_id for label in read_labels(path)] == ["c1", "c2"]


def test_every_malformed_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text(
        "\n".join(
            [
                json.dumps(_label("c1", correctness=4).record()),
                "not json",
                json.dumps({"case_id": "c1", "labeller": "ana", "time": "t"}),
                json.dumps({"case_id": "c1", "labels": {"x": 1}, "labeller": "", "time": "t"}),
                json.dumps({**_label("c1", correctness=4).record(), "colour": "red"}),
                json.dumps({**_label("c1", correctness=4).record(), "asked": "correctness"}),
                json.dumps({**_label("c1", correctness=4).record(), "asked": ["correctness"]}),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as caught:
        read_labels(path)
    message = str(caught.value)
    assert f"{path}:2: not JSON" in message
    assert f"{path}:3: labels:" in message
    assert f"{path}:4: labeller:" in message
    assert f"{path}:5: unknown field colour" in message
    assert f"{path}:6: asked: a list of the label fields the page asked for" in message
    assert f"{path}:1" not in message
    assert f"{path}:7" not in message  # "asked", as the page writes it


def test_an_unknown_case_and_a_value_off_the_scale_are_refused_with_their_lines(
    tmp_path: Path,
) -> None:
    path = _write(
        tmp_path / "labels.jsonl",
        _label("c1", correctness=4).record(),
        _label("nope", correctness=4).record(),
        _label("c1", correctness=6).record(),
        _label("c2", **{"pass": 1}).record(),
        _label("c2", tone=3).record(),
    )
    with pytest.raises(ConfigError) as caught:
        validate_labels(read_labels(path), CASES, RUBRIC, path)
    message = str(caught.value)
    assert f"{path}:2: case_id: no case with the ID 'nope'" in message
    assert f"{path}:3: labels.correctness: 6 is not on the rubric's scale" in message
    # 1 is not true: a bool label is a bool, whatever Python's int thinks.
    assert f"{path}:4: labels.pass: 1 is not on the rubric's scale (false, true)" in message
    assert f"{path}:5: labels.tone: not a label of this rubric" in message


def test_a_label_of_a_case_that_changed_since_is_flagged_not_used(tmp_path: Path) -> None:
    seen = case("c1", answer="Yes, within 30 days.")
    label = Label(
        case_id="c1", labeller="ana", time="t", labels={"pass": True}, case_hash=case_hash(seen)
    )
    path = _write(tmp_path / "labels.jsonl", label.record())
    kept, warnings = validate_labels(read_labels(path), {"c1": seen}, RUBRIC, path)
    assert [k.case_id for k in kept] == ["c1"]
    assert warnings == []
    changed = {"c1": seen.model_copy(update={"answer": "No."})}
    kept, warnings = validate_labels(read_labels(path), changed, RUBRIC, path)
    assert kept == []
    assert warnings == [
        f"{path}:1: case c1 changed since ana labelled it; the label is not used (label it again)"
    ]


def test_the_case_hash_ignores_the_cases_own_labels_only() -> None:
    base = case("c1")
    assert case_hash(base) == case_hash(base.model_copy(update={"labels": {"pass": True}}))
    assert case_hash(base) != case_hash(base.model_copy(update={"golden_answer": "No."}))


def test_labellers_majority_joins_the_cases_labels_and_a_tie_is_no_label(
    tmp_path: Path,
) -> None:
    path = _write(
        tmp_path / "labels.jsonl",
        _label("c1", "ana", **{"pass": True}, correctness=4).record(),
        _label("c1", "bo", **{"pass": True}, correctness=2).record(),
        _label("c1", "cy", **{"pass": False}).record(),
    )
    merged, ties = majority_labels(
        {"c1": {"ana": {"pass": True, "correctness": 4}, "bo": {"pass": True, "correctness": 2}}}
    )
    assert merged == {"c1": {"pass": True}}
    assert ties == ["c1 · correctness"]
    own = case("c1", labels={"relevance": 5})
    cases, warnings = with_file_labels([own, CASES["c2"]], [path], RUBRIC)
    assert cases[0].labels == {"relevance": 5, "pass": True}
    assert cases[1].labels == {}
    assert warnings == ["the labellers tied on c1 · correctness: no label there"]
