"""The kill test of a run that calls the agent: `jury run GOLDEN --agent file.py:function`
against the fake provider server is SIGKILLed at random moments, with agent calls and judge
calls in flight, and resumed until it finishes.

At the end every case has exactly one verdict and one line in the run's cases.jsonl, and no
attempt asked the agent about a case whose answer was recorded before that attempt started.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from served import JURORS, ServerThread

ROOT = Path(__file__).resolve().parents[2]
CASES = 120
KILLS = 3

AGENT = """
import asyncio, os, random

async def answer(case):
    # One write per call on an O_APPEND descriptor: a kill never leaves half a line.
    fd = os.open(os.environ["AGENT_LOG"], os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    os.write(fd, (case.id + "\\n").encode())
    os.close(fd)
    await asyncio.sleep(random.uniform(0.005, 0.04))
    n = int(case.id[1:])
    return f"ORD-{n} has shipped." if n % 7 else "WRONG: it is lost"
"""


def answered(run: Path) -> set[str]:
    """IDs of the cases whose answer the run has recorded (whole lines only)."""
    path = run / "cases.jsonl"
    if not path.exists():
        return set()
    data = path.read_bytes()
    lines = data[: data.rfind(b"\n") + 1].splitlines()
    return {case["id"] for case in map(json.loads, lines) if case.get("answer")}


def asked(log: Path) -> list[str]:
    return log.read_text().split() if log.exists() else []


def verdict_lines(run: Path) -> int:
    path = run / "verdicts.jsonl"
    return path.read_bytes().count(b"\n") if path.exists() else 0


@pytest.mark.timeout(240)
def test_an_agent_run_killed_at_random_moments_never_asks_again_about_a_recorded_answer(
    tmp_path: Path,
) -> None:
    golden = tmp_path / "golden.jsonl"
    golden.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"k{n:03d}",
                    "question": f"Where is order ORD-{n}?",
                    "golden_answer": f"ORD-{n} has shipped.",
                }
            )
            + "\n"
            for n in range(CASES)
        )
    )
    (tmp_path / "agent.py").write_text(AGENT)
    jury_file = tmp_path / "jury.toml"
    jurors = ", ".join(f'"{juror}"' for juror in JURORS)
    jury_file.write_text(
        f"jurors = [{jurors}]\nconcurrency = 12\nagent_concurrency = 6\n[retry]\nattempts = 1\n"
    )
    served = ServerThread(latency=0.03)
    log, run = tmp_path / "agent.log", tmp_path / "run"
    env = {
        **{k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))},
        **served.server.env(),
        "JURY_CACHE_DIR": str(tmp_path / "cache"),
        "AGENT_LOG": str(log),
    }
    command = [sys.executable, "-m", "jury", "run", str(golden), "--jury", str(jury_file)]
    command += ["--agent", str(tmp_path / "agent.py:answer")]
    command += ["--out", str(run), "--progress", "none", "--no-checks"]
    rng = random.Random(11)
    kills = 0
    try:
        for attempt in range(KILLS + 1):
            recorded_before = answered(run)
            asked_before = len(asked(log))
            process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            if attempt < KILLS:
                target = min(CASES - 1, verdict_lines(run) + rng.randint(10, 30))
                while process.poll() is None and verdict_lines(run) < target:
                    time.sleep(0.002)
                if process.poll() is None:
                    time.sleep(rng.uniform(0, 0.05))
                    process.send_signal(signal.SIGKILL)
                    kills += 1
            _, err = process.communicate(timeout=150)
            asked_now = asked(log)[asked_before:]
            again = recorded_before.intersection(asked_now)
            assert not again, f"attempt {attempt} asked the agent again about {sorted(again)}"
            if attempt == KILLS:
                assert process.returncode == 1, err
    finally:
        served.stop()

    assert kills >= 2, "the run finished before it could be killed"
    ids = {f"k{n:03d}" for n in range(CASES)}
    verdicts = Counter(
        json.loads(line)["case_id"] for line in (run / "verdicts.jsonl").read_text().splitlines()
    )
    assert set(verdicts) == ids
    assert set(verdicts.values()) == {1}
    cases = Counter(
        json.loads(line)["id"] for line in (run / "cases.jsonl").read_text().splitlines()
    )
    assert set(cases) == ids
    assert set(cases.values()) == {1}
    assert set(asked(log)) == ids
    summary = json.loads((run / "summary.json").read_text())
    assert summary["total"] == CASES
    assert summary["failed"] == len([n for n in range(CASES) if n % 7 == 0])
    # Run again: the finished run calls the agent 0 times.
    calls = len(asked(log))
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, timeout=60, check=False)
    assert done.returncode == 1
    assert len(asked(log)) == calls
