"""The layout rules of docs/architecture.md, checked on the source: no import circle, commands
that do not import each other, and the engine reaching providers and rubrics only by name."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from import_graph import PACKAGES, ROOT, cycles, import_graph, imports_of, module_name


def test_no_module_imports_itself_back_through_a_circle() -> None:
    assert cycles(import_graph()) == []


def _package(module: str) -> str:
    """The subpackage of `jury` a module belongs to (``jury.engine``), or the module itself
    for the root's modules (``jury._errors``) and the front door (``jury``)."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "jury" and len(parts) > 1 else parts[0]


def test_no_subpackage_imports_itself_back_through_another() -> None:
    # Counted as the modules are: imports for the type checker and inside functions too.
    graph: dict[str, dict[str, int]] = {}
    for module, targets in import_graph().items():
        edges = graph.setdefault(_package(module), {})
        for target in targets:
            if _package(target) != _package(module):
                edges[_package(target)] = 1
    assert cycles(graph) == []


def _allowed() -> dict[str, set[str]]:
    """The table "What each package may import" of docs/architecture.md."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = text[text.index("## What each package may import") :]
    rows = re.findall(r"^\| `([\w.]+)` \| (.+) \|$", table, re.M)
    return {name: set(re.findall(r"`([\w.]+)`", targets)) for name, targets in rows}


def _root(module: str) -> str:
    """A module's package as the table names it: the front door and the root's vocabulary
    modules are `jury`."""
    parts = module.split(".")
    if parts[0] != "jury" or len(parts) == 1 or parts[1].startswith("_"):
        return parts[0] if parts[0] != "jury" or len(parts) == 1 else "jury"
    return f"jury.{parts[1]}"


def test_each_package_imports_only_what_the_architecture_page_allows() -> None:
    allowed = _allowed()
    assert "jury.engine" in allowed  # the table was found and read
    beyond: dict[str, set[str]] = {}
    for module, targets in import_graph().items():
        package = _root(module)
        if package == "jury":
            continue
        for target in map(_root, targets):
            if target != package and target not in allowed.get(package, set()):
                beyond.setdefault(f"{package} -> {target}", set()).add(module)
    assert beyond == {}


def test_a_cycle_is_found_when_two_modules_import_each_other() -> None:
    graph = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_an_import_for_the_type_checker_or_inside_a_function_counts(tmp_path: Path) -> None:
    package = tmp_path / "jury"
    package.mkdir()
    (package / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n"
        "def f():\n    from .c import C\n",
        encoding="utf-8",
    )
    known = {"jury", "jury.a", "jury.b", "jury.c"}
    assert set(imports_of(package / "a.py", known, root=tmp_path)) == {"jury.b", "jury.c"}


def test_importing_a_module_of_another_package_imports_that_packages_init(
    tmp_path: Path,
) -> None:
    for folder in ("jury/x", "jury/y"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "jury/x/a.py").write_text("from ..y.b import B\nfrom .c import C\n")
    known = {"jury", "jury.x", "jury.x.a", "jury.x.c", "jury.y", "jury.y.b"}
    # jury.x and jury are around the importer: imported before it runs, not by it.
    found = imports_of(tmp_path / "jury/x/a.py", known, root=tmp_path)
    assert set(found) == {"jury.y.b", "jury.y", "jury.x.c"}


def _commands() -> set[str]:
    """The modules of `jury.cli` that register a subcommand (a top-level ``register``)."""
    found = set()
    for path in sorted((ROOT / "jury" / "cli").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(n, ast.FunctionDef) and n.name == "register" for n in tree.body):
            found.add(module_name(path))
    return found


def test_no_command_module_imports_another() -> None:
    graph = import_graph()
    commands = _commands()
    assert len(commands) >= 12  # every subcommand of `jury --help`
    crossing = {
        name: sorted(target for target in graph[name] if target in commands)
        for name in sorted(commands)
    }
    assert {name: targets for name, targets in crossing.items() if targets} == {}


def test_the_commands_parse_and_print_and_reach_no_engine_runs_or_batch_internal() -> None:
    # `jury.run`, `jury.Run`, `jury.rescore`, `jury.merge` and the public modules are what
    # a command calls; the pipeline behind them is the library's (issue 33).
    graph = import_graph()
    inside = ("jury.engine", "jury.batch", "jury.runs.")
    reaching = {
        name: sorted(t for t in targets if t.startswith(inside))
        for name, targets in graph.items()
        if name.startswith("jury.cli")
    }
    assert {name: found for name, found in reaching.items() if found} == {}


#: The commands that are shells over a library function of the runner (`jury.run`,
#: `jury.rescore`, `jury.merge`, `jury.compare`, `jury.measure_agreement`, `jury.calibrate`,
#: the labelling of a run).
SHELLS = {
    f"jury.cli._{name}"
    for name in ("run", "rescore", "merge", "compare", "agreement", "calibrate", "label")
}


def test_the_library_commands_reach_no_statistics_panel_or_case_internal() -> None:
    # Their pipelines are the library's: a shell may name public modules (`jury.agreement`
    # for the types it prints), the runner it calls and the reports it prints with.
    graph = import_graph()
    inside = ("jury.agreement._", "jury.panel", "jury.cases.", "jury.decide", "jury.checks")
    reaching = {
        name: sorted(t for t in graph[name] if t.startswith(inside)) for name in sorted(SHELLS)
    }
    assert {name: found for name, found in reaching.items() if found} == {}


#: The packages of the built-in adapters and rubric kinds, inside `jury` but reached by the
#: engine only by name.
IMPLEMENTERS = ("jury.providers", "jury.rubrics")


def _inside(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def test_the_engine_names_no_provider_or_rubric_module() -> None:
    graph = import_graph()
    assert any(_inside(name, IMPLEMENTERS) for name in graph)  # the scan found them
    reaching = {
        name: sorted(t for t in targets if _inside(t, IMPLEMENTERS))
        for name, targets in graph.items()
        if not _inside(name, IMPLEMENTERS)
    }
    assert {name: targets for name, targets in reaching.items() if targets} == {}


def _absolute_imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def test_nothing_imports_the_folders_by_their_top_level_names() -> None:
    # One name per module: `jury.providers.x` imported as `providers.x` too would be a second
    # module object (its classes fail isinstance checks against the first), and the installed
    # wheel has no top-level `providers` or `rubrics`.
    folders = (*PACKAGES, "tests", "benchmarks", "examples")
    named = {
        f"{path.relative_to(ROOT)}:{line}": module
        for folder in folders
        for path in sorted((ROOT / folder).rglob("*.py"))
        for line, module in _absolute_imports(path)
        if module.split(".")[0] in ("providers", "rubrics")
    }
    assert named == {}


def test_providers_and_rubrics_import_their_own_modules_relatively() -> None:
    # Absolute imports inside them name public `jury` modules only, as a third party's would.
    named = {
        f"{path.relative_to(ROOT)}:{line}": module
        for folder in ("providers", "rubrics")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for line, module in _absolute_imports(path)
        if _inside(module, IMPLEMENTERS)
    }
    assert named == {}


def test_the_folders_are_subpackages_of_jury_without_a_link_inside_it() -> None:
    # The build maps them (pyproject.toml's force-include; hatch_build.py for an editable
    # install): jury/ holds no link, so a checkout needs no symbolic links.
    import jury.providers
    import jury.rubrics

    for folder, package in (("providers", jury.providers), ("rubrics", jury.rubrics)):
        assert not (ROOT / "jury" / folder).exists()
        assert package.__file__ is not None
        assert Path(package.__file__).resolve() == (ROOT / folder / "__init__.py").resolve()
    assert [path for path in ROOT.joinpath("jury").rglob("*") if path.is_symlink()] == []


#: The folder allowed past the module size limit: the statistics core (coefficients and
#: panel analyses).
STATISTICS_CORE = ROOT / "jury" / "agreement"
MODULE_LINES = 450
CLASS_LINES = 250


def _sources() -> list[Path]:
    return [path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))]


def test_no_module_is_over_450_lines() -> None:
    too_long = {
        str(path.relative_to(ROOT)): lines
        for path in _sources()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LINES
        and STATISTICS_CORE not in path.parents
    }
    assert too_long == {}


def test_no_class_is_over_250_lines() -> None:
    too_long = {}
    for path in _sources():
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
    # built-ins' tables live in their own packages (`jury.providers.BUILTIN`, `jury.rubrics.KINDS`).
    named: dict[str, list[str]] = {}
    for path in sorted((ROOT / "jury").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and node.value.startswith(
                    ("providers.", "rubrics.", "jury.providers.", "jury.rubrics.")
                )
            ):
                named.setdefault(str(path.relative_to(ROOT)), []).append(node.value)
    assert named == {}
