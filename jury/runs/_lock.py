"""One run directory, one writer.

Two `jury run` on the same ``--out`` would both judge every case: every call paid twice and two
verdicts a case. The writer holds an OS lock on ``<run>/.lock`` (``flock``) for the run's life.
The kernel releases it when the process ends, however it ends (a crash, ``kill -9``), so a
lock is never left behind, unlike a PID file, which a crash leaves for the next run to judge
stale or not. The file also says who holds it, for the message the second writer gets.

``flock`` is POSIX: where ``fcntl`` does not exist (Windows) runs are not locked.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .._errors import RunLockedError
from .._redact import redact

__all__ = ["LOCK", "RunLock", "can_lock", "lock_at_once"]

LOCK = ".lock"


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
            holder = _read(fd)
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


def _read(fd: int) -> dict[str, Any]:
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
