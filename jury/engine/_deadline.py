"""A case's deadline that stops while its calls wait for a turn at their server.

`Panel.case_timeout` bounds the time a case's judging takes. Waiting for a turn is not
judging: a one-slot local server answers the cases in flight one at a time, so a deadline
that ran while a case queued would time out every case after the first few (seen with
llama-cpp-python's server on a busy machine, issue 32). The limiter pauses the deadline of the
case whose call waits (`waiting`), only when the call really waits, and it runs again once
none of the case's calls does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["CaseDeadline", "waiting"]


class CaseDeadline:
    """One case's `asyncio.Timeout`, paused while any of the case's calls waits for a turn."""

    __slots__ = ("_left", "_scope", "_waiting", "open")

    def __init__(self, scope: asyncio.Timeout) -> None:
        self._scope = scope
        self._waiting = 0
        #: Seconds the deadline had left when it was paused (None: running, or none set).
        self._left: float | None = None
        #: False once the case's judging ended: its deadline cannot move any more.
        self.open = True

    def pause(self) -> None:
        self._waiting += 1
        when = self._scope.when()
        if self._waiting == 1 and when is not None and self._movable():
            self._left = max(0.0, when - asyncio.get_running_loop().time())
            self._scope.reschedule(None)

    def resume(self) -> None:
        self._waiting -= 1
        if self._waiting == 0 and self._left is not None and self._movable():
            self._scope.reschedule(asyncio.get_running_loop().time() + self._left)
            self._left = None

    def _movable(self) -> bool:
        return self.open and not self._scope.expired()


CASE: ContextVar[CaseDeadline | None] = ContextVar("jury_case_deadline", default=None)


@contextmanager
def waiting() -> Iterator[None]:
    """While inside, the deadline of the case this task judges (if any) does not run."""
    deadline = CASE.get()
    if deadline is None:
        yield
        return
    deadline.pause()
    try:
        yield
    finally:
        deadline.resume()
