"""What the call cache costs the event loop, and why reads run inline.

Compares, on one machine in one run: a cache read done inline on the loop thread (what
`SqliteCache.get` does), the same read sent to a worker thread (``asyncio.to_thread``), a
cache write through `SqliteCache.put` (queued for the writer thread), and a write committed
inline. `put` returns once its reply is committed; run concurrently (as the engine's calls
are), commits are batched and the loop is free while it waits. Prints microseconds per
operation and the ratios.

    python benchmarks/cache.py [--calls 5000]
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jury.adapters import JudgeReply, JudgeRequest, Message, Usage
from jury.engine._cache import SqliteCache

REQUEST = JudgeRequest(system="s" * 2000, messages=(Message("user", "u" * 3000),), schema={})
REPLY = JudgeReply(text='{"reason": "fine", "relevance": 5}' * 4, model="m", usage=Usage(900, 80))


async def measure(calls: int, directory: Path) -> dict[str, float]:
    results: dict[str, float] = {}
    with SqliteCache(directory) as cache:
        started = time.perf_counter()
        for n in range(calls):
            await cache.put(f"k{n}", "m", REQUEST, REPLY)
        results["put awaited one at a time (latency)"] = time.perf_counter() - started

        async def put_many(start: int, count: int) -> None:
            for n in range(start, start + count):
                await cache.put(f"c{n}", "m", REQUEST, REPLY)

        started = time.perf_counter()
        cpu = time.process_time()
        async with asyncio.TaskGroup() as group:
            for worker in range(64):
                group.create_task(put_many(worker * calls // 64, calls // 64))
        results["put, 64 tasks at once (wall time per put)"] = time.perf_counter() - started
        results["put, 64 tasks at once (process CPU per put)"] = time.process_time() - cpu

        started = time.perf_counter()
        for n in range(calls):
            await cache.get(f"k{n}")
        results["get inline (hit)"] = time.perf_counter() - started

        started = time.perf_counter()
        for n in range(calls):
            await asyncio.to_thread(
                cache._reader.execute, "SELECT reply FROM calls WHERE key=?", (f"k{n}",)
            )
        results["get via asyncio.to_thread (hit)"] = time.perf_counter() - started

    inline = sqlite3.connect(directory / "inline.sqlite", isolation_level=None)
    inline.execute("PRAGMA journal_mode=WAL")
    inline.execute("PRAGMA synchronous=NORMAL")
    inline.execute("CREATE TABLE calls (key TEXT PRIMARY KEY, reply TEXT)")
    started = time.perf_counter()
    for n in range(calls):
        inline.execute("INSERT INTO calls VALUES (?, ?)", (f"k{n}", REPLY.text))
    results["put committed inline (one transaction each)"] = time.perf_counter() - started
    inline.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=5000)
    calls = parser.parse_args().calls
    with tempfile.TemporaryDirectory() as directory:
        results = asyncio.run(measure(calls, Path(directory)))
    base = results["get inline (hit)"]
    for name, seconds in results.items():
        print(f"{name:48s} {seconds / calls * 1e6:8.1f} us/op   x{seconds / base:5.2f}")


if __name__ == "__main__":
    main()
