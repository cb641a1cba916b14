"""The README's examples are real: its case line loads and its jury file parses."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from jury import Case
from jury._panel import panel_from_mapping

README = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")


def block(after: str, language: str) -> str:
    section = README[README.index(after) :]
    found = re.search(rf"```{language}\n(.*?)```", section, re.S)
    assert found is not None
    return found.group(1)


def test_the_case_example_loads_as_documented() -> None:
    case = Case.model_validate(json.loads(block("## Cases", "json")))
    assert case.expected_tool == "getOrderStatus"
    assert case.answer is not None
    assert case.trace.tool_calls[0].arguments == "ORD-101"


def test_the_jury_file_example_parses() -> None:
    panel = panel_from_mapping(tomllib.loads(block("## Jury file", "toml")))
    assert panel.effective_quorum == 2
    assert panel.retry.retry_after_cap == 120
    assert [j.id for j in panel.jurors] == [
        "anthropic/claude-haiku-4-5-20251001",
        "openai/gpt-4.1-mini-2025-04-14",
    ]


def test_the_real_judges_example_parses() -> None:
    panel = panel_from_mapping(tomllib.loads(block("## Real judges", "toml")))
    assert panel.jurors[2].family == "meta"
    assert panel.providers["openai"].rpm == 500
