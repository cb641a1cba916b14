"""Provider transports and limits, against the fake provider server (127.0.0.1 only).

(a) ``throughput``: N cases x 3 jurors of 3 providers (Anthropic, OpenAI, Gemini), every
    reply after `--latency` seconds. For each transport (direct aiohttp, official SDK) the
    whole engine judges the cases; beside them a plain `asyncio.gather` over the bare SDKs
    makes the same calls with the same concurrency. Reported: wall time over the floor
    (calls x latency / calls in flight) and CPU milliseconds per judge call of this process
    (the server runs in its own process, so its CPU is not counted).
(b) ``rate``: one provider limited to `--rpm` requests per minute by the server, the jury
    file setting the same limit; the run lasts `--minutes`. Reported: the achieved rate over
    the limit, and the 429s received after the first minute.

    python benchmarks/providers.py throughput --cases 1000 --latency 0.1
    python benchmarks/providers.py rate --rpm 600 --minutes 2
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._machine import machine
from jury import Case, Juror, Jury, Panel, ProviderLimits, load_rubric
from jury._logging import configure_logging
from jury.adapters._request import JudgeRequest, Message
from jury.testing import FakeProviderServer

JURORS = (
    "anthropic/claude-haiku-4-5-20251001",
    "openai/gpt-4.1-mini-2025-04-14",
    "google/gemini-3.5-flash-lite",
)
KEY = "benchmark-key-not-secret"


def make_cases(n: int) -> list[Case]:
    return [
        Case(
            id=f"case-{i}",
            question=f"Order #{1000 + i}: can I still return item {i % 17} bought {i % 40} "
            "days ago?",
            answer=f"Returns are accepted within 30 days; item {i % 17} was bought {i % 40} "
            "days ago.",
            golden_answer="Returns are accepted within 30 days of delivery.",
        )
        for i in range(n)
    ]


class ServerProcess:
    """The fake server in its own process, so that its CPU is not the client's."""

    def __init__(self, latency: float) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jury.testing", "--latency", str(latency)],
            stdout=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).resolve().parents[1],
        )
        assert self.process.stdout is not None
        self.url = self.process.stdout.readline().strip()
        if not self.url.startswith("http://127.0.0.1:"):
            self.process.kill()
            raise RuntimeError(f"the fake server did not start: {self.url!r}")

    def env(self) -> dict[str, str]:
        return {
            "OPENAI_BASE_URL": f"{self.url}/v1",
            "OPENAI_API_KEY": KEY,
            "ANTHROPIC_BASE_URL": self.url,
            "ANTHROPIC_API_KEY": KEY,
            "GOOGLE_GEMINI_BASE_URL": self.url,
            "GOOGLE_API_KEY": KEY,
        }

    def stop(self) -> dict[str, Any]:
        self.process.terminate()
        out, _ = self.process.communicate(timeout=10)
        lines = [line for line in out.splitlines() if line.startswith("{")]
        return json.loads(lines[-1]) if lines else {}


