"""`python -m jury.testing`: the fake provider server on its own, for benchmarks and manual
tries. It prints its URL first, then one ``export NAME=value`` line for each variable that
points a provider at it (OpenAI, Anthropic, Google and ``openai-api/fake/<model>``: paste them
into another shell), and at exit the requests served and the 429s sent (JSON)."""

from __future__ import annotations

import argparse
import asyncio
import json
import shlex
import signal
import sys

from ._server import FakeProviderServer

__all__ = ["main"]


def _parse_rpm(items: list[str]) -> dict[str, float]:
    limits = {}
    for item in items:
        provider, _, value = item.partition("=")
        limits[provider] = float(value)
    return limits


def _names(items: list[str]) -> list[str]:
    return [name.strip() for item in items for name in item.split(",") if name.strip()]


async def _serve(args: argparse.Namespace) -> None:
    server = FakeProviderServer(
        latency=args.latency,
        rpm=_parse_rpm(args.rpm),
        port=args.port,
        log=False,
        strict=not args.lenient,
        batch_delay=args.batch_delay,
        models=_names(args.models) if args.models else None,
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    async with server:
        print(server.url, flush=True)
        for name, value in server.env().items():
            print(f"export {name}={shlex.quote(value)}", flush=True)
        await stop.wait()
    counts = {"served": server.served, "throttled": server.throttled}
    print(json.dumps(counts), flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m jury.testing",
        description="Run the fake provider server on 127.0.0.1 until interrupted; print its "
        "URL first, then the export lines that point every provider at it, and at exit the "
        "requests served and the 429s sent (JSON).",
    )
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per reply")
    parser.add_argument(
        "--rpm", action="append", default=[], metavar="PROVIDER=N", help="requests per minute"
    )
    parser.add_argument("--batch-delay", type=float, default=0.0, help="seconds until a batch ends")
    parser.add_argument("--lenient", action="store_true", help="answer any body (strict rules off)")
    parser.add_argument(
        "--models",
        action="append",
        default=[],
        metavar="NAME[,NAME]",
        help="serve only these models, as each API names them (gpt-5.4-mini-2026-03-17): "
        "any other answers 404 as a real provider does to a mistyped name (default: any)",
    )
    asyncio.run(_serve(parser.parse_args(argv)))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
