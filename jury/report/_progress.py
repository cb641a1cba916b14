"""Live progress of a run: cases done, rate, ETA, calls, tokens, cost and errors by kind.

On a terminal it is a rich live display on stderr that disappears when the run ends (the
report follows on stdout). Anywhere else (CI logs, pipes, files) it is one plain line every
`interval` seconds: no cursor movement, no carriage returns, nothing a log viewer can garble.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from collections.abc import Callable
from typing import Any, Literal, Protocol, TextIO

from .._verdict import CallStats, CaseVerdict, VoteStatus

__all__ = ["ProgressMode", "RunProgress", "sources_text"]

ProgressMode = Literal["auto", "rich", "plain", "none"]


def _tokens(count: int) -> str:
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f}M"
    if count >= 10_000:
        return f"{count / 1000:.0f}k"
    return str(count)


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


#: Sources of cached replies a line names at most (the others are counted).
SOURCES_SHOWN = 3


def sources_text(sources: tuple[str, ...]) -> str:
    """Where cached replies came from (`CallStats.cached_from`), in a few words."""
    shown = ", ".join(sources[:SOURCES_SHOWN])
    more = len(sources) - SOURCES_SHOWN
    return f"{shown} and {more} more" if more > 0 else shown


class AgentCalls(Protocol):
    """The agent step's counts (`jury.engine` keeps them), read by the progress line."""

    started: int
    done: int
    failed: int
    #: USD a model as the agent cost (None: a price unknown).
    cost: float | None


class RunProgress:
    """Counts verdicts as they arrive and shows the run's progress.

    `done` is the number of cases already finished before this process started (a resumed
    run): they count toward the total but not toward the rate.
    """

    def __init__(
        self,
        total: int,
        *,
        done: int = 0,
        mode: ProgressMode = "auto",
        stream: TextIO | None = None,
        interval: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total = total
        self.done = done
        self.resumed = done
        self.stream = stream or sys.stderr
        self.interval = interval
        self.clock = clock
        #: What the calls of the cases judged so far cost.
        self.calls = CallStats()
        self.errors: Counter[str] = Counter()
        #: The agent's calls, when the run calls the system under test (shown beside the
        #: judges' calls: a slow agent and slow judges look the same from the case count).
        self.agent: AgentCalls | None = None
        self.verdicts: Counter[str] = Counter()
        self.mode = self._choose(mode)
        self._started = clock()
        self._last_line = self._started
        self._live: Any = None

    def _choose(self, mode: ProgressMode) -> ProgressMode:
        if mode != "auto":
            return mode
        terminal = self.stream.isatty() and os.environ.get("TERM") != "dumb"
        return "rich" if terminal and not os.environ.get("CI") else "plain"

    # --- counting --------------------------------------------------------------------------

    def add(self, verdict: CaseVerdict) -> None:
        self.done += 1
        self.verdicts[verdict.verdict.value] += 1
        for vote in verdict.votes:
            self.calls.add(vote.calls)
            if vote.status is not VoteStatus.VALID:
                self.errors[vote.status.value] += 1
        for check in verdict.checks:  # a check that asks a model (moderation) calls too
            if check.calls is not None:
                self.calls.add(check.calls)
        if self.mode == "plain" and self.clock() - self._last_line >= self.interval:
            self._print_line()

    @property
    def rate(self) -> float | None:
        """Cases per second in this process."""
        elapsed = self.clock() - self._started
        judged = self.done - self.resumed
        return judged / elapsed if elapsed > 0 and judged else None

    def line(self) -> str:
        """The status as one line of plain text."""
        parts = [f"{self.done}/{self.total} cases"]
        if self.total:
            parts[0] += f" ({self.done / self.total:.0%})"
        rate = self.rate
        if rate:
            parts.append(f"{rate:.1f} cases/s")
            left = self.total - self.done
            if left > 0:
                parts.append(f"ETA {_duration(left / rate)}")
        calls = self.calls
        agent = self.agent
        if agent is not None:
            running = agent.started - agent.done
            parts.append(f"agent calls {agent.done} ({running} running, {agent.failed} failed)")
            if agent.cost is None or agent.cost:  # a model as the agent: its spend, apart
                parts.append(
                    "agent cost ?" if agent.cost is None else f"agent cost ${agent.cost:.4f}"
                )
        judge = "judge calls" if agent is not None else "calls"
        cached = f"cached {calls.cache_hits}"
        if calls.cached_from:
            cached += f" from {sources_text(calls.cached_from)}"
        parts.append(f"{judge} {calls.attempts} ({cached})")
        parts.append(f"tokens {_tokens(calls.input_tokens)}/{_tokens(calls.output_tokens)}")
        parts.append("cost ?" if calls.cost is None else f"cost ${calls.cost:.4f}")
        if calls.fake:
            parts.append(f"FAKE replies {calls.fake} (jury.testing's fake server, priced $0)")
        if self.errors:
            kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(self.errors.items()))
            parts.append(f"errors: {kinds}")
        return " · ".join(parts)

    # --- showing ---------------------------------------------------------------------------

    def _print_line(self) -> None:
        self._last_line = self.clock()
        print(f"jury: {self.line()}", file=self.stream, flush=True)

    def _renderable(self) -> Any:
        from rich.console import Group
        from rich.progress_bar import ProgressBar
        from rich.text import Text

        counts = Text.assemble(
            (f"pass {self.verdicts['PASS']}", "green"),
            "  ",
            (f"fail {self.verdicts['FAIL']}", "red"),
            "  ",
            (f"inconclusive {self.verdicts['INCONCLUSIVE']}", "yellow"),
        )
        return Group(
            ProgressBar(total=max(self.total, 1), completed=self.done, width=50),
            Text(self.line()),
            counts,
        )

    def __enter__(self) -> RunProgress:
        if self.mode == "rich":
            from rich.console import Console
            from rich.live import Live

            console = Console(file=self.stream)
            self._live = Live(
                get_renderable=self._renderable,
                console=console,
                refresh_per_second=4,
                transient=True,
            )
            self._live.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None
        if self.mode == "plain":
            self._print_line()
