"""The layout rules of DESIGN.md, checked on the source: no import circle, commands that do
not import each other, and the engine reaching providers and rubrics only by name."""

from __future__ import annotations

from import_graph import cycles, import_graph


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
