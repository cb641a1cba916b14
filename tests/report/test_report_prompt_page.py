"""The prompt page's book (`jury.report._prompts`): a strategy seat's prompts are the rubric's
as its strategy asks them, kept beside the rubric's; a strategy the report cannot render is
named with the reason, never shown as the rubric's prompt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from report_run import CASES, record_run

from jury import load_rubric
from jury.adapters._strategy import strategy_named
from jury.report._prompts import prompt_book, schema_text, seat_prompts


def manifest_with(run: Path, *strategies: str) -> dict[str, Any]:
    manifest: dict[str, Any] = json.loads((run / "manifest.json").read_text("utf-8"))
    for strategy in strategies:
        seat = {"model": "openai/gpt-4o-2024-08-06", "strategy": strategy}
        manifest["jury"]["jurors"].append(seat)
    return manifest


def test_a_strategy_seats_prompts_are_the_rubrics_as_its_strategy_asks_them(
    tmp_path: Path,
) -> None:
    run = record_run(tmp_path / "run", tmp_path / "cases.jsonl")
    book = prompt_book(manifest_with(run, "cot"), CASES[:1])
    assert book.missing == ""
    assert book.strategies == {"openai/gpt-4o-2024-08-06+cot": "cot"}
    assert book.ways["cot"]["source"] == strategy_named("cot").source
    (view,) = book.cases[CASES[0].id]["strategies"]
    rubric = load_rubric("five-metric")
    (sent,) = seat_prompts(rubric, strategy_named("cot"), rubric.prompts(CASES[0]))
    (prompt,) = view["prompts"]
    assert book.shared[prompt["system"]]["text"] == sent.system
    assert book.shared[prompt["schema"]]["text"] == schema_text(sent.schema)
    assert book.shared[prompt["system"]]["used"] == ["strategy cot"]
    # Not the rubric's own texts, which the plain jurors were sent and are kept too.
    (plain,) = book.cases[CASES[0].id]["prompts"]
    assert prompt["system"] != plain["system"]
    assert prompt["user"] is None  # the same user text as the rubric's


def test_a_strategy_unknown_here_is_named_with_its_reason(tmp_path: Path) -> None:
    run = record_run(tmp_path / "run", tmp_path / "cases.jsonl")
    # Two seats of one model: one with a strategy this process does not know.
    book = prompt_book(manifest_with(run, "plain", "house_style"), CASES[:1])
    assert book.missing == ""
    assert "unknown strategy 'house_style'" in book.ways["house_style"]["error"]
    (view,) = book.cases[CASES[0].id]["strategies"]
    assert view["prompts"] == []
    assert view["error"] == book.ways["house_style"]["error"]
