"""The CI recipes in examples/ci/ are real: they parse, name what the project has (its extras,
the provider key variables, the cache directory, the report files they upload), and their
commands, run as the CI would run them, judge the example against the offline panel and map
each exit code as they say."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from extras import needs

# The recipes are YAML files: read with PyYAML.
pytestmark = needs("test")

ROOT = Path(__file__).parents[2]
RECIPES = ROOT / "examples" / "ci"
EXAMPLE = ROOT / "examples" / "shopnest"
#: The variables the providers read a key from (docs/architecture.md, "Credentials").
KEY_VARIABLES = {"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY"}


def _load(name: str) -> dict[str, Any]:
    import yaml

    data = yaml.safe_load((RECIPES / name).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _github_job() -> dict[str, Any]:
    workflow = _load("github-actions.yml")
    return dict(workflow["jobs"]["jury"])


def _gitlab_job() -> dict[str, Any]:
    return dict(_load("gitlab-ci.yml")["jury"])


def _installs_an_extra_the_project_has(command: str) -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    found = re.fullmatch(r'pip install "aiojury\[([a-z,]+)\]"', command.strip())
    assert found is not None, command
    assert set(found.group(1).split(",")) <= set(extras)


def _bash(script: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`script` as the CI runs it: bash, stopping at the first failing command."""
    return subprocess.run(
        ["bash", "-eo", "pipefail", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _environment(tmp_path: Path, variables: dict[str, str], **extra: str) -> dict[str, str]:
    """The job's variables with the example's paths, no provider key (the offline panel), and
    the jury command of this checkout first on PATH."""
    env = {k: v for k, v in os.environ.items() if k not in KEY_VARIABLES}
    env.update(variables)
    env.update(JURY_CASES=str(EXAMPLE / "cases.jsonl"), JURY_FILE=str(EXAMPLE / "jury.toml"))
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra)
    return env


def _stub_jury(tmp_path: Path, code: int) -> str:
    """A PATH entry whose `jury` exits with `code`, for the exit codes the example cannot give."""
    folder = tmp_path / f"stub-{code}"
    folder.mkdir()
    stub = folder / "jury"
    stub.write_text(f"#!/bin/sh\nexit {code}\n")
    stub.chmod(stub.stat().st_mode | stat.S_IEXEC)
    return str(folder)


def test_the_github_workflow_names_what_the_project_has() -> None:
    job = _github_job()
    steps = {step.get("name", step.get("uses")): step for step in job["steps"]}
    _installs_an_extra_the_project_has(steps["Install aiojury"]["run"])
    judge = steps["Judge"]
    assert set(judge["env"]) <= KEY_VARIABLES
    assert all(value.startswith("${{ secrets.") for value in judge["env"].values())
    assert job["env"]["JURY_CACHE_DIR"] == ".jury-cache"
    restore, save = steps["Restore the judge-call cache"], steps["Save the judge-call cache"]
    assert restore["with"]["path"] == save["with"]["path"] == ".jury-cache"
    assert restore["with"]["key"] == save["with"]["key"]
    assert save["if"] == "always()"
    upload = steps["Upload the reports"]
    assert upload["if"] == "always()"
    uploaded = upload["with"]["path"].split()
    for option in ("--junit", "--html", "--json"):
        written = re.search(rf"{option} (\S+)", judge["run"])
        assert written is not None
        assert any(written.group(1).startswith(folder) for folder in uploaded)


def test_the_github_judge_step_runs_the_example_offline(tmp_path: Path) -> None:
    job = _github_job()
    script = next(step["run"] for step in job["steps"] if step.get("id") == "jury")
    output, summary = tmp_path / "output", tmp_path / "summary"
    env = _environment(
        tmp_path, job["env"], GITHUB_OUTPUT=str(output), GITHUB_STEP_SUMMARY=str(summary)
    )
    done = _bash(script, env, tmp_path)
    # The example's deliberately broken answers fail the gate: the step fails, says so, and
    # the reports are where the upload step looks for them.
    assert done.returncode == 1, done.stderr
    assert "::error title=jury::the gate failed" in done.stdout
    assert output.read_text() == "outcome=fail\nexit_code=1\n"
    assert "OFFLINE reference jurors" in done.stdout
    for name in ("junit.xml", "report.html", "summary.json"):
        assert (tmp_path / "reports" / name).is_file()
    assert (tmp_path / "runs" / "ci" / "verdicts.jsonl").is_file()
    assert (tmp_path / ".jury-cache" / "calls.sqlite").is_file()
    # A configuration error, for real: a jury file that is not there.
    output.write_text("")
    env["JURY_FILE"] = str(tmp_path / "missing.toml")
    done = _bash(script, env, tmp_path)
    assert done.returncode == 2
    assert "configuration error (exit 2)" in done.stdout
    assert "outcome=config-error" in output.read_text()


@pytest.mark.parametrize(
    ("code", "outcome", "step_exit"),
    [(0, "pass", 0), (1, "fail", 1), (2, "config-error", 2), (3, "neutral", 0)],
)
def test_the_github_judge_step_maps_each_exit_code(
    tmp_path: Path, code: int, outcome: str, step_exit: int
) -> None:
    job = _github_job()
    script = next(step["run"] for step in job["steps"] if step.get("id") == "jury")
    output = tmp_path / "output"
    env = _environment(
        tmp_path, job["env"], GITHUB_OUTPUT=str(output), GITHUB_STEP_SUMMARY=os.devnull
    )
    env["PATH"] = f"{_stub_jury(tmp_path, code)}{os.pathsep}{env['PATH']}"
    done = _bash(script, env, tmp_path)
    assert done.returncode == step_exit
    assert output.read_text() == f"outcome={outcome}\nexit_code={code}\n"
    if code == 3:
        assert "::warning title=jury::inconclusive" in done.stdout


def test_the_gitlab_job_names_what_the_project_has() -> None:
    job = _gitlab_job()
    _installs_an_extra_the_project_has(job["script"][0])
    assert job["variables"]["JURY_CACHE_DIR"] == ".jury-cache"
    calls = next(cache for cache in job["cache"] if ".jury-cache" in cache["paths"])
    assert calls["when"] == "always"
    assert job["allow_failure"] == {"exit_codes": [3]}
    assert job["artifacts"]["when"] == "always"
    junit = job["artifacts"]["reports"]["junit"]
    assert f"--junit {junit}" in job["script"][1]
    assert re.search(r"--html (reports/\S+)", job["script"][1])
    assert "reports/" in job["artifacts"]["paths"]


@pytest.mark.parametrize("stub", [None, 0, 2, 3])
def test_the_gitlab_script_runs_the_example_and_exits_as_jury_did(
    tmp_path: Path, stub: int | None
) -> None:
    job = _gitlab_job()
    # The install line is checked above; the job's other lines run as GitLab runs them.
    script = "\n".join(job["script"][1:])
    env = _environment(tmp_path, job["variables"])
    if stub is not None:
        env["PATH"] = f"{_stub_jury(tmp_path, stub)}{os.pathsep}{env['PATH']}"
    done = _bash(script, env, tmp_path)
    code = 1 if stub is None else stub
    assert done.returncode == code  # 3 is in allow_failure: a warning in GitLab, not a failure
    said = {0: "the gate passed", 1: "the gate failed", 2: "configuration error"}
    said[3] = "inconclusive (exit 3)"
    assert said[code] in done.stdout
    if stub is None:
        assert (tmp_path / job["artifacts"]["reports"]["junit"]).is_file()
        assert (tmp_path / "reports" / "report.html").is_file()
