"""The layout rules of DESIGN.md, checked on the source: no import circle, commands that do
not import each other, and the engine reaching providers and rubrics only by name."""

from __future__ import annotations

import ast

from import_graph import ROOT, cycles, import_graph


def test_no_module_imports_itself_back_through_a_circle() -> None:
    assert cycles(import_graph()) == []


def test_a_cycle_is_found_when_two_modules_import_each_other() -> None:
    graph = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_no_command_module_imports_another() -> None:
    graph = import_graph()
    commands = {name for name in graph if name.startswith("jury.cli._")} - {
        "jury.cli._main",
        "jury.cli._options",
    }
    crossing = {
        name: sorted(target for target in graph[name] if target in commands)
        for name in sorted(commands)
    }
    assert {name: targets for name, targets in crossing.items() if targets} == {}


def test_the_engine_names_no_provider_or_rubric_module() -> None:
    graph = import_graph()
    reaching = {
        name: sorted(t for t in targets if t.split(".")[0] in ("providers", "rubrics"))
        for name, targets in graph.items()
        if name.split(".")[0] == "jury"
    }
    assert {name: targets for name, targets in reaching.items() if targets} == {}


#: Modules allowed past the size limit: the statistics core (coefficients and panel analyses).
STATISTICS_CORE = {"jury/agreement/_reliability.py", "jury/agreement/_panel.py"}
MODULE_LINES = 450
CLASS_LINES = 250


def test_no_module_of_the_engine_is_over_450_lines() -> None:
    too_long = {
        str(path.relative_to(ROOT)): lines
        for path in sorted((ROOT / "jury").rglob("*.py"))
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LINES
        and str(path.relative_to(ROOT)) not in STATISTICS_CORE
    }
    assert too_long == {}


def test_no_class_of_the_engine_is_over_250_lines() -> None:
    too_long = {}
    for path in sorted((ROOT / "jury").rglob("*.py")):
        if path.parent.name == "testing":
            continue  # test helpers: the fake server is one class by design
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                lines = node.end_lineno - node.lineno + 1
                if lines > CLASS_LINES:
                    too_long[f"{path.relative_to(ROOT)}:{node.name}"] = lines
    assert too_long == {}


def test_no_module_path_of_a_provider_or_rubric_kind_is_written_in_the_engine() -> None:
    # Import paths as strings ("providers.openai:create") would bypass the import graph: the
    # built-ins' tables live in their own packages (`providers.BUILTIN`, `rubrics.KINDS`).
    named: dict[str, list[str]] = {}
    for path in sorted((ROOT / "jury").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and node.value.startswith(("providers.", "rubrics."))
            ):
                named.setdefault(str(path.relative_to(ROOT)), []).append(node.value)
    assert named == {}
