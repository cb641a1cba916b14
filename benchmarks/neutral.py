"""The neutral harness (issue 36): a judge library inside a harness's process, beside the bare SDK.

N cases x 3 OpenAI jurors against the fake provider server (`python -m jury.testing`, in its
own process, 127.0.0.1 only, answering after `--latency`), C cases in flight, each side in a
fresh process, the sides interleaved: every round runs each side once, the order rotating
from round to round, so that the machine's drift favours none. Sides:

- ``run``: `jury.run` on a JSONL file of the cases (the whole pipeline: the run directory,
  the call cache in SQLite, the records and the reports), a jury file with the three jurors;
- ``run-no-html``: the same with ``no_html=True`` (``--no-html``): every record and report
  but the HTML page (its templates, its agreement statistics);
- ``evaluate``: `jury.Jury.evaluate` over a stream of the same cases (verdicts only, no
  deterministic checks, as the bare loop has none);
- ``sdk``: one `openai.AsyncOpenAI` client (its default transport, retries off) sending the
  same request bodies (built by the adapter's wire, so the bytes are the same) for the three
  jurors of a case with `asyncio.gather`, C workers.

Each child reports the seconds and resident memory its imports took, its peak resident
memory (``VmHWM``: `benchmarks._machine.peak_mb` says why not ``ru_maxrss``), and its CPU
seconds (all threads) over the judging. The summary gives, per jury side, its median ratio to
the bare SDK of the same round and the range over rounds.

    python benchmarks/neutral.py --rounds 5
    python benchmarks/neutral.py --rounds 1 --sides run --trace    # where the memory goes
    python benchmarks/neutral.py --rounds 3 --old ../old           # before/after, same run
    python benchmarks/neutral.py --rounds 5 --priced                # with the price table
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_STARTED = time.perf_counter()
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._machine import peak_mb  # noqa: E402  (imports nothing of jury)

JURORS = (
    "openai/gpt-4.1-mini-2025-04-14",
    "openai/gpt-4.1-2025-04-14",
    "openai/gpt-4o-mini-2024-07-18",
)
SIDES = ("run", "run-no-html", "evaluate", "sdk")


def case_data(n: int) -> Iterator[dict[str, Any]]:
    """The cases one at a time, as a harness reads them from its own store."""
    for i in range(n):
        yield {
            "id": f"case-{i}",
            "question": f"Order #{1000 + i}: can I still return item {i % 17} bought "
            f"{i % 40} days ago?",
            "answer": f"Returns are accepted within 30 days; item {i % 17} was bought "
            f"{i % 40} days ago.",
            "golden_answer": "Returns are accepted within 30 days of delivery.",
        }


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _run_files(n: int, concurrency: int, folder: Path) -> tuple[Path, Path]:
    """The cases file and the jury file a `jury run` of this harness reads."""
    cases = folder / "cases.jsonl"
    with open(cases, "w", encoding="utf-8") as out:
        for data in case_data(n):
            out.write(json.dumps(data) + "\n")
    panel = folder / "jury.toml"
    names = ", ".join(f'"{m}"' for m in JURORS)
    panel.write_text(f"jurors = [{names}]\nconcurrency = {concurrency}\n", encoding="utf-8")
    return cases, panel


#: A budget no run reaches: with one, every reply of the fake is priced as the real API's
#: (`--priced`), so the price table's memory and CPU are in the figures as in a real run.
_NEVER_REACHED = 1e9


async def _with_run(
    cases: Path, panel: Path, folder: Path, no_html: bool = False, priced: bool = False
) -> int:
    import jury

    valid = 0

    def count(verdict: jury.CaseVerdict) -> None:
        nonlocal valid
        valid += verdict.valid_votes

    options: dict[str, Any] = {"no_html": True} if no_html else {}  # an older jury lacks it
    if priced:
        options["max_cost"] = _NEVER_REACHED
    await jury.run(
        cases,
        jury=str(panel),
        out=str(folder / "run"),
        cache_dir=str(folder / "cache"),
        on_verdict=count,
        **options,
    )
    return valid


async def _with_evaluate(n: int, concurrency: int, priced: bool = False) -> int:
    import jury

    panel = jury.Panel(
        jurors=tuple(jury.Juror(model=m) for m in JURORS),
        concurrency=concurrency,
        providers={"openai": jury.ProviderLimits(concurrency=concurrency * len(JURORS))},
    )
    valid = 0
    budget = _NEVER_REACHED if priced else None
    async with jury.Jury(panel, checks=None, max_cost=budget) as judge:
        async for verdict in judge.evaluate(jury.Case(**data) for data in case_data(n)):
            valid += verdict.valid_votes
    return valid


def _sdk_bodies(n: int) -> Iterator[list[dict[str, Any]]]:
    """Each case's three request bodies, built before the SDK side is timed (by the adapter's
    wire, in the parent process: the child imports nothing of `jury`)."""
    from jury import Case, load_rubric
    from jury.adapters import JudgeRequest, Message
    from jury.providers.openai import OpenAIWire

    rubric = load_rubric("five-metric")
    wire = OpenAIWire(provider="openai", base_url="", key="k", key_variable="OPENAI_API_KEY")
    for data in case_data(n):
        prompt = rubric.prompts(Case(**data))[0]
        request = JudgeRequest(
            system=prompt.system,
            messages=(Message("user", prompt.user),),
            schema=prompt.schema,
            schema_name=prompt.schema_name,
        )
        yield [wire.body(m.partition("/")[2], request) for m in JURORS]


async def _with_sdk(bodies_file: Path, concurrency: int, aiohttp: bool) -> int:
    import openai

    client = (
        openai.AsyncOpenAI(max_retries=0, http_client=openai.DefaultAioHttpClient())
        if aiohttp
        else openai.AsyncOpenAI(max_retries=0)
    )
    valid = 0

    def bodies() -> Iterator[list[dict[str, Any]]]:
        with open(bodies_file, encoding="utf-8") as lines:
            for line in lines:
                yield json.loads(line)

    source = bodies()

    async def worker() -> None:
        nonlocal valid
        for case in source:  # one shared iterator: each worker takes the next case
            replies = await asyncio.gather(
                *(client.chat.completions.create(**body) for body in case)
            )
            valid += sum(1 for reply in replies if reply.choices[0].message.content)

    try:
        await asyncio.gather(*(worker() for _ in range(concurrency)))
    finally:
        await client.close()
    return valid


def child(args: argparse.Namespace) -> None:
    side: str = args.child
    if args.checkout is not None:  # another checkout's `jury` (before/after in one run)
        sys.path.insert(0, str(args.checkout))
    if args.trace:
        import tracemalloc

        tracemalloc.start(1)
    if side == "sdk":
        import openai  # noqa: F401  (the imports a harness pays for before its first call)
    else:
        import jury  # noqa: F401
    imported = {"import_s": time.perf_counter() - _STARTED, "import_mb": peak_mb()}
    cpu = _cpu()
    with tempfile.TemporaryDirectory(prefix="jury-neutral-") as folder:
        if side in ("run", "run-no-html"):
            files = _run_files(args.cases, args.concurrency, Path(folder))
            no_html = side == "run-no-html"
            valid = asyncio.run(_with_run(*files, Path(folder), no_html, args.priced))
        elif side == "evaluate":
            valid = asyncio.run(_with_evaluate(args.cases, args.concurrency, args.priced))
        else:
            valid = asyncio.run(_with_sdk(args.bodies, args.concurrency, args.sdk_aiohttp))
        cpu = _cpu() - cpu
    result: dict[str, Any] = {**imported, "valid": valid, "peak_mb": peak_mb(), "cpu_s": cpu}
    if args.trace:
        result["traced_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
        snapshot = tracemalloc.take_snapshot()
        result["top"] = [
            f"{stat.size / 2**20:.2f} MB in {stat.count} blocks: {stat.traceback[0].filename}"
            for stat in snapshot.statistics("filename")[:25]
        ]
    print(json.dumps(result))


def _measure(
    side: str, args: argparse.Namespace, env: dict[str, str], bodies: Path
) -> dict[str, Any]:
    side, _, old = side.partition("@")
    command = [sys.executable, __file__, "--child", side, "--cases", str(args.cases)]
    command += ["--checkout", str(args.old)] * bool(old)
    command += ["--concurrency", str(args.concurrency), "--bodies", str(bodies)]
    command += ["--trace"] * args.trace + ["--sdk-aiohttp"] * args.sdk_aiohttp
    command += ["--priced"] * args.priced
    out = subprocess.run(
        command, env={**os.environ, **env}, capture_output=True, text=True, check=False
    )
    if out.returncode:
        raise SystemExit(f"{side}: exit {out.returncode}\n{out.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(out.stdout.splitlines()[-1])
    if result["valid"] != args.cases * len(JURORS):
        raise SystemExit(f"{side}: {result['valid']} valid replies of {args.cases * 3}")
    return result


def _band(values: list[float]) -> str:
    return f"{statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=20, help="cases in flight")
    parser.add_argument("--latency", type=float, default=0.05, help="server latency, seconds")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--sides", default=",".join(SIDES), help=f"comma-separated: {','.join(SIDES)}"
    )
    parser.add_argument("--sdk-aiohttp", action="store_true", help="the SDK on its aiohttp client")
    parser.add_argument("--trace", action="store_true", help="where memory goes (tracemalloc)")
    parser.add_argument(
        "--priced",
        action="store_true",
        help="price every fake reply as the real API's (a budget no run reaches), as a run "
        "against a real provider prices its calls",
    )
    parser.add_argument(
        "--old", type=Path, help="also run the jury sides on this checkout's jury (as side@old)"
    )
    parser.add_argument("--child", choices=SIDES, help=argparse.SUPPRESS)
    parser.add_argument("--checkout", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--bodies", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    if args.priced and args.old is not None:
        parser.error("--priced with --old: a checkout before 2026-12-04 prices no fake reply")
    from benchmarks._machine import machine
    from benchmarks.providers import ServerProcess

    sides = [s for s in args.sides.split(",") if s]
    if args.old is not None:
        sides += [f"{side}@old" for side in sides if side in ("run", "evaluate")]
    print(f"# {machine()}; load {os.getloadavg()[0]:.2f} at the start")
    print(
        f"{args.cases} cases x {len(JURORS)} OpenAI jurors over loopback HTTP, "
        f"{args.concurrency} cases in flight, server latency {args.latency * 1000:g} ms, "
        f"bare SDK on {'aiohttp' if args.sdk_aiohttp else 'its default (httpx)'} client"
    )
    server = ServerProcess(args.latency)
    results: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
    try:
        with tempfile.TemporaryDirectory(prefix="jury-neutral-") as folder:
            bodies = Path(folder) / "bodies.jsonl"
            if "sdk" in sides:
                with open(bodies, "w", encoding="utf-8") as out:
                    for case in _sdk_bodies(args.cases):
                        out.write(json.dumps(case) + "\n")
            for round_ in range(args.rounds):
                order = sides[round_ % len(sides) :] + sides[: round_ % len(sides)]
                line = []
                for side in order:
                    found = _measure(side, args, server.env(), bodies)
                    results[side].append(found)
                    line.append(
                        f"{side}: peak {found['peak_mb']:.1f} MB, import "
                        f"{found['import_s'] * 1000:.0f} ms / {found['import_mb']:.1f} MB, "
                        f"CPU {found['cpu_s'] / (args.cases * 3) * 1000:.3f} ms per call"
                    )
                    line.extend(f"    {top}" for top in found.get("top", ()))
                print(f"round {round_ + 1} (load {os.getloadavg()[0]:.2f}):")
                print("\n".join(f"  {text}" for text in line), flush=True)
    finally:
        server.stop()
    if "sdk" not in sides:
        return
    base = results["sdk"]
    for side in sides:
        if side == "sdk":
            continue
        mine = results[side]
        peak = [a["peak_mb"] / b["peak_mb"] for a, b in zip(mine, base, strict=True)]
        cpu = [a["cpu_s"] / b["cpu_s"] for a, b in zip(mine, base, strict=True)]
        print(
            f"{side} / sdk: peak RSS ratio {_band(peak)}; CPU per call ratio {_band(cpu)}; "
            f"over {len(peak)} rounds"
        )


if __name__ == "__main__":
    main()
