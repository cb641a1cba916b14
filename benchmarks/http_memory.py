"""Peak memory of judging over loopback HTTP: the public API beside a bare `openai` SDK loop.

N cases x 3 OpenAI jurors against the fake provider server (`python -m jury.testing`, in its
own process, 127.0.0.1 only), each side in a fresh process so that one's imports and heap do
not count for the other:

- jury: `Jury.evaluate` over a stream of cases (none held by the caller), the built-in
  five-metric rubric, the default direct transport, no deterministic checks (as the bare
  loop has none);
- bare SDK: one `openai.AsyncOpenAI` client (its aiohttp transport, retries off) sending the
  same request bodies (built by the adapter's wire, so the bytes are the same) with the same
  number of cases in flight.

Reported: each side's peak resident memory (``VmHWM``; until issue 36 ``ru_maxrss``, which in
these children was their parent's peak: see `benchmarks._machine.peak_mb`); with ``--trace``,
the files holding the most memory still allocated at the end, and tracemalloc's traced peak.

    python benchmarks/http_memory.py --cases 1000
    python benchmarks/http_memory.py --cases 1000 --side jury --trace

The script uses only names that the layout before the moves (dd12058) also had, so that
`benchmarks/ab.py` can run it in both checkouts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._machine import machine, peak_mb
from benchmarks.providers import KEY, ServerProcess
from jury import Case, Juror, Jury, Panel, ProviderLimits, load_rubric
from jury._logging import configure_logging

JURORS = (
    "openai/gpt-4.1-mini-2025-04-14",
    "openai/gpt-4.1-2025-04-14",
    "openai/gpt-4o-mini-2024-07-18",
)


def streamed_cases(n: int) -> Iterator[Case]:
    """The cases one at a time, as a run reads them from its file."""
    for i in range(n):
        yield Case(
            id=f"case-{i}",
            question=f"Order #{1000 + i}: can I still return item {i % 17} bought {i % 40} "
            "days ago?",
            answer=f"Returns are accepted within 30 days; item {i % 17} was bought {i % 40} "
            "days ago.",
            golden_answer="Returns are accepted within 30 days of delivery.",
        )


async def judge_with_jury(n: int, concurrency: int) -> int:
    panel = Panel(
        jurors=tuple(Juror(model=m) for m in JURORS),
        concurrency=concurrency,
        providers={"openai": ProviderLimits(concurrency=concurrency * len(JURORS))},
    )
    valid = 0
    async with Jury(panel, checks=None) as jury:
        async for verdict in jury.evaluate(streamed_cases(n)):
            valid += verdict.valid_votes
    return valid


async def judge_with_sdk(n: int, concurrency: int) -> int:
    import openai

    from jury.adapters import JudgeRequest, Message
    from jury.providers.openai import OpenAIWire

    rubric = load_rubric("five-metric")
    client = openai.AsyncOpenAI(max_retries=0, http_client=openai.DefaultAioHttpClient())
    wire = OpenAIWire(provider="openai", base_url="", key=KEY, key_variable="OPENAI_API_KEY")
    cases = streamed_cases(n)
    valid = 0

    async def worker() -> None:
        nonlocal valid
        for case in cases:  # one shared iterator: each worker takes the next case
            prompt = rubric.prompts(case)[0]
            request = JudgeRequest(
                system=prompt.system,
                messages=(Message("user", prompt.user),),
                schema=prompt.schema,
                schema_name=prompt.schema_name,
            )
            replies = await asyncio.gather(
                *(
                    client.chat.completions.create(**wire.body(m.partition("/")[2], request))
                    for m in JURORS
                )
            )
            valid += sum(1 for reply in replies if reply.choices[0].message.content)

    try:
        await asyncio.gather(*(worker() for _ in range(concurrency)))
    finally:
        await client.close()
    return valid


def child(side: str, n: int, concurrency: int, trace: bool) -> None:
    configure_logging(0)
    if trace:
        import tracemalloc

        tracemalloc.start(1)
    work = judge_with_jury if side == "jury" else judge_with_sdk
    valid = asyncio.run(work(n, concurrency))
    result: dict[str, Any] = {
        "valid": valid,
        "peak_mb": peak_mb(),
    }
    if trace:
        result["traced_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
        snapshot = tracemalloc.take_snapshot()
        result["top"] = [
            f"{stat.size / 2**20:.2f} MB in {stat.count} blocks: {stat.traceback[0].filename}"
            for stat in snapshot.statistics("filename")[:25]
        ]
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=64, help="cases in flight")
    parser.add_argument("--latency", type=float, default=0.0, help="server latency, seconds")
    parser.add_argument("--side", choices=("both", "jury", "sdk"), default="both")
    parser.add_argument("--trace", action="store_true", help="where memory goes (tracemalloc)")
    parser.add_argument("--child", choices=("jury", "sdk"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.cases, args.concurrency, args.trace)
        return
    server = ServerProcess(args.latency)
    print(f"# {machine()}; load {os.getloadavg()[0]:.2f}")
    print(
        f"{args.cases} cases x {len(JURORS)} OpenAI jurors over loopback HTTP, "
        f"{args.concurrency} cases in flight, server latency {args.latency * 1000:g} ms"
    )
    try:
        sides = ("jury", "sdk") if args.side == "both" else (args.side,)
        for side in sides:
            command = [sys.executable, __file__, "--child", side, "--cases", str(args.cases)]
            command += ["--concurrency", str(args.concurrency), *(["--trace"] * args.trace)]
            out = subprocess.run(
                command,
                env={**os.environ, **server.env()},
                capture_output=True,
                text=True,
                check=False,
            )
            if out.returncode:
                raise SystemExit(f"{side}: exit {out.returncode}\n{out.stderr[-3000:]}")
            result = json.loads(out.stdout.splitlines()[-1])
            if result["valid"] != args.cases * len(JURORS):
                raise SystemExit(f"{side}: {result['valid']} valid replies")
            label = "jury (public API)" if side == "jury" else "bare openai SDK loop"
            print(f"{label}: peak {result['peak_mb']:.1f} MB", flush=True)
            if args.trace:
                print(f"    traced peak {result['traced_peak_mb']:.1f} MB; still held:")
                for line in result["top"]:
                    print(f"    {line}")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
