"""Tests say which optional extra they need (issue 33, item 7): after ``pip install .`` and
the test tools alone, the suite has no error from a missing extra, each such test skipped
naming its extra; in CI, which installs every extra, a missing one fails instead."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from extras import ALL_EXTRAS, EXTRAS, missing, require

ROOT = Path(__file__).resolve().parents[2]


def _extras_of(requirement: str) -> set[str]:
    """The extras a ``aiojury[a,b]`` requirement names."""
    found = re.fullmatch(r"aiojury\[([\w,-]+)\]", requirement)
    assert found, requirement
    return set(found[1].split(","))


def test_every_extra_a_test_names_is_one_the_dev_install_of_ci_installs() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert set(EXTRAS) <= set(declared)
    (dev,) = declared["dev"]
    installed = _extras_of(dev)
    for name in sorted(installed):
        if all(r.startswith("aiojury[") for r in declared[name]):  # an extra of extras
            installed |= {e for r in declared[name] for e in _extras_of(r)}
    assert set(EXTRAS) <= installed


def test_ci_runs_the_suite_with_a_missing_extra_a_failure() -> None:
    script = (ROOT / ".ci" / "run").read_text()
    said = script.index(f"export {ALL_EXTRAS}=1")
    assert said < script.index('pip install --quiet -e ".[dev]" && ')
    assert said < script.index("python -m pytest")


@pytest.fixture
def parquet_missing(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The parquet extra as if it were not installed."""
    monkeypatch.setitem(EXTRAS, "parquet", ("jury_no_such_module",))
    missing.cache_clear()
    yield
    missing.cache_clear()


@pytest.mark.usefixtures("parquet_missing")
def test_a_test_that_requires_a_missing_extra_is_skipped_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(ALL_EXTRAS, raising=False)
    with pytest.raises(pytest.skip.Exception) as skipped:
        require("parquet")
    assert str(skipped.value) == (
        "needs the extra aiojury[parquet] (jury_no_such_module is not installed): "
        "pip install 'aiojury[parquet]'"
    )


@pytest.mark.usefixtures("parquet_missing")
def test_with_every_extra_said_installed_a_test_that_requires_a_missing_one_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ALL_EXTRAS, "1")
    with pytest.raises(pytest.fail.Exception, match=r"needs the extra aiojury\[parquet\]"):
        require("parquet")


def test_an_extra_the_project_does_not_have_is_a_mistake_in_the_test() -> None:
    with pytest.raises(ValueError, match="unknown extra 'parquets'"):
        require("parquets")


#: Runs pytest with every extra's modules refusing to import, as after ``pip install .``.
WITHOUT_EXTRAS = """
import importlib.abc, sys

BLOCKED = {blocked!r}


class NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if any(name == b or name.startswith(b + ".") for b in BLOCKED):
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, NotInstalled())
import pytest

sys.exit(pytest.main(sys.argv[1:]))
"""


def without_extras(*args: str, every_extra_said_installed: bool = False) -> tuple[int, str]:
    """pytest run on `args` in a new process where no extra's modules import; its exit code
    and output."""
    blocked = sorted({module for modules in EXTRAS.values() for module in modules})
    # A pytest plugin of an extra's package (LangSmith's, Braintrust's) is not there either.
    plugins = [
        f"-pno:{entry.name}"
        for entry in entry_points(group="pytest11")
        if any(entry.value.startswith(b) for b in blocked)
    ]
    env = {k: v for k, v in os.environ.items() if k != ALL_EXTRAS}
    if every_extra_said_installed:
        env[ALL_EXTRAS] = "1"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            WITHOUT_EXTRAS.format(blocked=blocked),
            "-p",
            "no:cacheprovider",
            *plugins,
            *args,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


@pytest.mark.timeout(300)  # collecting the whole suite takes seconds, more under load
def test_the_whole_suite_collects_without_any_extra() -> None:
    code, out = without_extras("--collect-only", "-q", "tests")
    assert code == 0, out[-4000:]
    # The docs' code blocks need Sybil (the test extra): that module is skipped, saying so.
    assert "needs the extra aiojury[test]" in out


FORMATS = (
    "tests/cases/test_case_formats.py::test_every_format_of_the_sample_loads_to_the_same_cases"
)


def test_a_test_whose_extra_is_missing_is_skipped_at_its_own_line() -> None:
    code, out = without_extras("-q", "-rs", FORMATS)
    assert code == 0, out
    assert "5 passed, 1 skipped" in out
    assert re.search(
        r"SKIPPED \[1\] tests/cases/test_case_formats\.py:\d+: needs the extra "
        r"aiojury\[parquet\] \(pyarrow is not installed\): pip install 'aiojury\[parquet\]'",
        out,
    ), out


def test_with_every_extra_said_installed_a_missing_one_stops_the_session_naming_the_test() -> None:
    code, out = without_extras("-q", FORMATS, every_extra_said_installed=True)
    assert code == pytest.ExitCode.USAGE_ERROR, out
    assert f"{ALL_EXTRAS}=1 says every extra is installed, but:" in out
    assert (
        f"{FORMATS}[cases.parquet]: needs the extra aiojury[parquet] (pyarrow is not installed)"
    ) in out
    assert "passed" not in out
