"""The agent step: the system under test answers a case before its checks and its jury.

At most `concurrency` agent calls run at once (a bound of their own, apart from the judges'
limits), each within `timeout` seconds. The answered case goes to `on_answer` (the run
records it there) before anything judges it. An agent that raises, times out or answers
nothing fails its case at the stage "agent": the system under test broke, so the case is a
FAIL, never INCONCLUSIVE, and no judge is asked about it.

An agent that cannot be reached at all is not a set of failed cases but a broken run: when
the first calls (as many as can run at once, or every case when there are fewer) all fail with
the same connection error, the step raises `AgentUnreachable` and the run stops. Those first
failures wait for that decision, so that a run that stops leaves no verdict behind.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from .._errors import AgentError, AgentUnreachable, CallFailed, ConfigError, OverBudget
from .._verdict import CallStats, CaseVerdict, CheckOutcome, CheckResult, Verdict
from ..adapters._agent import Agent, AgentReply
from ..cases._case import Case
from ._calls import CallLayer

__all__ = ["AGENT_STAGE", "AgentStep", "AgentUnreachable", "agent_failure", "answer_and_judge"]

#: The stage a case fails at when its agent broke: before retrieval, before anything else.
AGENT_STAGE = "agent"

#: Names of the connection errors of the HTTP clients an agent may use (aiohttp, httpx), so
#: that the engine recognises them without importing either.
_CONNECTION_ERRORS = frozenset(
    {"ClientConnectorError", "ClientConnectionError", "ServerDisconnectedError", "ConnectError"}
)


@dataclass(slots=True)
class AgentCounts:
    """Agent calls so far, for the progress line."""

    started: int = 0
    done: int = 0
    failed: int = 0
    #: USD a model as the agent cost through the call layer (None once a price is unknown).
    cost: float | None = 0.0


def agent_failure(case: Case, error: str) -> CaseVerdict:
    """The verdict of a case whose agent broke: FAIL at the stage "agent", with the error."""
    check = CheckResult(
        name=AGENT_STAGE, outcome=CheckOutcome.FAIL, reason=error, stage=AGENT_STAGE
    )
    return CaseVerdict(
        case_id=case.id,
        category=case.category,
        split=case.split,
        verdict=Verdict.FAIL,
        reasons=(f"the agent failed: {error}",),
        checks=(check,),
        judges_spared=True,
    )


def _is_connection_error(exc: BaseException) -> bool:
    # A built-in agent says so itself (`AgentUnreachable`, per call); a user's callable raises
    # what its own client raises.
    if isinstance(exc, AgentUnreachable | ConnectionError | socket.gaierror):
        return True
    return any(cls.__name__ in _CONNECTION_ERRORS for cls in type(exc).__mro__)


def answered(case: Case, reply: AgentReply) -> Case:
    """`case` with the agent's answer, trace, added turns and metadata (no re-validation: the
    reply's parts are already typed, and a case is copied once per call)."""
    update: dict[str, object] = {"answer": reply.answer}
    if reply.trace is not None:
        update["trace"] = reply.trace
    if reply.turns:
        update["turns"] = (*case.turns, *reply.turns)
    extra: dict[str, object] = dict(reply.metadata)
    metadata: dict[str, object] = dict(case.metadata)
    if reply.cost is not None:
        # Where `jury compare`'s cost = "agent" rule reads an answer's cost.
        metadata["cost_usd"] = reply.cost
    if reply.latency is not None:
        extra["latency_s"] = reply.latency
    if reply.usage is not None:
        extra["usage"] = {"input": reply.usage.input_tokens, "output": reply.usage.output_tokens}
    if extra:
        metadata["agent"] = extra
    if metadata != case.metadata:
        update["metadata"] = metadata
    return case.model_copy(update=update)


