"""A scripted judge: replies from a list or a callable, with latency and failures on cue.

The double for tests and benchmarks, shipped as public API (also as `jury.testing`)::

    judge = ScriptedModel([{"reason": "ok", "relevance": 5}], latency=0.05)
    judge = ScriptedModel(lambda request: {...}, failures={0: TransientError("503")})

`cost_per_call` gives each reply a known price (for budget tests); without it the price is
unknown, as for any model the price table does not list.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from jury.adapters import JudgeModel, JudgeReply, JudgeRequest, Usage

__all__ = ["Reply", "ScriptedModel"]

#: What a script gives for one call: reply text, an object to send as JSON, a whole reply, or
#: an exception to raise.
Reply = str | Mapping[str, Any] | JudgeReply | BaseException


class ScriptedModel(JudgeModel):
    """A judge that answers from a script. `requests` keeps every request it was sent."""

    def __init__(
        self,
        replies: Sequence[Reply] | Callable[[JudgeRequest], Reply],
        *,
        name: str = "scripted/judge",
        family: str = "scripted",
        latency: float | Callable[[int], float] = 0.0,
        failures: Mapping[int, BaseException] | None = None,
        cycle: bool = True,
        record: bool = True,
        cost_per_call: float | None = None,
    ) -> None:
        if not callable(replies) and not replies:
            raise ValueError("a script needs at least one reply")
        self.replies = replies
        self.name = name
        self.family = family
        self.latency = latency
        self.failures = dict(failures or {})
        self.cycle = cycle
        self.record = record
        self.cost_per_call = cost_per_call
        self.calls = 0
        self.requests: list[JudgeRequest] = []

    def price(self, reply: JudgeReply) -> float | None:
        return self.cost_per_call

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        index = self.calls
        self.calls += 1
        if self.record:
            self.requests.append(request)
        delay = self.latency(index) if callable(self.latency) else self.latency
        if delay:
            await asyncio.sleep(delay)
        if index in self.failures:
            raise self.failures[index]
        if callable(self.replies):
            item = self.replies(request)
        elif index < len(self.replies) or self.cycle:
            item = self.replies[index % len(self.replies)]
        else:
            raise IndexError(
                f"{self.name}: script has {len(self.replies)} replies, call {index + 1}"
            )
        if isinstance(item, BaseException):
            raise item
        if isinstance(item, JudgeReply):
            return item
        text = item if isinstance(item, str) else json.dumps(item)
        # Rough token counts (4 characters a token) so that reports have something to add up.
        sent = len(request.system) + sum(len(m.content) for m in request.messages)
        return JudgeReply(text=text, model=self.name, usage=Usage(sent // 4, len(text) // 4))
