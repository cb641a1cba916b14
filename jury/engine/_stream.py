"""Streaming verdicts, structured: leaving the stream stops every call it started.

`VerdictStream` judges cases concurrently (at most `concurrency` at a time, read lazily from
any iterable) and yields each verdict as it is ready. It is left by reaching its end, by
`break` or an exception out of ``async for`` (CPython drops the stream at once, and that
stops it), by cancellation of the task that waits on it, by `aclose()`, or at the end of an
``async with`` block (the one way that does not rely on reference counting). Once left, no
call of the stream starts: the call layer checks the stream's stop signal before every
attempt, and every task of the stream is cancelled at that moment.

A case held for a second chance (`jury.engine._second_chance.Held`) gives its slot back and
waits; once every case has had its first pass, the held ones are asked again (each after its
cool-down, `concurrency` at a time) and their verdicts come last. Past `held_at_most` waiting,
the oldest is asked again at once, so that memory stays bounded however long the input is.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Coroutine, Iterable
from dataclasses import dataclass
from typing import Any

from .._errors import JuryError
from .._verdict import CaseVerdict
from ..cases._case import Case
from ._calls import StopSignal, stop_calls
from ._second_chance import Held

__all__ = ["VerdictStream"]

#: Held cases a stream keeps waiting for the end of its input at most (each keeps its case and
#: votes in memory): a storm over a long input asks the oldest again early instead.
HELD_AT_MOST = 1024

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
        judge: Callable[[Case], Awaitable[CaseVerdict | Held]],
        cases: Iterable[Case] | AsyncIterable[Case],
        concurrency: int,
        on_input_end: Callable[[], None] | None = None,
        held_at_most: int = HELD_AT_MOST,
    ) -> None:
        self.judge = judge
        self.cases = cases
        self.concurrency = concurrency
        self.on_input_end = on_input_end
        self.held_at_most = held_at_most
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

    def _spawn(self, group: asyncio.TaskGroup, work: Coroutine[Any, Any, None], name: str) -> None:
        task = group.create_task(work, name=name)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def run(self) -> None:
        slots = asyncio.Semaphore(self.concurrency)
        held: deque[Held] = deque()

        async def one(case: Case) -> None:
            try:
                outcome = await self.judge(case)
            finally:
                slots.release()
            if isinstance(outcome, Held):
                held.append(outcome)
                if len(held) > self.held_at_most:
                    self._spawn(first, again(held.popleft()), "jury-second-chance")
                return
            await self.queue.put(outcome)

        async def again(case: Held) -> None:
            # The cool-down is waited out without a slot: a waiting case asks nothing.
            await case.cooled()
            async with slots:
                verdict = await case.resume()
            await self.queue.put(verdict)

        try:
            async with asyncio.TaskGroup() as first:
                async for case in _aiter(self.cases):
                    await slots.acquire()
                    self._spawn(first, one(case), "jury-case")
                if self.on_input_end is not None:
                    self.on_input_end()
            # Every case has had its first pass: the end of the run, for the held ones.
            async with asyncio.TaskGroup() as group:
                while held:
                    self._spawn(group, again(held.popleft()), "jury-second-chance")
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
        judge: Callable[[Case], Awaitable[CaseVerdict | Held]],
        cases: Iterable[Case] | AsyncIterable[Case],
        concurrency: int,
        *,
        on_close: Callable[[], Coroutine[Any, Any, None]] | None = None,
        on_input_end: Callable[[], None] | None = None,
        held_at_most: int = HELD_AT_MOST,
    ) -> None:
        """`on_input_end` is called once every case is read (and started); `judge` may hold
        a case for a second chance, see the module's docstring."""
        self._run = _Run(judge, cases, concurrency, on_input_end, held_at_most)
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
