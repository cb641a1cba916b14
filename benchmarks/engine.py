"""Engine benchmarks (issue 2): throughput, latency overhead, streaming memory.

The jury alone: the deterministic checks (on by default in a `Jury`) are measured apart, in
`benchmarks/checks.py`.

    python benchmarks/engine.py            # all three
    python benchmarks/engine.py throughput --cases 20000

(a) throughput: N cases x 3 scripted jurors answering at once (zero latency), validation
    included: judge calls per second and CPU microseconds per call. Cases are built as they
    stream in (their parsing is included), as a run reads them from its file.
(b) latency: N cases x 3 jurors that answer after 50 ms, at most 256 calls in flight: wall
    time over the theoretical floor (calls x latency / calls in flight).
(c) memory: 100,000 cases streamed from a JSONL file through `jury.evaluate` into a summary,
    in a fresh process: peak resident memory.
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
from jury import Case, Juror, Jury, Panel, ProviderLimits, iter_cases
from jury.report._summary import Tally
from jury.testing import ScriptedModel

REPLY = json.dumps(
    {
        "reason": "Supported by the tool result and within the policy.",
        "relevance": 5,
        "correctness": 4,
        "faithfulness": 5,
        "helpfulness": 4,
        "hallucinationFree": 5,
    }
)


def quiet() -> None:
    # One info event per case is the library's contract; a benchmark measures the engine.
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))


def case_data(i: int) -> dict[str, Any]:
    return {
        "id": f"case-{i}",
        "category": ("policy", "tool", "combined", "edge", "adversarial")[i % 5],
        "question": f"Can I still return ORD-{i}?",
        "goldenAnswer": f"Yes. ORD-{i} was delivered 20 days ago, within the 30-day window.",
        "trace": {
            "answer": f"Yes. ORD-{i} was delivered 20 days ago, within the 30-day return window.",
            "retrievedSources": ["return-policy.md"],
            "toolCalls": [
                {
                    "name": "getOrderStatus",
                    "argument": f"ORD-{i}",
                    "result": "Delivered 20 days ago",
                }
            ],
            "context": "Products can be returned within 30 days of delivery.",
        },
    }


def cases(n: int) -> Iterator[Case]:
    for i in range(n):
        yield Case.model_validate(case_data(i))


def panel(latency: float = 0.0, concurrency: int = 256, in_flight: int | None = None) -> Panel:
    models = [
        ScriptedModel([REPLY], name=f"scripted/judge-{i}", latency=latency, record=False)
        for i in range(3)
    ]
    limits = {"scripted": ProviderLimits(concurrency=in_flight)} if in_flight else {}
    return Panel(
        jurors=tuple(Juror(model=m) for m in models), concurrency=concurrency, providers=limits
    )


async def drain(jury: Jury, source: Any) -> Tally:
    tally = Tally(jury.jurors)
    async for verdict in jury.evaluate(source):
        tally.add(verdict)
    return tally


def throughput(n: int) -> dict[str, float]:
    jury = Jury(panel(), checks=None)
    started = time.perf_counter()
    cpu = time.process_time()
    tally = asyncio.run(drain(jury, cases(n)))
    wall = time.perf_counter() - started
    cpu = time.process_time() - cpu
    calls = 3 * n
    assert tally.passed == n, tally.summary()
    return {
        "cases": n,
        "calls": calls,
        "wall_s": wall,
        "calls_per_s": calls / wall,
        "us_per_call": cpu / calls * 1e6,
    }


def latency(n: int, delay: float = 0.05, in_flight: int = 256) -> dict[str, float]:
    prepared = list(cases(n))
    jury = Jury(panel(latency=delay, concurrency=in_flight, in_flight=in_flight), checks=None)
    started = time.perf_counter()
    tally = asyncio.run(drain(jury, prepared))
    wall = time.perf_counter() - started
    calls = 3 * n
    floor = calls * delay / in_flight
    assert tally.passed == n
    return {"cases": n, "calls": calls, "wall_s": wall, "floor_s": floor, "ratio": wall / floor}


def memory_child(path: str) -> None:
    quiet()
    jury = Jury(panel(), checks=None)
    tally = asyncio.run(drain(jury, iter_cases(path)))
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"cases": tally.total, "peak_mb": peak_kb / 1024}))


def memory(n: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cases.jsonl"
        with path.open("w") as handle:
            for i in range(n):
                handle.write(json.dumps(case_data(i)) + "\n")
        size_mb = path.stat().st_size / 2**20
        started = time.perf_counter()
        out = subprocess.run(
            [sys.executable, __file__, "memory-child", str(path)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        result: dict[str, float] = json.loads(out)
        result["file_mb"] = size_mb
        result["wall_s"] = time.perf_counter() - started
        return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "which",
        nargs="?",
        default="all",
        choices=["all", "throughput", "latency", "memory", "memory-child"],
    )
    parser.add_argument("path", nargs="?")
    parser.add_argument("--cases", type=int)
    args = parser.parse_args()
    if args.which == "memory-child":
        memory_child(args.path)
        return
    quiet()
    print(f"machine: {machine()}")
    if args.which in ("all", "throughput"):
        r = throughput(args.cases or 20_000)
        print(
            f"(a) throughput: {r['cases']:,} cases x 3 jurors = {r['calls']:,} calls in "
            f"{r['wall_s']:.2f}s: {r['calls_per_s']:,.0f} calls/s, "
            f"{r['us_per_call']:.1f} us CPU per call (target >= 10,000 calls/s)"
        )
    if args.which in ("all", "latency"):
        r = latency(args.cases or 2_000)
        print(
            f"(b) latency: {r['cases']:,} cases x 3 jurors at 50 ms, 256 calls in flight: "
            f"{r['wall_s']:.2f}s over a floor of {r['floor_s']:.2f}s = {r['ratio']:.3f} "
            "(target <= 1.10)"
        )
    if args.which in ("all", "memory"):
        r = memory(args.cases or 100_000)
        print(
            f"(c) memory: {r['cases']:,} cases streamed from a {r['file_mb']:.0f} MB JSONL "
            f"file in {r['wall_s']:.1f}s: peak {r['peak_mb']:.0f} MB (target < 300 MB)"
        )


if __name__ == "__main__":
    main()
