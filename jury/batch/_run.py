"""A batch run: judge cases in passes, their calls sent through provider batch APIs.

    pass      every unfinished case is judged; a case whose calls are all answered gets its
              verdict, the others are deferred and their requests written into batches
              (`jury.batch._model`); a batch that has collected long enough is sent at once
    submit    every sealed batch is created at its provider (at most ``in_flight`` a model)
    wait      batches are polled until they end; each one's results go into the store
    ...and the next pass judges again: the replies are there, and re-asks go into follow-up
    batches. A run ends when a pass defers no case, or after submitting when it is asked to
    (``submit_only``): then it says what is pending, and the same run resumed goes on.

The store (`jury.batch._store`) makes every step safe to kill and to repeat: see there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal, TypeVar

from .._clock import Clock
from .._errors import JuryError
from .._verdict import CaseVerdict
from ..adapters._model import JudgeModel
from ..adapters._registry import resolve_model
from ..adapters._request import CallCache
from ..cases._case import Case
from ..engine._jury import Checker, Jury
from ..panel._batch_settings import BatchSettings
from ..panel._panel import Juror, Panel
from ._dispatch import Dispatcher
from ._model import BatchCallCache, BatchedModel, Batcher, CaseTicket, Deferred, case_ticket
from ._store import BatchRow, BatchStore

__all__ = ["BatchRun", "BatchRunResult", "batch_jurors"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class BatchRunResult:
    """Where a batch run stopped: `decided` cases got their verdict in this process, `waiting`
    cases wait for `pending` batches (none when the run is over)."""

    decided: int
    waiting: int
    pending: tuple[BatchRow, ...]

    @property
    def finished(self) -> bool:
        return not self.waiting and not self.pending


def batch_jurors(panel: Panel, *, all_jurors: bool) -> list[bool]:
    """Which jurors a batch run sends through batches: ``batch`` on the juror, else the
    panel's ``[batch]`` table or `all_jurors` (``jury run --batch``)."""
    default = all_jurors or panel.batch is not None
    return [juror.batch if juror.batch is not None else default for juror in panel.jurors]


