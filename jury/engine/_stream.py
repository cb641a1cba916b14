"""Streaming verdicts, structured: leaving the stream stops every call it started.

`VerdictStream` judges cases concurrently (at most `concurrency` at a time, read lazily from
any iterable) and yields each verdict as it is ready. It is left by reaching its end, by
`break` or an exception out of ``async for`` (CPython drops the stream at once, and that
stops it), by cancellation of the task that waits on it, by `aclose()`, or at the end of an
``async with`` block (the one way that does not rely on reference counting). Once left, no
call of the stream starts: the call layer checks the stream's stop signal before every
attempt, and every task of the stream is cancelled at that moment.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Coroutine, Iterable
from dataclasses import dataclass
from typing import Any

from .._errors import JuryError
from .._verdict import CaseVerdict
from ..cases._case import Case
from ._calls import StopSignal, stop_calls

__all__ = ["VerdictStream"]

#: Closing tasks of owners of streams dropped without `aclose` (kept so they are not lost).
_CLOSING: set[asyncio.Task[None]] = set()


@dataclass(frozen=True, slots=True)
class _End:
    error: BaseException | None


class _Run:
    """The work behind a stream: its queue, its tasks and its stop signal.

    Kept apart from `VerdictStream` so that the tasks hold no reference to the stream the
    caller holds: dropping that one (a `break`) must reach `VerdictStream.__del__` at once.
    """

    def __init__(
        self,
        judge: Callable[[Case], Awaitable[CaseVerdict]],
        cases: Iterable[Case] | AsyncIterable[Case],
        concurrency: int,
        on_input_end: Callable[[], None] | None = None,
    ) -> None:
        self.judge = judge
        self.cases = cases
        self.concurrency = concurrency
        self.on_input_end = on_input_end
        self.queue: asyncio.Queue[CaseVerdict | _End] = asyncio.Queue(maxsize=concurrency)
        self.tasks: set[asyncio.Task[None]] = set()
        self.runner: asyncio.Task[None] | None = None
        self.stop: StopSignal | None = None
        self.left = False

    def start(self) -> None:
        # The runner and every task it starts inherit this stop signal (contextvars).
        with stop_calls() as stop:
            self.runner = asyncio.create_task(self.run(), name="jury-evaluate")
        self.stop = stop

    def leave(self) -> None:
        """Stop at once, without awaiting: no call starts after this returns."""
        if self.left:
            return
        self.left = True
        if self.stop is not None:
            self.stop.stopped = True
        for task in (*self.tasks, self.runner):
            if task is not None and not task.done():
                task.cancel()

    async def run(self) -> None:
        slots = asyncio.Semaphore(self.concurrency)

        async def one(case: Case) -> None:
            try:
                verdict = await self.judge(case)
            finally:
                slots.release()
            await self.queue.put(verdict)

        forget = self.tasks.discard
        try:
            async with asyncio.TaskGroup() as group:
                async for case in _aiter(self.cases):
                    await slots.acquire()
                    task = group.create_task(one(case), name="jury-case")
                    self.tasks.add(task)
                    task.add_done_callback(forget)
                if self.on_input_end is not None:
                    self.on_input_end()
        except BaseExceptionGroup as group_error:
            await self.queue.put(_End(_first_jury_error(group_error)))
            return
        except Exception as exc:
            await self.queue.put(_End(exc))
            return
        await self.queue.put(_End(None))


class VerdictStream(AsyncIterator[CaseVerdict]):
    """Verdicts in completion order; see the module's docstring for how it stops."""

    def __init__(
        self,
        judge: Callable[[Case], Awaitable[CaseVerdict]],
        cases: Iterable[Case] | AsyncIterable[Case],
        concurrency: int,
        *,
        on_close: Callable[[], Coroutine[Any, Any, None]] | None = None,
        on_input_end: Callable[[], None] | None = None,
    ) -> None:
        """`on_input_end` is called once every case is read (and started)."""
        self._run = _Run(judge, cases, concurrency, on_input_end)
        self._on_close = on_close

    def __aiter__(self) -> VerdictStream:
        return self

    async def __anext__(self) -> CaseVerdict:
        run = self._run
        if run.left:
            raise StopAsyncIteration
        if run.runner is None:
            run.start()
        try:
            item = await run.queue.get()
        except BaseException:
            await self.aclose()
            raise
        if isinstance(item, _End):
            await self.aclose()
            if item.error is not None:
                raise item.error
            raise StopAsyncIteration
        return item

    async def __aenter__(self) -> VerdictStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Leave the stream: stop every call, and wait for its tasks to end."""
        self._run.leave()
        if self._run.runner is not None:
            await asyncio.wait([self._run.runner])
        if self._on_close is not None:
            on_close, self._on_close = self._on_close, None
            await on_close()

    def __del__(self) -> None:
        # `break` out of `async for` drops the last reference here, synchronously.
        run = self._run
        if run.left or run.runner is None:
            return
        try:
            run.leave()
            if self._on_close is not None:
                closing = asyncio.get_running_loop().create_task(self._on_close())
                _CLOSING.add(closing)
                closing.add_done_callback(_CLOSING.discard)
        except RuntimeError:  # the loop is closed or not running: nothing left to stop
            pass


def _first_jury_error(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """Surface the error that stopped the run, not a nest of task-group wrappers."""
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            return _first_jury_error(exc)
        if isinstance(exc, JuryError):
            return exc
    return group


async def _aiter(cases: Iterable[Case] | AsyncIterable[Case]) -> AsyncIterator[Case]:
    if isinstance(cases, AsyncIterable):
        async for case in cases:
            yield case
    else:
        for case in cases:
            yield case
