"""The project's import graph, read from the source with `ast` (nothing is imported), once per
test session.

Every import statement counts: at module level, under ``if TYPE_CHECKING:`` (a type the checker
needs is a dependency all the same: a circle through it is a type in the wrong module) and
inside functions (a deferred import is still a dependency). Importing ``a.b.c`` imports the
packages ``a.b`` and ``a`` first, so their ``__init__`` modules count as imported too, except the
packages that hold the importer (Python has imported them before the importer runs)."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("jury", "providers", "rubrics")
#: The repository's top-level folders that are subpackages of `jury` (the build maps them in:
#: pyproject.toml's force-include, hatch_build.py for an editable install).
SUBPACKAGES = ("providers", "rubrics")


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    if parts[0] in SUBPACKAGES:
        parts.insert(0, "jury")
    return ".".join(parts)


def source_files() -> Iterator[Path]:
    for package in PACKAGES:
        yield from sorted((ROOT / package).rglob("*.py"))


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node


def imports_of(path: Path, known: set[str], root: Path = ROOT) -> dict[str, int]:
    """The project modules `path` imports, each with the line of its first import."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: dict[str, int] = {}
    for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                origin = ".".join([*base, *([node.module] if node.module else [])])
            else:
                origin = node.module or ""
            submodules = [f"{origin}.{alias.name}" for alias in node.names]
            # `from package import module` imports the module (its package is imported
            # first in any case); `from package import name` depends on the package itself.
            targets = [*submodules] if all(m in known for m in submodules) else [origin]
        for dotted in targets:
            # The nearest project module that the name is, or lies inside, and the packages
            # around it that are not around the importer.
            target = dotted
            while target and target not in known:
                target = target.rpartition(".")[0]
            while target:
                if target != name and not _holds(target, name) and target in known:
                    found.setdefault(target, node.lineno)
                target = target.rpartition(".")[0]
    return found


def _holds(package: str, module: str) -> bool:
    return module.startswith(package + ".")


@functools.cache
def import_graph() -> dict[str, dict[str, int]]:
    files = list(source_files())
    known = {module_name(path) for path in files}
    return {module_name(path): imports_of(path, known) for path in files}


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Every strongly connected group of modules larger than one (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, {}):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups
