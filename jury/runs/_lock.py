"""One run directory, one writer.

Two `jury run` on the same ``--out`` would both judge every case: every call paid twice and two
verdicts a case. The writer holds an OS lock on ``<run>/.lock`` (``flock``) for the run's life.
The kernel releases it when the process ends, however it ends (a crash, ``kill -9``), so a
lock is never left behind, unlike a PID file, which a crash leaves for the next run to judge
stale or not. The file also says who holds it, for the message the second writer gets.

The holder can write its record only once it holds the lock, so a second writer that comes in
between finds the file locked but empty (or still naming an earlier run). It reads again for a
moment (`PATIENCE`) until the record names a process that is alive; under load that moment is
what a descheduled holder needs, and a second writer waits at most that long before it says
that the holder's record is not written yet.

``flock`` is POSIX: where ``fcntl`` does not exist (Windows) runs are not locked.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .._errors import RunLockedError
from .._redact import redact

__all__ = ["LOCK", "RunLock", "can_lock", "lock_at_once"]

LOCK = ".lock"
#: How long a refused claim reads the holder's record again while it is empty or names a
#: process that has ended (the holder has not written it yet), in seconds.
PATIENCE = 2.0


def can_lock() -> bool:
    """Whether this platform has ``flock`` (POSIX); elsewhere nothing is locked."""
    return importlib.util.find_spec("fcntl") is not None


def lock_at_once(fd: int) -> bool:
    """An exclusive ``flock`` on `fd`, taken at once: False when another process holds it.
    True without locking where the platform has no ``flock``."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


class RunLock:
    """An exclusive lock on a run directory, taken at once or not at all (`RunLockedError`)."""

    def __init__(self, run: Path) -> None:
        self.run = run
        self._fd: int | None = None
        if not can_lock():  # pragma: no cover - not POSIX
            return
        run.mkdir(parents=True, exist_ok=True)
        fd = os.open(run / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            locked = lock_at_once(fd)
        except BaseException:
            os.close(fd)
            raise
        if not locked:
            holder = _holder(fd)
            os.close(fd)
            raise RunLockedError(run, holder)
        self._fd = fd
        holder = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": datetime.now(UTC).isoformat(timespec="seconds"),
            "command": redact(" ".join(["jury", *sys.argv[1:]])),
        }
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(holder) + "\n").encode(), 0)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor releases the lock
            self._fd = None

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _holder(fd: int) -> dict[str, Any]:
    """The record of the run holding `fd`'s lock, read again while it is not yet written (see
    the module's text); empty when it is still not written after `PATIENCE`."""
    deadline = time.monotonic() + PATIENCE
    while True:
        holder = _read(fd)
        if _written(holder):
            return holder
        if time.monotonic() > deadline:
            return {}
        _pause()


def _pause() -> None:
    """The wait between two reads of the holder's record (a seam for the tests)."""
    time.sleep(0.005)


def _written(holder: dict[str, Any]) -> bool:
    """Whether `holder` is a live run's record: another host's cannot be asked, so it counts."""
    pid = holder.get("pid")
    if type(pid) is not int or pid <= 0:
        return False
    if holder.get("host") != socket.gethostname():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False  # an earlier run's record, not yet overwritten
    except PermissionError:  # another user's process: alive
        return True
    return True


def _read(fd: int) -> dict[str, Any]:
    try:
        # The whole file: a long command line makes a record of more than a page.
        data = json.loads(os.pread(fd, max(os.fstat(fd).st_size, 1), 0) or b"{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
