"""One pipeline: agent -> checks -> jury -> decision, streamed.

Agent calls and judged cases each run within their own bound (the agent step's
`concurrency`, the panel's), so that a slow agent never holds the judges' slots and slow
judges never hold the agent's; the stream holds at most both at once, so a file of any size
streams in bounded memory.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, Awaitable, Callable, Coroutine, Iterable
from typing import Any

from .._verdict import CaseVerdict
from ..adapters._agent import Agent
from ..cases._case import Case
from ..panel._lifecycle import agent_lifecycle
from ..panel._panel import Panel
from ._agent_step import AgentStep
from ._calls import CallLayer
from ._second_chance import Held
from ._stream import VerdictStream

__all__ = ["agent_step", "pipeline"]


def agent_step(
    agent: Agent | AgentStep, concurrency: int, timeout: float, panel: Panel, calls: CallLayer
) -> AgentStep:
    """The step that calls `agent` (an `AgentStep` already built, as `jury run` builds it
    with its recording, is used as it is). A retired model as the agent is refused, as a
    juror's would be, and a model as the agent is asked through the judges' call layer."""
    step = (
        agent
        if isinstance(agent, AgentStep)
        else AgentStep(agent, concurrency=concurrency, timeout=timeout)
    )
    agent_lifecycle(step.agent, panel)
    if step.calls is None:
        step.calls = calls
    return step


def pipeline(
    judge: Callable[[Case], Awaitable[CaseVerdict | Held]],
    step: AgentStep,
    cases: Iterable[Case] | AsyncIterable[Case],
    concurrency: int,
    on_close: Callable[[], Coroutine[Any, Any, None]] | None = None,
    calls_for: Callable[[Case], int] | None = None,
) -> VerdictStream:
    """Each case answered by the step, then judged by `judge` (at most `concurrency` at once);
    a case whose agent broke comes out as its FAIL without a judge. A case held for a second
    chance (`Held`) is the stream's to ask again, outside these bounds. `on_close` runs when
    the stream is left (the agent's `aclose`, when the stream made the agent). `calls_for`
    counts the judge calls a case would have made, saved when its agent broke."""
    judging = asyncio.Semaphore(concurrency)
    in_flight = concurrency + step.concurrency
    step.limit_first(in_flight)

    async def one(case: Case) -> CaseVerdict | Held:
        answered = await step.run(case)
        if isinstance(answered, CaseVerdict):
            # Its judges are spared, as for a failed check: the calls not made are counted.
            saved = 0 if calls_for is None else calls_for(case)
            return answered.model_copy(update={"calls_saved": saved}) if saved else answered
        async with judging:
            return await judge(answered)

    return VerdictStream(one, cases, in_flight, on_input_end=step.input_ended, on_close=on_close)
