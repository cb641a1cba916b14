"""The build's map of the repository's top-level `providers/` and `rubrics/` to the packages
`jury.providers` and `jury.rubrics` (docs/architecture.md: three top-level folders, one import
name).

A wheel holds them inside `jury/` (``force-include`` in pyproject.toml). An editable install
maps `jury` to the checkout with an import hook (``dev-mode-exact``), and hatchling cannot map
a folder under another package's name in one (it refuses a ``sources`` rewrite that adds a
prefix, pfmoore/editables#20, and ``force-include`` would copy the files, which would then go
stale). So the editable wheel gets, instead of those copies, a path file and a finder that
answer for `jury.providers` and `jury.rubrics` with the checkout's folders: their modules are
then found inside them as any package's are.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

FINDER = '''\
"""aiojury's editable install: the checkout's providers/ and rubrics/ as jury.providers and
jury.rubrics (written by hatch_build.py; a wheel holds them inside jury/)."""

import importlib.util
import sys

FOLDERS = {folders!r}


class Finder:
    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        folder = FOLDERS.get(fullname)
        if folder is None:
            return None
        return importlib.util.spec_from_file_location(
            fullname, folder + "/__init__.py", submodule_search_locations=[folder]
        )


def install():
    if Finder not in sys.meta_path:
        sys.meta_path.append(Finder)
'''

NAME = "_aiojury_folders"


class FoldersHook(BuildHookInterface):  # type: ignore[type-arg]
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version != "editable":
            return
        folders = {
            f"jury.{name}": os.path.join(self.root, name) for name in ("providers", "rubrics")
        }
        self._made = tempfile.mkdtemp(prefix="aiojury-editable-")
        finder = os.path.join(self._made, f"{NAME}.py")
        with open(finder, "w", encoding="utf-8") as file:
            file.write(FINDER.format(folders=folders))
        start = os.path.join(self._made, f"{NAME}.pth")
        with open(start, "w", encoding="utf-8") as file:
            file.write(f"import {NAME}; {NAME}.install()\n")
        # In place of pyproject's force-include, which would copy the folders.
        build_data["force_include_editable"] = {finder: f"{NAME}.py", start: f"{NAME}.pth"}

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        made = getattr(self, "_made", None)
        if made:
            import shutil

            shutil.rmtree(made, ignore_errors=True)
