"""The README's example case, saved as it is printed (one object in a .json file), is refused
as one case with the way to give it, not as a file of another tool's; a conversation's turns
are not offered as a list of cases to point --root at."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jury import ConfigError, load_cases

CASES_PAGE = Path(__file__).parents[2] / "docs/cases.md"


def readme_case() -> str:
    cases = CASES_PAGE.read_text("utf-8").split("\n## Cases\n", 1)[1]
    return cases.split("```json\n", 1)[1].split("```", 1)[0]


def test_the_readme_case_as_a_json_file_is_refused_as_one_case_with_what_to_do(
    tmp_path: Path,
) -> None:
    path = tmp_path / "case.json"
    path.write_text(readme_case(), encoding="utf-8")
    with pytest.raises(
        ConfigError,
        match=r"it looks like one case: give it as a list \(\[\.\.\.\]\) or as a line of JSONL$",
    ):
        load_cases(path)
    # Given as the message says, it loads.
    path.write_text(f"[{readme_case()}]", encoding="utf-8")
    assert [c.id for c in load_cases(path)] == ["tool-status-01"]


def test_one_conversation_case_is_not_told_to_take_its_turns_as_the_root(tmp_path: Path) -> None:
    case = {
        "id": "c1",
        "turns": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
    }
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case), encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_cases(path)
    assert "--root turns" not in str(caught.value)
    assert "it looks like one case" in str(caught.value)
