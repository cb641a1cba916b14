"""Expected tool calls give one verdict on every path: the library (`Jury`), `jury run` and
the pytest plugin all run the tool_calls check through the same suite."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from jury import CheckOutcome, Jury, default_panel, load_cases

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
GOLD = "It is sunny in Paris, and there is no news of rain."
EXPECTED = [
    {"name": "weather", "arguments": {"city": "Paris"}},
    {"name": "news", "arguments": {"topic": "rain"}},
]


def record(case_id: str, city: str) -> dict[str, Any]:
    return {
        "id": case_id,
        "question": "What is the weather in Paris, and is there news of rain?",
        "answer": GOLD,
        "golden_answer": GOLD,
        "expected_tool_calls": EXPECTED,
        "trace": {
            "tool_calls": [
                {"name": "weather", "arguments": {"city": city}, "result": "sunny"},
                {"name": "news", "arguments": {"topic": "rain"}, "result": "none"},
            ],
            "context": [GOLD],
        },
    }


PLUGIN_TEST = """
import json
from pathlib import Path

import pytest
from jury import Case, CheckOutcome

@pytest.mark.jury
async def test_every_case(judge):
    out = {}
    for line in Path("cases.jsonl").read_text().splitlines():
        verdict = await judge.judge(Case.model_validate_json(line))
        failed = [c.name for c in verdict.checks if c.outcome is CheckOutcome.FAIL]
        out[verdict.case_id] = [verdict.verdict.value, failed]
    Path("plugin.json").write_text(json.dumps(out))
"""


async def by_library(path: Path) -> dict[str, list[Any]]:
    async with Jury(default_panel()) as jury:
        return {
            v.case_id: [
                v.verdict.value,
                [c.name for c in v.checks if c.outcome is CheckOutcome.FAIL],
            ]
            async for v in jury.evaluate(load_cases(path))
        }


def test_the_library_the_cli_and_the_plugin_give_the_same_tool_calls_verdicts(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases_file = pytester.path / "cases.jsonl"
    cases_file.write_text(
        "".join(json.dumps(r) + "\n" for r in (record("made", "Paris"), record("other", "Lyon")))
    )
    monkeypatch.chdir(pytester.path)
    monkeypatch.setenv("JURY_CACHE_DIR", str(pytester.path / "cache"))

    library = asyncio.run(by_library(cases_file))

    # In a process of its own: run in this one, its report's first import of numpy would be
    # undone by pytester's restoring of sys.modules, and numpy cannot load twice.
    done = subprocess.run(
        [sys.executable, "-m", "jury", "run", "cases.jsonl", "--out", "run"],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    by_cli = {}
    for line in (pytester.path / "run" / "verdicts.jsonl").read_text().splitlines():
        data = json.loads(line)
        failed = [c["name"] for c in data["checks"] if c["outcome"] == "fail"]
        by_cli[data["case_id"]] = [data["verdict"], failed]

    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.delenv("JURY_RUN", raising=False)
    pytester.makeini("[pytest]\nasyncio_mode = auto\n")
    pytester.makepyfile(test_tool_calls_case=PLUGIN_TEST)
    result = pytester.runpytest_subprocess(
        "-p", "jury.pytest_plugin", "-p", "pytest_asyncio.plugin", "-p", "no:cacheprovider",
        "--jury", "test_tool_calls_case.py",
    )  # fmt: skip
    result.assert_outcomes(passed=1)
    by_plugin = json.loads((pytester.path / "plugin.json").read_text())

    assert (
        library
        == by_cli
        == by_plugin
        == {
            "made": ["PASS", []],
            "other": ["FAIL", ["tool_calls"]],
        }
    )
