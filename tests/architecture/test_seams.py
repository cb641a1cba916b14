"""The seams of docs/architecture.md, checked on the source: built-in adapters and rubric kinds
are built from public names only (`jury`, `jury.adapters`, `jury.checks`...), as an outside one
must be.
Every import counts: deferred ones and those for the type checker too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from import_graph import ROOT

#: The packages that implement the seams, as a third party would.
IMPLEMENTERS = ("providers", "rubrics")


def _private(dotted: str) -> bool:
    """Whether a dotted name lies in the private part of `jury` (``jury.adapters._model``,
    ``jury.checks._pii``...)."""
    parts = dotted.split(".")
    return parts[0] == "jury" and any(_private_part(part) for part in parts[1:])


def _private_part(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_uses(source: str) -> list[str]:
    """Each place `source` reaches a private module or name of `jury`, as "line: what"."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [f"{node.lineno}: import {a.name}" for a in node.names if _private(a.name)]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [a.name for a in node.names]
            if _private(node.module) or (
                node.module.split(".")[0] == "jury"
                and any(_private(f"{node.module}.{name}") for name in names)
            ):
                found.append(f"{node.lineno}: from {node.module} import {', '.join(names)}")
        elif (
            isinstance(node, ast.Attribute)
            and _private(_dotted(node))
            and not _private(_dotted(node.value))  # the step into private, once
        ):
            found.append(f"{node.lineno}: {_dotted(node)}")
    return found


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else "?"


def implementer_files() -> list[Path]:
    return [path for package in IMPLEMENTERS for path in sorted((ROOT / package).rglob("*.py"))]


def test_providers_and_rubrics_use_only_public_names_of_jury() -> None:
    files = implementer_files()
    assert len(files) >= 10  # the scan found the packages
    reaching = {
        str(path.relative_to(ROOT)): uses
        for path in files
        if (uses := private_uses(path.read_text(encoding="utf-8")))
    }
    assert reaching == {}


@pytest.mark.parametrize(
    "source",
    [
        "from jury._errors import ConfigError",
        "import jury.adapters._prices",
        "from jury import _registry",
        "from jury.checks._pii import find",
        "def f():\n    from jury.adapters._rubric import case_fence",
        "if TYPE_CHECKING:\n    from jury._verdict import Score",
        "import jury\nx = jury.engine._limits.limits_for",
    ],
)
def test_a_private_use_is_found_wherever_it_hides(source: str) -> None:
    assert len(private_uses(source)) == 1


@pytest.mark.parametrize(
    "source",
    [
        "from jury import Case, __version__",
        "from jury.adapters import JudgeModel, case_fence",
        "from jury.checks import find_refusal",
        "from ._wire import Wire",
        "import jury.testing",
    ],
)
def test_public_and_package_local_imports_pass(source: str) -> None:
    assert private_uses(source) == []