class AgentStep:
    """Calls the agent for each case, bounded and timed; see the module's docstring."""

    def __init__(
        self,
        agent: Agent,
        *,
        concurrency: int,
        timeout: float,
        on_answer: Callable[[Case], None] | None = None,
        needs_agent: Callable[[Case], bool] | None = None,
    ) -> None:
        self.agent = agent
        self.concurrency = concurrency
        self.timeout = timeout
        self.on_answer = on_answer
        self.needs_agent = needs_agent
        self.counts = AgentCounts()
        #: The engine's call layer, for a model as the agent (set by `Jury.evaluate`).
        self.calls: CallLayer | None = None
        self._slots = asyncio.Semaphore(concurrency)
        #: How many first calls decide whether the agent is reachable.
        self._first = concurrency
        self._wanted = 0
        self._early: list[str] = []
        self._decided = asyncio.Event()
        self._unreachable: AgentUnreachable | None = None

    def limit_first(self, calls: int) -> None:
        """At most `calls` first calls can run together (the stream's bound, or the number of
        cases once they are all read): that many decide reachability."""
        self._first = max(1, min(self._first, calls))
        self._settle()

    def input_ended(self) -> None:
        """Every case is read: when fewer cases than `concurrency` want the agent, their calls
        are all the first calls there are."""
        self.limit_first(self._wanted)

    async def run(self, case: Case) -> Case | CaseVerdict:
        """The answered case, to judge; or the FAIL verdict of a case whose agent broke."""
        if self.needs_agent is not None and not self.needs_agent(case):
            return case
        self._wanted += 1
        async with self._slots:
            if self._unreachable is not None:  # the run is stopping: no call starts now
                raise self._unreachable
            self.counts.started += 1
            started = time.perf_counter()
            try:
                async with asyncio.timeout(self.timeout):
                    # An outside agent may return anything: it is checked below, not trusted.
                    reply: object = await self._respond(case)
            except TimeoutError:
                return await self._failed(case, f"timed out after {self.timeout:g}s", None)
            except AgentUnreachable as exc:  # one call that could not connect: see `_failed`
                return await self._failed(case, str(exc), exc)
            except AgentError as exc:  # a built-in agent's own words for what went wrong
                return await self._failed(case, str(exc), exc)
            except ConfigError:
                raise
            except Exception as exc:
                return await self._failed(case, f"raised {type(exc).__name__}: {exc}", exc)
            finally:
                self.counts.done += 1
        if not isinstance(reply, AgentReply):
            return await self._failed(case, f"returned {type(reply).__name__}, not a reply", None)
        if not reply.answer or not reply.answer.strip():
            return await self._failed(case, "returned no answer", None)
        if reply.latency is None:
            reply.latency = time.perf_counter() - started
        self._decided.set()
        out = answered(case, reply)
        if self.on_answer is not None:
            self.on_answer(out)
        return out

    async def _respond(self, case: Case) -> object:
        """The agent's reply. A model as the agent is asked through the engine's call layer
        when the step has one (`calls`): the same cache, account limits, retries, price and
        budget as the judges', so a rerun pays for no answer twice."""
        if self.agent.model is None or self.calls is None:
            return await self.agent.respond(case)
        stats = CallStats()
        try:
            reply = await self.calls.caller(self.agent.model).call(
                self.agent.request_for(case), 0, stats
            )
        except CallFailed as exc:  # the system under test's model failed: its case fails
            raise AgentError(f"its model did not answer: {exc}") from None
        except OverBudget:
            raise AgentError("not asked: the run's budget (--max-cost) is spent") from None
        if self.counts.cost is not None:
            self.counts.cost = None if stats.cost is None else self.counts.cost + stats.cost
        return self.agent.reply_for(reply, stats.cost)

    async def _failed(self, case: Case, error: str, exc: Exception | None) -> CaseVerdict:
        self.counts.failed += 1
        if self._unreachable is not None:
            raise self._unreachable
        if not self._decided.is_set():
            if exc is not None and _is_connection_error(exc):
                self._early.append(error)
                self._settle()
                await self._decided.wait()
                if self._unreachable is not None:
                    raise self._unreachable
            else:
                self._decided.set()  # the agent answered, if badly: it is reachable
        verdict = agent_failure(case, error)
        if self.on_answer is not None:
            self.on_answer(case)
        return verdict

    def _settle(self) -> None:
        if self._decided.is_set() or len(self._early) < self._first:
            return
        if len(set(self._early)) == 1:
            self._unreachable = AgentUnreachable(
                f"the agent {self.agent.name} cannot be reached: its first "
                f"{len(self._early)} call(s) all {self._early[0]}"
            )
        self._decided.set()


async def answer_and_judge(
    judge: Callable[[Case], Awaitable[CaseVerdict]], case: Case, agent: Agent, seconds: float
) -> CaseVerdict:
    """One case answered by `agent`, then judged (a harness's or a test's single case). An
    unreachable agent FAILs it too: with one case there is no run to stop."""
    step = AgentStep(agent, concurrency=1, timeout=seconds)
    try:
        out = await step.run(case)
    except AgentUnreachable as exc:
        return agent_failure(case, str(exc))
    return out if isinstance(out, CaseVerdict) else await judge(out)
