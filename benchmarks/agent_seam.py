"""The built-in callable agent's own cost per case: `CallableAgent.respond` (the per-call
`jury.trace.recording`, the call, `reply_from`) around an agent that does nothing.

    python benchmarks/agent_seam.py                      # 10,000 cases, every return shape
    python benchmarks/agent_seam.py --cases 2000 --repeat 3

Shapes: ``str`` (an async function returning the answer), ``seed`` (the seed article's
mapping, read by the case loader's readers), ``recorded`` (an answer and three `jury.trace`
helper calls), ``sync`` (a plain function, run in a worker thread). The cases are made before
the clock starts, and at most 8 calls are in flight (the default ``agent_concurrency``). It
prints CPU microseconds per case (process time, so the worker threads count), and the peak of
memory traced during one more run (traced apart: tracing slows a run), per shape: the target
is under 100 µs of CPU per case for the agent step itself, and memory that does not grow with
the number of cases (8 workers take the cases one by one, so nothing waits in a queue).
Engine and panel are not in it: see the pipeline's benchmark for those.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import jury.trace
from benchmarks._machine import machine
from jury import Case
from jury.providers.agents._callable import CallableAgent

SEED = {
    "answer": "ORD-101 was shipped 2 days ago and has not been delivered yet.",
    "retrievedSources": ["orders.md"],
    "toolCalls": [{"name": "getOrderStatus", "argument": "ORD-101", "result": "Shipped"}],
    "context": "ORD-101 shipped 2 days ago.",
}


async def as_text(case: Case) -> str:
    return "ORD-101 was shipped 2 days ago."


async def as_seed(case: Case) -> dict[str, Any]:
    return SEED


async def recorded(case: Case) -> str:
    jury.trace.retrieved("orders.md")
    jury.trace.context("ORD-101 shipped 2 days ago.")
    jury.trace.tool_call("getOrderStatus", "ORD-101", result="Shipped")
    return "ORD-101 was shipped 2 days ago."


def sync(case: Case) -> str:
    return "ORD-101 was shipped 2 days ago."


SHAPES = {"str": as_text, "seed": as_seed, "recorded": recorded, "sync": sync}


async def _run(agent: CallableAgent, cases: list[Case], concurrency: int) -> None:
    pending = iter(cases)

    async def worker() -> None:
        for case in pending:
            await agent.respond(case)

    async with asyncio.TaskGroup() as group:
        for _ in range(concurrency):
            group.create_task(worker())


def measure(shape: str, count: int, concurrency: int, *, memory: bool = False) -> float:
    """CPU µs per case of one run of `count` cases; with `memory`, the peak of memory traced
    (kB) instead (tracing slows the run several times over: never both in one run)."""
    agent = CallableAgent(f"bench:{shape}", SHAPES[shape])
    cases = [Case(id=f"c{n}", question="Where is my order ORD-101?") for n in range(count)]
    gc.collect()
    if memory:
        tracemalloc.start()
        asyncio.run(_run(agent, cases, concurrency))
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return peak / 1e3
    started = time.process_time()
    asyncio.run(_run(agent, cases, concurrency))
    return (time.process_time() - started) / count * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--shapes", nargs="*", default=list(SHAPES))
    options = parser.parse_args()
    print(f"# {machine()}; {options.cases} cases, {options.concurrency} in flight")
    print("| shape | CPU µs per case (each run, interleaved) | peak traced kB |")
    print("| --- | --- | --- |")
    runs: dict[str, list[float]] = {shape: [] for shape in options.shapes}
    for _ in range(options.repeat):  # interleaved: the shared machine drifts between runs
        for shape in options.shapes:
            runs[shape].append(measure(shape, options.cases, options.concurrency))
    for shape in options.shapes:
        peak = measure(shape, options.cases, options.concurrency, memory=True)
        cpu = ", ".join(f"{us:.1f}" for us in runs[shape])
        print(f"| {shape} | {cpu} | {peak:.1f} |")


if __name__ == "__main__":
    main()
