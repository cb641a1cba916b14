"""Ending a run on SIGINT or SIGTERM: at once, with its finished work kept.

`run_interruptible` runs a run's coroutine as `asyncio.run` would, with both signals turned
into a cancellation of that coroutine's task: every call in flight is cancelled where it
waits (the engine re-raises cancellation), what was recorded stays recorded (each verdict is
appended as it finishes, each paid reply committed to the cache as it arrives), and the run
lock is released on the way out. It then raises `Interrupted`, whose `exit_code` is the
shell's (130 for SIGINT, 143 for SIGTERM); the command prints one line and exits with it.

Only a command installs these handlers: a library function called inside its user's event
loop leaves the process's signals to its user.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["Interrupted", "run_interruptible"]

T = TypeVar("T")

_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(Exception):
    """The run was stopped by a signal; `exit_code` is 128 + its number, as a shell says."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        self.name = signal.Signals(signum).name
        self.exit_code = 128 + signum
        super().__init__(f"interrupted by {self.name}")


def run_interruptible(main: Coroutine[Any, Any, T]) -> T:
    """`main`'s result, as `asyncio.run(main)` gives it; `Interrupted` when SIGINT or SIGTERM
    came first (a second signal while it stops changes nothing)."""
    received: list[int] = []
    tasks: list[asyncio.Task[Any]] = []

    async def guarded() -> T:
        task = asyncio.current_task()
        if task is not None:
            tasks.append(task)
        return await main

    def stop(signum: int) -> None:
        received.append(signum)
        for task in tasks:
            task.cancel()

    with asyncio.Runner() as runner:
        loop = runner.get_loop()
        # Signal handlers can only be set from the main thread (a test runner's worker, or a
        # command run in a thread, keeps the default behaviour).
        handled = (
            [s for s in _SIGNALS if signal.getsignal(s) is not signal.SIG_IGN]
            if threading.current_thread() is threading.main_thread()
            else []
        )
        # A signal the process was started with ignored stays ignored (a background job of
        # a script ignores SIGINT, so that Ctrl-C in its terminal does not reach it).
        for signum in handled:
            loop.add_signal_handler(signum, stop, signum)
        try:
            result = runner.run(guarded())
        except BaseException:
            # Cancelled (or something on the way out said so in its own words).
            if received:
                raise Interrupted(received[0]) from None
            raise
        finally:
            for signum in handled:
                loop.remove_signal_handler(signum)
        if received:  # the coroutine caught its cancellation and returned
            raise Interrupted(received[0])
        return result
