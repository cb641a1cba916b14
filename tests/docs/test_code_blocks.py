"""Every code block of the manual (docs/) and of the README runs here (issue 33), so that a
snippet cannot drift from the code:

- ``python``: executed, each page's blocks in order in one namespace, in a scratch folder
  holding a copy of ``examples/``, with no provider key set; a ``test_*`` function a block
  defines is then run too, given ``monkeypatch`` and ``tmp_path`` when it asks for them;
- ``toml``: parsed, and loaded as what it is (a jury file, a part of one, a rubric file);
- ``json`` and ``jsonl``: parsed; a record shaped like a case is loaded as a case;
- ``bash``: each ``jury ...`` command parsed by the `jury` command's own parser (an option
  renamed or removed fails here); other commands (pip, export, python -m...) are left;
- ``yaml``: parsed;
- ``text``: output shown to the reader, not code.

No snippet may import a private module (a name starting with ``_``): what the manual shows is
what a user may use.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import shlex
import shutil
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from extras import require

from jury import Case, load_cases, load_rubric
from jury.cli._main import build_parser
from jury.panel._panel import panel_from_mapping

# Sybil finds the blocks (its parser is subclassed below) and PyYAML reads the YAML ones.
require("test")
import yaml  # noqa: E402
from sybil import Example, Sybil  # noqa: E402
from sybil.parsers.markdown import CodeBlockParser, PythonCodeBlockParser  # noqa: E402

ROOT = Path(__file__).parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CHECKED = {"python", "toml", "json", "jsonl", "bash", "yaml"}
#: The keys of a jury file: a TOML block with one of them is (a part of) a jury file.
JURY_KEYS = {
    "jurors",
    "juror",
    "tier",
    "gate",
    "providers",
    "checks",
    "fields",
    "batch",
    "compare",
    "retry",
    "quorum",
    "aggregation",
    "rubric",
}
#: A case's own keys: a JSON record with one of them is loaded as a case.
CASE_KEYS = {"question", "golden_answer", "answer", "expected_behaviour", "turns"}


def fences(text: str) -> Iterator[tuple[int, str]]:
    """(line, language) of each code block's opening fence."""
    inside = False
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("```"):
            if not inside:
                yield number, line[3:].strip()
            inside = not inside


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_block_says_a_language_the_suite_checks(page: Path) -> None:
    found = {f"line {n}: {language or '(none)'}" for n, language in fences(page.read_text())}
    unchecked = {f for f in found if f.split(": ")[1] not in CHECKED | {"text"}}
    assert unchecked == set()


def _toml(example: Example) -> None:
    text = str(example.parsed)
    data = tomllib.loads(text)
    if "kind" in data:
        path = Path(f"rubric-{example.line}.toml")
        path.write_text(text, encoding="utf-8")
        load_rubric(str(path))
    elif JURY_KEYS & set(data):
        given = (
            data
            if {"jurors", "juror", "tier"} & set(data)
            else {
                "jurors": ["offline/reference"],
                **data,
            }
        )
        panel_from_mapping(given)
    else:
        raise AssertionError(f"line {example.line}: a TOML block that is no jury or rubric file")


def _records(example: Example) -> list[Any]:
    text = str(example.parsed)
    if example.region.lexemes.get("language") == "jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return [json.loads(text)]


def _json(example: Example) -> None:
    for record in _records(example):
        if isinstance(record, dict) and CASE_KEYS & set(record):
            path = Path(f"case-{example.line}.jsonl")
            path.write_text(json.dumps(record) + "\n", encoding="utf-8")
            (case,) = load_cases(path)
            assert isinstance(case, Case)


def _commands(text: str) -> Iterator[list[str]]:
    """Each ``jury`` command of a shell block, as its arguments."""
    for given in re.sub(r"\\\n\s*", " ", text).splitlines():
        line = given.strip().removeprefix("$ ")
        for part in re.split(r"&&|\|\||;", line):
            words = shlex.split(part.split(" | ")[0].split(" > ")[0], comments=True)
            while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):
                words = words[1:]  # VAR=value before the command
            if words[:3] == ["python", "-m", "jury"]:
                words = ["jury", *words[3:]]
            if words[:1] == ["jury"]:
                yield words[1:]


def _bash(example: Example) -> None:
    parser = build_parser()
    for arguments in _commands(str(example.parsed)):
        try:
            parser.parse_args(arguments)
        except SystemExit as exc:
            if exc.code not in (0, None):  # --help and --version exit 0
                raise AssertionError(f"line {example.line}: jury {shlex.join(arguments)}") from None


def _yaml(example: Example) -> None:
    yaml.safe_load(str(example.parsed))


def _python_imports_no_private_module(example: Example) -> None:
    for found in re.finditer(r"^\s*(?:from|import)\s+([\w.]+)", str(example.parsed), re.M):
        private = [part for part in found.group(1).split(".") if part.startswith("_")]
        assert not private, f"line {example.line}: imports {found.group(1)}"


class _Python(PythonCodeBlockParser):
    """Python blocks: no private import, then run; a test function they define is run too."""

    def __init__(self, tests: list[tuple[str, Any]]) -> None:
        super().__init__()
        self.tests = tests

    def __call__(self, document: Any) -> Iterator[Any]:
        for region in super().__call__(document):
            evaluate = region.evaluator

            def checked(example: Example, evaluate: Any = evaluate) -> Any:
                _python_imports_no_private_module(example)
                before = set(example.namespace)
                result = evaluate(example)
                for name in set(example.namespace) - before:
                    if name.startswith("test_") and callable(example.namespace[name]):
                        self.tests.append((name, example.namespace[name]))
                return result

            region.evaluator = checked
            yield region


def _run_test(function: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    given = {"monkeypatch": monkeypatch, "tmp_path": tmp_path}
    wanted = inspect.signature(function).parameters
    if not set(wanted) <= set(given):
        return  # a pytest-plugin example: its fixtures are the plugin's, tested there
    result = function(**{name: given[name] for name in wanted})
    if inspect.iscoroutine(result):
        asyncio.run(result)


@pytest.mark.timeout(180)
@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_code_block_of_the_page_runs(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("JURY_CACHE_DIR", str(tmp_path / "cache"))
    tests: list[tuple[str, Any]] = []
    sybil = Sybil(
        parsers=[
            _Python(tests),
            CodeBlockParser("toml", _toml),
            CodeBlockParser("json", _json),
            CodeBlockParser("jsonl", _json),
            CodeBlockParser("bash", _bash),
            CodeBlockParser("yaml", _yaml),
        ]
    )
    document = sybil.parse(page)
    for example in document.examples():
        example.evaluate()
    for _, function in tests:
        with monkeypatch.context() as patched:
            _run_test(function, patched, tmp_path / "t")
