"""A second writer that comes in the moment between the holder's lock and its record reads the
record again, so it names the holder's pid, never an empty or an earlier run's record (the
two-runs test's flake under load). The moment is made here, not waited for: the lock is held
on a file whose record the test writes from the claim's own pause."""

from __future__ import annotations

import fcntl
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from jury._errors import RunLockedError
from jury.runs import _lock
from jury.runs._lock import LOCK, RunLock


def _record(pid: int) -> bytes:
    holder = {"pid": pid, "host": socket.gethostname(), "started": "now", "command": "jury run"}
    return (json.dumps(holder) + "\n").encode()


@pytest.fixture
def held(tmp_path: Path) -> Iterator[int]:
    """`.lock` in tmp_path, locked by another open file (as another process would hold it)."""
    fd = os.open(tmp_path / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    yield fd
    os.close(fd)


def _write_on_pause(monkeypatch: pytest.MonkeyPatch, fd: int, record: bytes) -> list[int]:
    pauses: list[int] = []

    def pause() -> None:
        if not pauses:
            os.ftruncate(fd, 0)
            os.pwrite(fd, record, 0)
        pauses.append(1)

    monkeypatch.setattr(_lock, "_pause", pause)
    return pauses


def test_a_claim_that_finds_the_record_not_yet_written_reads_again_and_names_the_pid(
    tmp_path: Path, held: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    pauses = _write_on_pause(monkeypatch, held, _record(os.getpid()))
    with pytest.raises(RunLockedError) as refused:
        RunLock(tmp_path)
    assert pauses == [1]
    assert f"pid {os.getpid()} on {socket.gethostname()}" in str(refused.value)


def test_an_earlier_runs_record_is_not_taken_for_the_holders(
    tmp_path: Path, held: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead = int(ended.stdout)
    os.pwrite(held, _record(dead), 0)
    _write_on_pause(monkeypatch, held, _record(os.getpid()))
    with pytest.raises(RunLockedError) as refused:
        RunLock(tmp_path)
    assert f"pid {os.getpid()} " in str(refused.value)
    assert f"pid {dead} " not in str(refused.value)


def test_a_record_still_unwritten_after_the_patience_is_said_so(
    tmp_path: Path, held: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_lock, "PATIENCE", 0.0)
    monkeypatch.setattr(_lock, "_pause", lambda: None)
    with pytest.raises(RunLockedError) as refused:
        RunLock(tmp_path)
    assert "another jury run (it has not yet written which process it is) is writing" in str(
        refused.value
    )
    assert refused.value.holder == {}


def test_a_record_longer_than_a_page_is_read_whole(
    tmp_path: Path, held: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `jury run data/*.jsonl` over many files: a command line of thousands of characters.
    holder = {"pid": os.getpid(), "host": socket.gethostname(), "command": "x" * 9000}
    os.pwrite(held, json.dumps(holder).encode(), 0)
    monkeypatch.setattr(_lock, "PATIENCE", 0.0)
    with pytest.raises(RunLockedError) as refused:
        RunLock(tmp_path)
    assert refused.value.holder == holder
