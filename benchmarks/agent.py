"""The agent step's cost (issue 20): golden cases through a no-op async agent and the offline panel.

    python benchmarks/agent.py cpu --cases 10000 --rounds 3
    python benchmarks/agent.py memory --cases 10000 40000

(a) cpu: the agent step's own CPU per case, two ways, in one process:
    - alone: `AgentStep.run` over N golden cases with a no-op async agent, through the
      stream (its bound, its timeout, the answered copy of each case), no judging;
    - in the pipeline: N golden cases through `Jury.evaluate(cases, agent=noop)` against the
      same N cases already answered through `Jury.evaluate(cases)`, offline panel and default
      checks on both sides, the two interleaved (the order swaps every round): the difference
      per case is what the agent step adds to a run.
(b) memory: `jury run GOLDEN --agent benchmarks/agent.py:noop` in a fresh process per size,
    offline panel, cases recorded and reports published: the child's peak resident memory.
    Flat in the number of cases means the same peak at both sizes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import structlog

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._machine import machine
from jury import Case, Jury, default_panel
from jury.adapters import Agent, AgentReply
from jury.engine._agent_step import AgentStep
from jury.engine._stream import VerdictStream

ANSWER = "Yes. The order was delivered 20 days ago, within the 30-day return window."


async def noop(case: Case) -> str:
    """The agent under measure: answers at once, does nothing."""
    return ANSWER


class Noop(Agent):
    """`noop` as an `Agent` (the seam the engine calls)."""

    name = "noop"

    async def respond(self, case: Case) -> AgentReply:
        return AgentReply(answer=ANSWER)


def quiet() -> None:
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))


def case_data(i: int, answered: bool) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": f"case-{i}",
        "category": ("policy", "tool", "combined", "edge")[i % 4],
        "question": f"Can I still return ORD-{i}?",
        "golden_answer": "Yes. ORD was delivered 20 days ago, within the 30-day window.",
    }
    if answered:
        data["answer"] = ANSWER
    return data


def cases(n: int, answered: bool = False) -> Iterator[Case]:
    for i in range(n):
        yield Case.model_validate(case_data(i, answered))


async def step_alone(n: int) -> float:
    """CPU seconds for N cases through the agent step alone (cases built in both halves:
    the cost of building them is measured apart and taken off)."""
    step = AgentStep(Noop(), concurrency=8, timeout=60.0)

    async def answer(case: Case) -> Any:
        return await step.run(case)

    async def identity(case: Case) -> Any:
        return case

    async def drain(judge: Any) -> float:
        started = time.process_time()
        async for _ in VerdictStream(judge, cases(n), 40):
            pass
        return time.process_time() - started

    return await drain(answer) - await drain(identity)


async def pipeline(n: int, agent: bool) -> float:
    async with Jury(default_panel()) as jury:
        started = time.process_time()
        golden = cases(n, answered=not agent)
        stream = jury.evaluate(golden, agent=Noop() if agent else None)
        async for _ in stream:
            pass
        return time.process_time() - started


def cpu(n: int, rounds: int) -> None:
    quiet()
    alone = [asyncio.run(step_alone(n)) / n * 1e6 for _ in range(rounds)]
    print(f"agent step alone, {n} cases: {', '.join(f'{v:.1f}' for v in alone)} us CPU per case")
    added = []
    for index in range(rounds):
        order = (True, False) if index % 2 == 0 else (False, True)
        spent = {side: asyncio.run(pipeline(n, side)) for side in order}
        with_agent, without = spent[True] / n * 1e6, spent[False] / n * 1e6
        added.append(with_agent - without)
        print(
            f"round {index + 1}: with agent {with_agent:.0f} us/case, answered file "
            f"{without:.0f} us/case, added {with_agent - without:.1f} us/case "
            f"(ratio {with_agent / without:.3f})"
        )
    print(f"agent step in the pipeline: {', '.join(f'{v:.1f}' for v in added)} us CPU per case")
    print(machine())


def memory(sizes: list[int]) -> None:
    root = Path(__file__).resolve().parent.parent
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            golden = Path(tmp) / "golden.jsonl"
            with open(golden, "w") as handle:
                for i in range(n):
                    handle.write(json.dumps(case_data(i, answered=False)) + "\n")
            command = [sys.executable, "-m", "jury", "run", str(golden)]
            command += ["--agent", "benchmarks/agent.py:noop", "--out", str(Path(tmp) / "run")]
            command += ["--progress", "none", "--no-cache"]
            started = time.perf_counter()
            before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            done = subprocess.run(command, cwd=root, capture_output=True, check=False)
            peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            wall = time.perf_counter() - started
            verdicts = (Path(tmp) / "run" / "verdicts.jsonl").read_bytes().count(b"\n")
            note = "" if peak > before else " (not above an earlier child's peak)"
            print(
                f"{n} cases: exit {done.returncode}, {verdicts} verdicts, peak {peak / 1024:.0f} MB"
                f"{note}, {wall:.1f} s"
            )
    print(machine())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("cpu", "memory"))
    parser.add_argument("--cases", type=int, nargs="+", default=[10_000])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.what == "cpu":
        cpu(args.cases[0], args.rounds)
    else:
        memory(args.cases)


if __name__ == "__main__":
    main()