async def timed(work: Callable[[], Awaitable[int]]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds of this process, and the calls made."""
    wall, cpu = time.perf_counter(), time.process_time()
    calls = await work()
    return time.perf_counter() - wall, time.process_time() - cpu, calls


async def run_jury(cases: list[Case], concurrency: int) -> int:
    limits = ProviderLimits(concurrency=concurrency)
    panel = Panel(
        jurors=tuple(Juror(model=m) for m in JURORS),
        concurrency=concurrency,
        providers={"anthropic": limits, "openai": limits, "google": limits},
    )
    valid = 0
    # The jury alone, as the bare SDKs beside it: no deterministic checks.
    async with Jury(panel, checks=None) as jury:
        async for verdict in jury.evaluate(cases):
            valid += verdict.valid_votes
    if valid != len(cases) * len(JURORS):
        raise RuntimeError(f"expected {len(cases) * len(JURORS)} valid votes, got {valid}")
    return valid


async def run_bare_sdks(cases: list[Case], concurrency: int) -> int:
    """The same calls through the bare SDKs (aiohttp clients, retries off), no engine."""
    import anthropic
    import openai
    from google import genai
    from google.genai import types

    from jury.providers.anthropic import AnthropicWire
    from jury.providers.google import GeminiWire
    from jury.providers.openai import OpenAIWire

    rubric = load_rubric("five-metric")
    a_client = anthropic.AsyncAnthropic(max_retries=0, http_client=anthropic.DefaultAioHttpClient())
    o_client = openai.AsyncOpenAI(max_retries=0, http_client=openai.DefaultAioHttpClient())
    g_client = genai.Client(
        http_options=types.HttpOptions(retry_options=types.HttpRetryOptions(attempts=1))
    )
    # The wires only build the request bodies, so the bare SDKs send the same bytes.
    a_wire = AnthropicWire(os.environ["ANTHROPIC_BASE_URL"], KEY)
    o_wire = OpenAIWire(provider="openai", base_url="", key=KEY, key_variable="OPENAI_API_KEY")
    g_wire = GeminiWire("", KEY, "GOOGLE_API_KEY")
    slots = asyncio.Semaphore(concurrency * len(JURORS))

    async def one(case: Case, juror: int) -> None:
        prompt = rubric.prompts(case)[0]
        request = JudgeRequest(
            system=prompt.system,
            messages=(Message("user", prompt.user),),
            schema=prompt.schema,
            schema_name=prompt.schema_name,
        )
        model = JURORS[juror].partition("/")[2]
        async with slots:
            if juror == 0:
                await a_client.messages.create(**a_wire.body(model, request))
            elif juror == 1:
                await o_client.chat.completions.create(**o_wire.body(model, request))
            else:
                body = g_wire.body(model, request)
                config: Any = {
                    "system_instruction": body["systemInstruction"],
                    "temperature": 0.0,
                    "max_output_tokens": request.max_tokens,
                    "response_mime_type": "application/json",
                    "response_json_schema": request.schema,
                }
                await g_client.aio.models.generate_content(
                    model=model, contents=body["contents"], config=config
                )

    try:
        await asyncio.gather(*(one(case, j) for case in cases for j in range(len(JURORS))))
    finally:
        await a_client.close()
        await o_client.close()
        await g_client.aio.aclose()
    return len(cases) * len(JURORS)


async def throughput(args: argparse.Namespace) -> None:
    configure_logging(0)
    server = ServerProcess(args.latency)
    os.environ.update(server.env())
    cases = make_cases(args.cases)
    in_flight = args.concurrency * len(JURORS)
    calls = len(cases) * len(JURORS)
    floor = calls * args.latency / in_flight
    print(f"# throughput: {machine()}")
    print(
        f"{args.cases} cases x {len(JURORS)} jurors = {calls} calls, {args.latency * 1000:g} ms "
        f"latency, {in_flight} calls in flight: floor {floor:.2f} s"
    )
    print("| path | wall s | wall / floor | CPU ms per judge call |")
    print("| --- | ---: | ---: | ---: |")
    try:
        for label, work in (
            ("jury, direct transport (default)", lambda: run_jury(cases, args.concurrency)),
            ("jury, SDK transport", lambda: run_jury(cases, args.concurrency)),
            ("bare SDKs, asyncio.gather", lambda: run_bare_sdks(cases, args.concurrency)),
        ):
            os.environ["JURY_TRANSPORT"] = "sdk" if "SDK transport" in label else "direct"
            # A short warm-up: imports, first connections.
            if "bare" in label:
                await run_bare_sdks(cases[:10], args.concurrency)
            else:
                await run_jury(cases[:10], args.concurrency)
            wall, cpu, made = await timed(work)
            print(
                f"| {label} | {wall:.2f} | {wall / floor:.2f} | {cpu * 1000 / made:.2f} |",
                flush=True,
            )
    finally:
        server.stop()


async def endless_cases() -> AsyncIterator[Case]:
    i = 0
    while True:
        yield make_cases(1)[0].model_copy(update={"id": f"case-{i}"})
        i += 1


async def rate(args: argparse.Namespace) -> None:
    configure_logging(0)
    provider, model = "openai", JURORS[1]
    print(f"# rate: {machine()}")
    async with FakeProviderServer(latency=args.latency, rpm={provider: args.rpm}) as server:
        server.log_requests = False
        os.environ.update(server.env(KEY))
        panel = Panel(
            jurors=(Juror(model=model),),
            concurrency=args.concurrency,
            providers={provider: ProviderLimits(rpm=args.rpm, concurrency=args.concurrency)},
        )
        started = time.monotonic()
        offset = started - server._started
        seconds = args.minutes * 60
        done = 0
        async with Jury(panel) as jury:
            async for _ in jury.evaluate(endless_cases()):
                done += 1
                if time.monotonic() - started >= seconds:
                    break
        elapsed = time.monotonic() - started
    served = server.served.get(provider, 0)
    throttled = [t - offset for t in server.throttled.get(provider, [])]
    late = [t for t in throttled if t >= 60.0]
    limit_per_s = args.rpm / 60.0
    print(
        f"limit {args.rpm:g}/min, {args.latency * 1000:g} ms latency, ran {elapsed:.1f} s: "
        f"{served} requests answered, {done} cases judged"
    )
    print("| achieved rate / limit | 429s in total | 429s after the first minute |")
    print("| ---: | ---: | ---: |")
    print(f"| {served / elapsed / limit_per_s:.3f} | {len(throttled)} | {len(late)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="bench", required=True)
    a = sub.add_parser("throughput")
    a.add_argument("--cases", type=int, default=1000)
    a.add_argument("--latency", type=float, default=0.1)
    a.add_argument("--concurrency", type=int, default=64, help="cases in flight")
    b = sub.add_parser("rate")
    b.add_argument("--rpm", type=float, default=600)
    b.add_argument("--minutes", type=float, default=2.0)
    b.add_argument("--latency", type=float, default=0.1)
    b.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    asyncio.run(throughput(args) if args.bench == "throughput" else rate(args))


if __name__ == "__main__":
    main()