class BatchRun:
    """A `Jury` over batched models, and the passes that drive it."""

    def __init__(
        self,
        panel: Panel,
        store: BatchStore,
        *,
        all_jurors: bool = False,
        cache: CallCache | None = None,
        checks: Checker | Literal["panel", False] | None = "panel",
        judge_all: bool = False,
        clock: Clock | None = None,
        notify: Callable[[str], None] | None = None,
    ) -> None:
        self.store = store
        self.settings = panel.batch or BatchSettings()
        self.clock = clock or Clock()
        self._notify = notify or (lambda line: None)
        self._batchers: dict[str, Batcher] = {}
        self._wrapped: dict[str, BatchedModel] = {}
        #: Jurors whose model has no batch API, and so are judged online.
        self.online: list[str] = []
        jurors = [
            self._juror(juror, panel, batched)
            for juror, batched in zip(
                panel.jurors, batch_jurors(panel, all_jurors=all_jurors), strict=True
            )
        ]
        wrapped = panel.model_copy(update={"jurors": tuple(jurors)})
        self.jury = Jury(
            wrapped,
            clock=self.clock,
            checks=checks,
            judge_all=judge_all,
            cache=BatchCallCache(cache, store) if cache is not None else None,
        )
        self._concurrency = panel.concurrency
        self._dispatch = Dispatcher(
            store,
            self._batchers,
            {model.name: model for model in self._wrapped.values()},
            settings=self.settings,
            retry=panel.retry,
            clock=self.clock,
            notify=self._notify,
        )

    # --- the panel, over batched models --------------------------------------------------

    def _juror(self, juror: Juror, panel: Panel, batched: bool) -> Juror:
        models = [self._model(spec, panel, batched) for spec in (juror.model, *juror.fallbacks)]
        return juror.model_copy(update={"model": models[0], "fallbacks": tuple(models[1:])})

    def _model(self, spec: str | JudgeModel, panel: Panel, batched: bool) -> BatchedModel:
        model = resolve_model(spec) if isinstance(spec, str) else spec
        key = f"{model.name}|{batched}"
        if key in self._wrapped:
            return self._wrapped[key]
        api = model.batches() if batched else None
        batcher = None
        if api is not None:
            batcher = self._batchers.get(model.name)
            if batcher is None:
                index = len(self._batchers) + 1
                batcher = Batcher(model.name, index, api, self.store, self.settings)
                self._batchers[model.name] = batcher
        elif batched and not model.offline:
            self.online.append(model.name)
        wrapped = BatchedModel(
            model,
            self.store,
            batcher,
            retries=self.settings.retries,
            fallback_online=panel.batch_fallback == "online",
        )
        self._wrapped[key] = wrapped
        return wrapped

    async def aclose(self) -> None:
        """Close the models and their batch APIs, and the store."""
        for batcher in self._batchers.values():
            await batcher.api.aclose()
        await self.jury.aclose()
        self.store.close()

    async def __aenter__(self) -> BatchRun:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # --- the run ---------------------------------------------------------------------------

    async def run(
        self,
        cases: Callable[[], Iterable[Case]],
        on_verdict: Callable[[CaseVerdict], None],
        *,
        submit_only: bool = False,
    ) -> BatchRunResult:
        """Judge `cases()` (called once a pass: the cases still without a verdict) until each
        has its verdict, or, with `submit_only`, until every batch is sent."""
        decided = 0
        await self._dispatch.recover()
        await self._dispatch.drain(wait=False)
        passes = 0
        while True:
            passes += 1
            collected = self._dispatch.collected
            done, waiting = await self._pass(cases(), on_verdict)
            decided += done
            await self._dispatch.drain(wait=False)
            pending = tuple(self._dispatch.pending())
            self._notify(
                f"pass {passes}: {done} case{'s' * (done != 1)} decided, {waiting} waiting "
                f"on {len(pending)} batch{'es' * (len(pending) != 1)}"
            )
            if not waiting and not pending:
                return BatchRunResult(decided, 0, ())
            if pending and submit_only:
                return BatchRunResult(decided, waiting, pending)
            if pending:
                await self._dispatch.drain(wait=True)
            elif not done and self._dispatch.collected == collected:
                # A deferred case always has its request in a batch not over yet, or in one
                # collected since: a pass that learnt nothing new would repeat for ever.
                raise RuntimeError(f"{waiting} cases wait on no batch")

    async def _pass(
        self, cases: Iterable[Case], on_verdict: Callable[[CaseVerdict], None]
    ) -> tuple[int, int]:
        counts = [0, 0]
        slots = asyncio.Semaphore(self._concurrency)
        ticket = case_ticket()

        async def one(case: Case) -> None:
            token = ticket.set(CaseTicket())
            try:
                verdict = await self.jury.judge(case)
            except Deferred:
                counts[1] += 1
                return
            except BaseExceptionGroup as group:
                _raise_unless_deferred(group)
                counts[1] += 1
                return
            finally:
                ticket.reset(token)
                slots.release()
            counts[0] += 1
            on_verdict(verdict)

        try:
            async with asyncio.TaskGroup() as group:
                for case in cases:
                    await slots.acquire()
                    group.create_task(one(case))
                    if any(b.due() for b in self._batchers.values()):
                        self._dispatch.send_due()
        except BaseExceptionGroup as failure:
            raise _first_error(failure) from None
        await self._dispatch.seal_all()
        return counts[0], counts[1]


def _raise_unless_deferred(group: BaseExceptionGroup[BaseException]) -> None:
    rest = group.subgroup(lambda exc: not isinstance(exc, (Deferred, BaseExceptionGroup)))
    if rest is not None:
        raise _first_error(rest) from None


def _first_error(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The error that stopped the pass, not a nest of task-group wrappers."""
    found: BaseException = group
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            return _first_error(exc)
        if isinstance(exc, JuryError):
            return exc
        found = exc
    return found
