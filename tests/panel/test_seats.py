"""A seat is a model and a strategy: its default name, duplicate seats, unknown strategies,
and a strategy the panel's rubric cannot take, each refused naming its key."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from jury import ConfigError, Juror, Jury, JuryFileError, Panel, load_panel
from jury.cli import main
from jury.testing import ScriptedModel

MODEL = "openai/gpt-4.1-mini-2025-04-14"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "jury.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_seat_is_named_by_its_model_and_strategy_and_plain_keeps_the_model_name() -> None:
    assert Juror(model=MODEL).id == MODEL
    assert Juror(model=MODEL, strategy="plain").id == MODEL
    assert Juror(model=MODEL, strategy="metrics").id == f"{MODEL}+metrics"
    assert Juror(model=MODEL, strategy="cot", name="thinker").id == "thinker"


def test_one_model_seated_with_two_strategies_is_two_seats(tmp_path: Path) -> None:
    panel = load_panel(
        write(
            tmp_path,
            f'[[jurors]]\nmodel = "{MODEL}"\n'
            f'[[jurors]]\nmodel = "{MODEL}"\nstrategy = "metrics_reference"\n',
        )
    )
    assert [j.id for j in panel.jurors] == [MODEL, f"{MODEL}+metrics_reference"]
    assert [j.strategy for j in panel.jurors] == ["plain", "metrics_reference"]


def test_the_same_model_with_the_same_strategy_twice_is_refused_naming_both_jurors(
    tmp_path: Path,
) -> None:
    text = f'[[jurors]]\nmodel = "{MODEL}"\nstrategy = "cot"\n' * 2
    with pytest.raises(JuryFileError) as caught:
        load_panel(write(tmp_path, text))
    message = str(caught.value)
    assert f"jurors[1] is the seat '{MODEL}+cot' again (jurors[0]" in message
    with pytest.raises(ValidationError, match="the same model with the same strategy"):
        Panel(jurors=(Juror(model=MODEL), Juror(model=MODEL, strategy="plain")))


def test_two_seats_of_one_model_and_one_strategy_may_sit_under_names_of_their_own() -> None:
    panel = Panel(jurors=(Juror(model=MODEL), Juror(model=MODEL, name="second", temperature=1)))
    assert [j.id for j in panel.jurors] == [MODEL, "second"]


def test_an_unknown_strategy_is_an_error_naming_the_key_and_the_known_ones(
    tmp_path: Path,
) -> None:
    text = (
        f'[[jurors]]\nmodel = "{MODEL}"\nstrategy = "metric"\n'
        f'[[jurors]]\nmodel = "{MODEL}"\nstrategy = "socratic"\n'
    )
    with pytest.raises(JuryFileError) as caught:
        load_panel(write(tmp_path, text))
    keys = dict(caught.value.problems)
    assert set(keys) == {"jurors[0].strategy", "jurors[1].strategy"}
    assert "unknown strategy 'metric' (did you mean 'metrics'?)" in keys["jurors[0].strategy"]
    for name in ("plain", "rules", "metrics", "reference", "metrics_reference", "cot"):
        assert name in keys["jurors[1].strategy"]


def test_rules_on_a_rubric_that_is_not_pairwise_is_refused_in_the_file_and_the_library(
    tmp_path: Path,
) -> None:
    text = f'rubric = "five-metric"\n[[jurors]]\nmodel = "{MODEL}"\nstrategy = "rules"\n'
    with pytest.raises(JuryFileError) as caught:
        load_panel(write(tmp_path, text))
    assert caught.value.key == "jurors[0].strategy"
    assert "applies to pairwise rubrics only, not to 'five-metric' (scale)" in caught.value.reason
    pairwise = text.replace("five-metric", "pairwise-preference")
    assert load_panel(write(tmp_path, pairwise)).jurors[0].strategy == "rules"
    with pytest.raises(ConfigError, match="pairwise rubrics only"):
        Jury(Panel(jurors=(Juror(model=ScriptedModel([{"reason": "r"}]), strategy="rules"),)))


def test_an_offline_juror_refuses_a_strategy_rather_than_ignore_it() -> None:
    with pytest.raises(ConfigError, match="an offline juror judges by its own measures"):
        Jury(Panel(jurors=(Juror(model="offline/reference", strategy="metrics"),)))
    # Plain is no strategy at all: offline jurors sit as they always did.
    Jury(Panel(jurors=(Juror(model="offline/reference", strategy="plain"),)))


def test_the_cli_exits_2_on_a_duplicate_seat_or_an_unknown_strategy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"id": "c1", "question": "q", "answer": "a"}\n', encoding="utf-8")
    twice = write(tmp_path, f'jurors = ["{MODEL}", "{MODEL}"]\n')
    assert main(["prompts", str(cases), "--jury", str(twice), "--snapshot", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "is the seat 'openai/gpt-4.1-mini-2025-04-14' again" in err
    assert "Traceback" not in err
    unknown = write(tmp_path, f'[[jurors]]\nmodel = "{MODEL}"\nstrategy = "nope"\n')
    assert main(["prompts", str(cases), "--jury", str(unknown), "--snapshot", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "jurors[0].strategy: unknown strategy 'nope'" in err
    assert "Traceback" not in err
