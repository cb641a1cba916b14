"""The CI recipe that runs the system under test (examples/ci/github-actions-agent.yml) is
real: its start step starts the example agent and hands its URL to the gate, the gate step
gives that URL to `jury run --agent` and maps each exit code, and the run directory is kept
whatever happened."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from extras import needs

# The recipes are YAML files: read with PyYAML.
pytestmark = needs("test")

ROOT = Path(__file__).parents[2]
RECIPE = ROOT / "examples" / "ci" / "github-actions-agent.yml"


def _job() -> dict[str, Any]:
    import yaml

    workflow = yaml.safe_load(RECIPE.read_text(encoding="utf-8"))
    return dict(workflow["jobs"]["gate"])


def _step(job: dict[str, Any], key: str) -> dict[str, Any]:
    return next(s for s in job["steps"] if s.get("id") == key or s.get("name") == key)


def _env(job: dict[str, Any], tmp_path: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(job["env"])
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    env["PYTHONPATH"] = str(ROOT)
    for name in ("GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_STEP_SUMMARY"):
        env[name] = str(tmp_path / name.lower())
    env.update(extra)
    return env


def _bash(script: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-eo", "pipefail", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _pairs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


def test_the_run_directory_and_the_agents_log_are_kept_whatever_happened() -> None:
    job = _job()
    upload = _step(job, "Upload the run directory")
    assert upload["if"] == "always()"
    kept = upload["with"]["path"].split()
    assert "runs/ci/" in kept
    assert "agent.log" in kept
    assert _step(job, "Stop the agent")["if"] == "always()"
    judge = _step(job, "jury")["run"]
    assert '--agent "$JURY_AGENT"' in judge
    assert "--out runs/ci" in judge


def test_the_start_step_starts_the_agent_and_hands_its_url_on(tmp_path: Path) -> None:
    job = _job()
    env = _env(job, tmp_path)
    # The recipe's paths are from the checkout's root: the job's folder holds the examples.
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    done = _bash(_step(job, "agent")["run"], env, tmp_path)
    pid = int(_pairs(tmp_path / "github_output")["pid"])
    try:
        assert done.returncode == 0, done.stdout + done.stderr
        url = _pairs(tmp_path / "github_env")["JURY_AGENT"]
        assert url.startswith("http://127.0.0.1:")
        request = urllib.request.Request(
            url,
            data=json.dumps(
                {"id": "tool-status-01", "question": "Where is my order ORD-101?"}
            ).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as reply:
            body = json.loads(reply.read())
        assert body["toolCalls"][0]["name"] == "getOrderStatus"
    finally:
        os.kill(pid, signal.SIGTERM)
    assert (tmp_path / "agent.log").read_text().startswith(url)


def _stub_jury(tmp_path: Path, code: int) -> Path:
    """A `jury` that writes its arguments and exits with `code`."""
    folder = tmp_path / "stub"
    folder.mkdir()
    stub = folder / "jury"
    stub.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{tmp_path}/args"\nexit {code}\n')
    stub.chmod(stub.stat().st_mode | stat.S_IEXEC)
    return folder


@pytest.mark.parametrize(
    ("code", "outcome", "step_exit"),
    [(0, "pass", 0), (1, "fail", 1), (2, "config-error", 2), (3, "neutral", 0)],
)
def test_the_gate_step_gives_jury_the_agent_and_maps_each_exit_code(
    tmp_path: Path, code: int, outcome: str, step_exit: int
) -> None:
    job = _job()
    env = _env(job, tmp_path, JURY_AGENT="http://127.0.0.1:8080/ask")
    env["PATH"] = f"{_stub_jury(tmp_path, code)}{os.pathsep}{env['PATH']}"
    done = _bash(_step(job, "jury")["run"], env, tmp_path)
    assert done.returncode == step_exit
    assert _pairs(tmp_path / "github_output") == {"outcome": outcome, "exit_code": str(code)}
    args = (tmp_path / "args").read_text().splitlines()
    assert args[:2] == ["run", job["env"]["JURY_CASES"]]
    assert args[args.index("--agent") + 1] == "http://127.0.0.1:8080/ask"
    assert args[args.index("--out") + 1] == "runs/ci"
