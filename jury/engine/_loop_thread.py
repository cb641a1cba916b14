"""An event loop of its own, in a daemon thread, whose coroutines any asyncio loop can await.

A `Jury` holds what is bound to the event loop it first ran on: aiohttp sessions, the account
limiter's semaphores, the cache's pending writes. The pytest plugin shares one jury across a
whole test session, while pytest-asyncio gives each test a loop of its own by default (and
anyio another): a jury used from a second loop would fail, or quietly keep dead sessions. So
the session's juries live on this loop, and each test only awaits the result, from whatever
loop runs it, whatever its scope. Cancelling the awaiting test cancels the work here too.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["LoopThread"]

T = TypeVar("T")

#: Seconds to wait for the loop's work to finish when it is closed.
CLOSE_TIMEOUT = 30.0


class LoopThread:
    """Runs coroutines on a private event loop in a daemon thread."""

    def __init__(self, name: str = "aiojury") -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=name, daemon=True)
        self._thread.start()

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Start `coro` on the private loop; its result, as a thread-safe future."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await `coro`, run on the private loop, from the caller's asyncio loop."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            coro.close()
            raise RuntimeError(
                "the jury is awaited outside an asyncio event loop: run the test with "
                "pytest-asyncio or with anyio's asyncio backend"
            ) from None
        # wrap_future cancels the work on the private loop when the awaiting task is cancelled.
        return await asyncio.wrap_future(self.submit(coro))

    def close(self, *closing: Coroutine[Any, Any, Any]) -> None:
        """Run the `closing` coroutines (a jury's ``aclose``), then stop the loop and its
        thread. Safe to call twice."""
        if self._loop.is_closed():
            for coro in closing:
                coro.close()
            return
        try:
            # Every coroutine is started before any is waited for, so none is left unawaited.
            for future in [self.submit(coro) for coro in closing]:
                future.result(CLOSE_TIMEOUT)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(CLOSE_TIMEOUT)
            self._loop.close()
