"""SIGINT and SIGTERM end a run at once (issue 31): within 2 s, even while a judge call or a
blocking agent hangs, with every finished verdict kept, one line that says how many cases
are recorded and how to continue, exit 130 (SIGINT) or 143 (SIGTERM); `jury run --resume`
then judges only the cases left.

The runs are child processes (signals), against the fake provider server on a thread of this
process; each waits for the moment it needs by polling what the run wrote, never by sleeping
a fixed time.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from jury.testing import Fault, LoggedRequest, valid_reply
from served import ServerThread

ROOT = Path(__file__).parents[2]
CASES = [
    {
        "id": f"c{n}",
        "question": f"Where is ORD-10{n}?",
        "answer": f"ORD-10{n} has shipped.",
        "golden_answer": f"ORD-10{n} has shipped.",
    }
    for n in range(8)
]
#: The case whose judge call (or agent call) hangs: the run is stopped while it waits.
STUCK = "ORD-105"


def verdicts(run: Path) -> list[dict[str, Any]]:
    path = run / "verdicts.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def wait_for(condition: Callable[[], bool], what: str, seconds: float = 40.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[ServerThread]:
    thread = ServerThread()
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in CASES))
    (tmp_path / "jury.toml").write_text(
        'jurors = ["openai-api/local/fast", "openai-api/local/slow", "offline/reference"]\n'
        "concurrency = 2\n"
    )
    try:
        yield thread
    finally:
        thread.stop()


def start(tmp_path: Path, served: ServerThread, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, **served.server.env(service="local"), "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "jury", "run", *args, "--progress", "none"]
    return subprocess.Popen(
        command,
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # SIGINT as a terminal delivers it: this test may run as a background job, whose
        # children inherit SIGINT ignored (and keep it so). Only a disposition is reset
        # between fork and exec, which is safe with threads.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # noqa: PLW1509
    )


def stuck_on(request: LoggedRequest) -> Any:
    """The slow model hangs on the stuck case, until the server closes; answers the rest."""
    if STUCK in json.dumps(request.body):
        return Fault.hang()
    return valid_reply(request.schema)


def stop_while_stuck(
    process: subprocess.Popen[str], run: Path, stuck: Callable[[], bool], signum: int
) -> tuple[float, str]:
    wait_for(lambda: len(verdicts(run)) >= 2 and stuck(), "verdicts and a stuck call")
    sent = time.monotonic()
    process.send_signal(signum)
    _, err = process.communicate(timeout=30)
    return time.monotonic() - sent, err


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_while_a_judge_call_hangs_ends_the_run_at_once_and_resume_finishes_it(
    served: ServerThread, tmp_path: Path, signum: int, code: int
) -> None:
    served.server.script("slow", stuck_on)
    served.server.script("fast", lambda r: valid_reply(r.schema))
    run = tmp_path / "r"
    args = ("cases.jsonl", "--jury", "jury.toml", "--out", "r", "--cache-dir", "cache")
    process = start(tmp_path, served, *args)

    def hanging() -> bool:
        return any(r.fault == "hang" for r in served.server.requests_for("slow"))

    took, err = stop_while_stuck(process, run, hanging, signum)
    assert process.returncode == code, err
    assert took < 2.0, f"took {took:.2f}s"
    recorded = verdicts(run)
    name = signal.Signals(signum).name
    assert err.strip().splitlines()[-1] == (
        f"jury: interrupted ({name}): {len(recorded)} of {len(CASES)} cases recorded; "
        f"`jury run --resume {Path('r')}` continues"
    )
    assert "Traceback" not in err
    assert not (run / "summary.json").exists()  # no report as if the run had finished
    # Resumed: only the cases left are judged (each of their two calls asked once, or served
    # by the cache when it was paid before the signal), the stuck case among them.
    served.server.script("slow", lambda r: valid_reply(r.schema))
    served.server.requests.clear()
    resumed = start(tmp_path, served, "--resume", "r", "--cache-dir", "cache")
    _, err = resumed.communicate(timeout=60)
    assert resumed.returncode in (0, 1), err
    final = verdicts(run)
    assert sorted(v["case_id"] for v in final) == sorted(c["id"] for c in CASES)
    done_before = {v["case_id"] for v in recorded}
    asked = [json.dumps(r.body) for r in served.server.requests]
    for case in CASES:
        if case["id"] in done_before:
            assert not any(case["question"] in body for body in asked), case["id"]
    assert any(STUCK in body for body in asked)


def test_a_signal_while_a_blocking_agent_works_ends_the_run_at_once(
    served: ServerThread, tmp_path: Path
) -> None:
    marker = tmp_path / "stuck"
    (tmp_path / "agent.py").write_text(
        "import pathlib, time\n"
        "def answer(case):\n"
        f"    if {STUCK!r} in case.question:\n"
        f"        pathlib.Path({str(marker)!r}).write_text('x')\n"
        "        time.sleep(120)\n"
        "    return case.question.replace('Where is ', '').rstrip('?') + ' has shipped.'\n"
    )
    golden = [{k: v for k, v in c.items() if k != "answer"} for c in CASES]
    (tmp_path / "golden.jsonl").write_text("".join(json.dumps(c) + "\n" for c in golden))
    process = start(
        tmp_path, served, "golden.jsonl", "--agent", "agent.py:answer", "--out", "a", "--no-cache"
    )
    took, err = stop_while_stuck(process, tmp_path / "a", marker.exists, signal.SIGTERM)
    assert process.returncode == 143, err
    assert took < 2.0, f"took {took:.2f}s"
    assert "jury: interrupted (SIGTERM)" in err
    assert "Traceback" not in err
