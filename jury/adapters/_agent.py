"""The agent seam: the system under test, as the engine calls it.

An agent takes one case (its question, or its conversation so far, and its metadata) and
returns what it answered and what it did. The engine calls it before the checks and the jury,
records the reply in the run directory before anything judges it, and never calls it again
for a case whose answer is recorded. An agent's failure is the system's failure: an agent
that raises, times out or answers nothing fails its case at the stage "agent" (unlike a
judge's error, which never fails a case).

Built-in agents (a Python callable, an HTTP endpoint, a model with a prompt template) live
in ``providers/``; an outside one subclasses `Agent` and implements ``respond``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..cases._case import Case, Trace
    from ..cases._turns import Turn
    from ._model import JudgeModel
    from ._request import JudgeReply, JudgeRequest, Usage

__all__ = ["Agent", "AgentReply"]


@dataclass(slots=True)
class AgentReply:
    """What the agent answered for one case, and what it did to answer.

    `trace` holds the retrieved sources, tool calls (with arguments, results and errors) and
    context of this request only; `turns`, for a conversation, the turns the agent added.
    `usage`, `cost` (US dollars) and `latency` (seconds) are the agent's own, when known:
    reported on a line of their own, never mixed with the judges'.
    """

    answer: str
    trace: Trace | None = None
    turns: tuple[Turn, ...] = ()
    usage: Usage | None = None
    cost: float | None = None
    latency: float | None = None
    #: Anything else the agent returned, kept in the case's metadata under "agent".
    metadata: dict[str, Any] = field(default_factory=dict)


class Agent(ABC):
    """The system under test: one case in, its `AgentReply` out.

    `name` identifies the agent in records and reports (``examples/agent.py:answer``,
    ``http://localhost:8080/ask``, ``openai/gpt-4.1-mini``); `family` is the model family it
    runs on, when known, for the warning that a judge shares the agent's family.
    """

    name: str
    family: str | None = None
    #: Set by an agent that is a model (``provider/model``), which also implements
    #: `request_for` and `reply_for`: the engine then sends its calls through its own call
    #: layer (cache, limits, retries, price) instead of calling `respond`.
    model: JudgeModel | None = None
    #: Why the agent is sent no images, or None when a case's images reach it (a callable
    #: gets the `Case`, images and all). Set by a built-in agent that cannot pass them on: a
    #: model whose provider's table says it takes none, an HTTP body template that places no
    #: ``{{images}}``. A run whose cases have images refuses such a model (it would answer
    #: blind) and warns of such an endpoint, at load (`jury.panel._images`).
    blind: str | None = None

    @abstractmethod
    async def respond(self, case: Case) -> AgentReply:
        """Answer `case`. Raise to fail it: the error is kept and shown with the case."""

    def request_for(self, case: Case) -> JudgeRequest:
        """The request that asks `model` to answer `case` (agents with a `model` only)."""
        raise NotImplementedError(f"{self.name} is no model agent")

    def reply_for(self, reply: JudgeReply, cost: float | None = None) -> AgentReply:
        """The `AgentReply` of `model`'s reply, with its price (agents with a `model` only)."""
        raise NotImplementedError(f"{self.name} is no model agent")

    async def aclose(self) -> None:  # noqa: B027 - most agents hold nothing to close
        """Release what the agent holds (sessions, connections). Called once, at the end."""
