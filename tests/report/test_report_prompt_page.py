"""The prompt page's book (`jury.report._prompts`): a strategy seat's prompts are the rubric's
as its strategy asks them, kept beside the rubric's; a strategy the report cannot render is
named with the reason, never shown as the rubric's prompt."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from report_run import CASES, record_run

from jury import load_rubric
from jury._version import __version__
from jury.adapters._strategy import strategy_named
from jury.cli import main
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


def strategy_page(run: Path, out: Path, recorded_version: str | None) -> str:
    """The HTML report of `run`, its manifest given a `cot` seat and, when given, another
    aiojury version than this one as the one that recorded it."""
    manifest = manifest_with(run, "cot")
    if recorded_version is not None:
        manifest["versions"]["aiojury"] = recorded_version
    (run / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    main(["report", str(run), "--html", str(out)])
    page = out.read_text(encoding="utf-8")
    return html.unescape(page[page.index('<section id="prompts">') :])


def test_the_prompt_page_warns_when_another_version_recorded_the_run(tmp_path: Path) -> None:
    run = record_run(tmp_path / "run", tmp_path / "cases.jsonl")
    page = strategy_page(run, tmp_path / "report.html", "0.0.9")
    warning = re.search(r'<p class="warn" id="prompt-version">(.*?)</p>', page, re.S)
    assert warning is not None
    shown = "recorded with aiojury 0.0.9, and the strategies' prompts shown are aiojury "
    shown += f"{__version__}'s"
    assert shown in warning.group(1)
    assert "may differ from those its seats were sent" in warning.group(1)


def test_the_prompt_page_does_not_warn_when_this_version_recorded_the_run(
    tmp_path: Path,
) -> None:
    run = record_run(tmp_path / "run", tmp_path / "cases.jsonl")
    page = strategy_page(run, tmp_path / "report.html", None)
    assert f"these are aiojury {__version__}'s" in page
    assert 'id="prompt-version"' not in page
    assert "may differ" not in page
