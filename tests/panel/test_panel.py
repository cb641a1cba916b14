"""Jury files: jurors as provider/model strings, settings, and errors that name the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from jury import JuryFileError, Panel, load_panel
from jury.cli import main

GOOD = """
rubric = "five-metric"
quorum = 2
aggregation = "median"
ties = "fail"
threshold = 4
concurrency = 8
samples = 1
jurors = ["offline/reference", { model = "offline/evidence", weight = 2.0 }]

[[juror]]
model = "offline/facts"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "jury.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_jury_file_with_string_and_table_jurors(tmp_path: Path) -> None:
    text = GOOD.replace('\n[[juror]]\nmodel = "offline/facts"\n', "")
    panel = load_panel(write(tmp_path, text))
    assert [j.id for j in panel.jurors] == ["offline/reference", "offline/evidence"]
    assert panel.jurors[1].weight == 2.0
    assert panel.thresholds == {"*": 4}
    assert panel.ties == "fail"
    assert panel.effective_quorum == 2


def test_juror_tables(tmp_path: Path) -> None:
    panel = load_panel(
        write(
            tmp_path,
            '[[juror]]\nmodel = "offline/facts"\nsamples = 3\n'
            'fallbacks = ["offline/reference"]\n[[juror]]\nmodel = "offline/evidence"\n',
        )
    )
    assert [j.id for j in panel.jurors] == ["offline/facts", "offline/evidence"]
    assert panel.samples_for(panel.jurors[0]) == 3
    assert panel.jurors[0].fallbacks == ("offline/reference",)


def test_default_quorum_is_a_majority() -> None:
    for count, quorum in ((1, 1), (2, 2), (3, 2), (4, 3), (5, 3)):
        panel = Panel(jurors=tuple({"model": f"offline/j{i}"} for i in range(count)))
        assert panel.effective_quorum == quorum


@pytest.mark.parametrize(
    ("text", "key", "reason"),
    [
        (
            'jurors = ["offline/reference", { model = "offline/evidence", wieght = 2 }]',
            "jurors[1].wieght",
            "unknown key",
        ),
        (
            'jurors = ["offline/reference"]\naggregation = "mode"',
            "aggregation",
            '"mode" is not one of median, mean, minimum, majority',
        ),
        (
            'jurors = ["offline/reference"]\n[retry]\nattempts = 0',
            "retry.attempts",
            "must be at least 1, got 0",
        ),
        ('jurors = ["reference"]', "jurors[0].model", "expected 'provider/model'"),
        ("quorum = 2", "jurors", "missing"),
        ('jurors = ["offline/reference"]\ntemprature = 0.2', "temprature", "unknown key"),
        (
            'jurors = ["offline/reference"]\n[providers.openai]\nrpm = -1',
            "providers.openai.rpm",
            "must be more than 0, got -1",
        ),
        ("jurors = [", "", "not valid TOML"),
        # NaN (valid TOML) fails every bound: "must be at most 1, got NaN" was no fix.
        (
            'jurors = ["offline/reference"]\n[gate]\nmin_pass_rate = nan',
            "gate.min_pass_rate",
            "expected a number, got NaN",
        ),
    ],
)
def test_a_bad_jury_file_names_the_key(tmp_path: Path, text: str, key: str, reason: str) -> None:
    with pytest.raises(JuryFileError) as caught:
        load_panel(write(tmp_path, text))
    assert caught.value.key == key
    assert reason in caught.value.reason
    assert key in str(caught.value)


def test_cli_exits_2_on_a_bad_jury_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"id": "a", "answer": "x"}\n', encoding="utf-8")
    jury_file = write(tmp_path, 'jurors = ["offline/reference"]\nquorom = 1\n')
    assert main(["run", str(cases), "--jury", str(jury_file)]) == 2
    assert "quorom: unknown key" in capsys.readouterr().err


def test_a_missing_jury_file(tmp_path: Path) -> None:
    with pytest.raises(JuryFileError, match="No such file"):
        load_panel(tmp_path / "absent.toml")


def test_relative_rubric_path_is_taken_from_the_jury_files_folder(tmp_path: Path) -> None:
    panel = load_panel(write(tmp_path, 'rubric = "mine.toml"\njurors = ["offline/facts"]'))
    assert panel.rubric == str(tmp_path / "mine.toml")
