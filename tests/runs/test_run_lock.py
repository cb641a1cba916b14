"""One run directory, one writer: a second `jury run` on the same --out exits 2 naming the
first, and a writer that dies (even by SIGKILL) leaves no lock behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jury._errors import RunLockedError
from jury.cli import main
from jury.runs._lock import RunLock
from jury.testing import LoggedRequest, valid_reply
from served import JURORS, ServerThread

ROOT = Path(__file__).resolve().parents[2]
CASES = 3


class HeldJudge:
    """A judge that holds every call until the test lets go: the run that got the lock is
    still running, whatever the machine's load, when the other one starts."""

    def __init__(self) -> None:
        self.released = threading.Event()
        self.called = threading.Event()

    def __call__(self, request: LoggedRequest) -> dict[str, Any]:
        self.called.set()
        self.released.wait(60)
        return valid_reply(request.schema)


class Held:
    """The fake server with a `HeldJudge`, and the command of a run against it."""

    def __init__(self, tmp_path: Path) -> None:
        self.judge = HeldJudge()
        self.served = ServerThread()
        self.served.server.script(JURORS[0].split("/", 1)[1], self.judge)
        cases = tmp_path / "cases.jsonl"
        cases.write_text(
            "".join(
                json.dumps({"id": f"c{n}", "question": f"Where is ORD-{n}?", "answer": "Shipped."})
                + "\n"
                for n in range(CASES)
            )
        )
        jury_file = tmp_path / "jury.toml"
        jury_file.write_text(f'jurors = ["{JURORS[0]}"]\nconcurrency = 1\n[retry]\nattempts = 1\n')
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))},
            **self.served.server.env(),
            "JURY_CACHE_DIR": str(tmp_path / "cache"),
        }
        self.command = [sys.executable, "-m", "jury", "run", str(cases), "--jury", str(jury_file)]
        self.command += ["--out", str(tmp_path / "run"), "--progress", "none", "--no-checks"]

    def start(self) -> subprocess.Popen[str]:
        return subprocess.Popen(
            self.command,
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )


@pytest.fixture
def held(tmp_path: Path) -> Iterator[Held]:
    held = Held(tmp_path)
    try:
        yield held
    finally:
        held.judge.released.set()
        held.served.stop()


def first_to_end(processes: list[subprocess.Popen[str]], seconds: float) -> subprocess.Popen[str]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for process in processes:
            if process.poll() is not None:
                return process
        time.sleep(0.01)
    raise AssertionError("neither run ended: both are judging the same run directory")


@pytest.mark.timeout(120)
def test_two_runs_started_at_once_on_one_directory_judge_it_once(
    held: Held, tmp_path: Path
) -> None:
    both = [held.start(), held.start()]
    loser = first_to_end(both, 60)
    (winner,) = [p for p in both if p is not loser]
    _, err = loser.communicate(timeout=10)
    held.judge.released.set()
    winner.communicate(timeout=60)
    assert loser.returncode == 2, err
    assert f"another jury run (pid {winner.pid} on " in err
    assert "is writing this run; wait for it to end, or choose another --out" in err
    assert winner.returncode == 0
    lines = (tmp_path / "run" / "verdicts.jsonl").read_text().splitlines()
    assert sorted(json.loads(line)["case_id"] for line in lines) == ["c0", "c1", "c2"]
    assert len(held.served.requests) == CASES  # every call paid once


@pytest.mark.timeout(120)
def test_a_killed_writer_leaves_no_lock_behind(held: Held, tmp_path: Path) -> None:
    first = held.start()
    assert held.judge.called.wait(60), "the first run never called its judge"
    first.send_signal(signal.SIGKILL)
    first.communicate(timeout=10)
    held.judge.released.set()
    second = held.start()  # resumes the run the first left
    _, err = second.communicate(timeout=60)
    assert second.returncode == 0, err
    lines = (tmp_path / "run" / "verdicts.jsonl").read_text().splitlines()
    assert len(lines) == CASES


def test_a_held_lock_names_its_holder_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cases.jsonl").write_text('{"id": "a", "question": "q", "answer": "x"}\n')
    run = tmp_path / "run"
    with RunLock(run):
        code = main(["run", str(tmp_path / "cases.jsonl"), "--out", str(run), "--progress", "none"])
        with pytest.raises(RunLockedError, match=f"pid {os.getpid()} on "):
            RunLock(run)
    assert code == 2
    assert f"another jury run (pid {os.getpid()} on " in capsys.readouterr().err
    assert sorted(p.name for p in run.iterdir()) == [".lock"]
    # Released: the run can start now.
    code = main(["run", str(tmp_path / "cases.jsonl"), "--out", str(run), "--progress", "none"])
    assert code in (0, 1)
    assert (run / "verdicts.jsonl").read_text().count("\n") == 1
