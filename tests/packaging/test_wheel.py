"""The built wheel, installed into a fresh virtual environment: it claims one import name,
`jury`, and the built-in adapters and rubric kinds come from it as `jury.providers` and
`jury.rubrics`.

The wheel is built once for the module from the project's own files, offline (no index, no
build isolation: the backend is the test environment's hatchling). The fresh environment
reaches the test environment's dependencies through a path file, not its site directory:
that directory's path files (the editable install's import hook among them) are not run
there, so nothing but the wheel can provide `jury`; the first test checks exactly that.
"""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest
from extras import needs

ROOT = Path(__file__).resolve().parents[2]

# Building and installing take seconds, more on a loaded machine; the default 60 covers a test.
# The wheel is built with the test environment's hatchling (the test extra).
pytestmark = [pytest.mark.timeout(240), needs("test")]


class Installed:
    def __init__(self, wheel: Path, python: Path, site_packages: Path, work: Path) -> None:
        self.wheel = wheel
        self.python = python
        self.site_packages = site_packages
        self.work = work

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        # Run from an empty folder: the current directory comes first on sys.path, and the
        # repository's root there would provide `jury` from the source tree.
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        return subprocess.run(
            args, cwd=self.work, env=env, capture_output=True, text=True, timeout=180, check=False
        )


def _call(*args: str | Path) -> None:
    done = subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, timeout=180, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    base = tmp_path_factory.mktemp("wheel")
    dist = base / "dist"
    pip = (sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input")
    _call(*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", dist, ROOT)
    (wheel,) = dist.glob("aiojury-*.whl")
    env = base / "env"
    venv.create(env, with_pip=False)
    python = env / "bin" / "python"
    (site_packages,) = (env / "lib").glob("python3*/site-packages")
    (site_packages / "test_dependencies.pth").write_text(
        "\n".join(site.getsitepackages()) + "\n", encoding="utf-8"
    )
    _call(*pip, "--python", python, "install", "--no-deps", "--no-index", wheel)
    work = base / "work"
    work.mkdir()
    return Installed(wheel, python, site_packages, work)


#: Run by the fresh environment's interpreter: where `jury` and its built-ins come from, and
#: what of them loads. The registry is reached as the engine reaches it (`resolve_model` and
#: `builtin_rubrics` have no public name).
PROBE = """
import importlib, json
import jury, jury.providers, jury.rubrics
from jury.adapters import JudgeModel
from jury.adapters import _registry

missing = []
for name in ("providers", "rubrics"):
    try:
        importlib.import_module(name)
    except ModuleNotFoundError:
        missing.append(name)
targets = {p: t for p, (t, _) in jury.providers.BUILTIN.items()} | jury.rubrics.KINDS
loaded = {}
for name, target in targets.items():
    module, _, attr = target.partition(":")
    loaded[name] = callable(getattr(importlib.import_module(module), attr))
juror = _registry.resolve_model("offline/facts")
print(json.dumps({
    "files": [jury.__file__, jury.providers.__file__, jury.rubrics.__file__],
    "missing": missing,
    "loaded": loaded,
    "juror": type(juror).__module__,
    "is_judge": isinstance(juror, JudgeModel),
    "rubrics": {n: jury.load_rubric(n).kind for n in _registry.builtin_rubrics()},
}))
"""


def _probe(installed: Installed) -> dict[str, object]:
    done = installed.run(str(installed.python), "-c", PROBE)
    assert done.returncode == 0, done.stderr
    probed: dict[str, object] = json.loads(done.stdout)
    return probed


def test_the_wheel_holds_only_the_jury_package_and_its_metadata(installed: Installed) -> None:
    names = zipfile.ZipFile(installed.wheel).namelist()
    assert {name.split("/")[0] for name in names} == {"jury", "aiojury-0.1.0.dist-info"}
    assert "jury/providers/offline/__init__.py" in names
    assert "jury/rubrics/builtin/five-metric.toml" in names
    assert [n for n in names if n.endswith(".pth")] == []  # nothing adds a path at start-up


def test_jury_and_its_built_ins_are_imported_from_the_installed_wheel(
    installed: Installed,
) -> None:
    probed = _probe(installed)
    files = probed["files"]
    assert isinstance(files, list)
    for file in files:
        assert Path(file).is_relative_to(installed.site_packages), file
    assert probed["missing"] == ["providers", "rubrics"]


def test_every_built_in_adapter_and_rubric_kind_loads_from_the_wheel(
    installed: Installed,
) -> None:
    probed = _probe(installed)
    loaded = probed["loaded"]
    assert isinstance(loaded, dict)
    assert {"offline", "openai", "anthropic", "google", "replay"} <= set(loaded)
    assert {"scale", "points", "criterion", "pairwise"} <= set(loaded)
    assert all(loaded.values())
    assert probed["juror"] == "jury.providers.offline"
    assert probed["is_judge"] is True
    rubrics = probed["rubrics"]
    assert isinstance(rubrics, dict)
    assert rubrics["five-metric"] == "scale"
    assert rubrics["shopnest-points"] == "points"


def test_the_installed_command_runs_the_example_and_fails_its_gate(installed: Installed) -> None:
    jury = installed.python.parent / "jury"
    cases = ROOT / "examples" / "shopnest" / "cases.jsonl"
    out = installed.work / "run"
    done = installed.run(str(jury), "run", str(cases), "--out", str(out), "--progress", "none")
    # The example holds broken answers: the gate fails (exit 1), it does not crash (exit 2).
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Gate FAILED" in done.stdout
    verdicts = (out / "verdicts.jsonl").read_text(encoding="utf-8").splitlines()
    lines = cases.read_text(encoding="utf-8").splitlines()
    assert len(verdicts) == sum(1 for line in lines if line.strip())
