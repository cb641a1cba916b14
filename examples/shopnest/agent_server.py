"""ShopNest's agent (`agent.py`) served over HTTP: the system under test as a service.

    python examples/shopnest/agent_server.py --port 8080
    jury run examples/shopnest/golden.jsonl --agent http://127.0.0.1:8080/ask \\
        --jury examples/shopnest/jury.toml

``POST /ask`` takes what jury sends (``{"id", "question", "metadata"}``, and ``"messages"``
for a conversation) and replies with the seed's shape, ``{answer, retrievedSources,
toolCalls, context}``, as JSON; ``GET /health`` answers ``ok`` (for a CI job to wait on). With
``--port 0`` the system picks a free port. The first line printed is the URL of ``/ask``, so
a script can read where the agent listens; it listens on 127.0.0.1 unless ``--host`` says
otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from aiohttp import web


def _agent() -> Any:
    # agent.py sits beside this file; loaded by its path so that the example runs from any
    # folder without being installed.
    path = Path(__file__).with_name("agent.py")
    spec = importlib.util.spec_from_file_location("shopnest_agent", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def make_app() -> web.Application:
    """The agent's web application: ``POST /ask`` and ``GET /health``."""
    agent = _agent()

    async def ask(request: web.Request) -> web.Response:
        try:
            body = await request.json()
        except ValueError:
            return web.json_response({"error": "the body is not JSON"}, status=400)
        question = body.get("question") if isinstance(body, dict) else None
        if not isinstance(question, str) or not question.strip():
            return web.json_response({"error": "question: a text is required"}, status=400)
        return web.json_response(agent.respond(question, str(body.get("id") or "")))

    async def health(_: web.Request) -> web.Response:
        return web.Response(text="ok")

    app = web.Application()
    app.router.add_post("/ask", ask)
    app.router.add_get("/health", health)
    return app


async def serve(host: str, port: int) -> None:
    runner = web.AppRunner(make_app())
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    # The bound address tells the port the system chose for port 0.
    bound = runner.addresses[0][1] if runner.addresses else port
    print(f"http://{host}:{bound}/ask", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="ShopNest's agent over HTTP")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080, help="0: any free port")
    options = parser.parse_args(argv)
    # Ctrl-C is how the service is stopped by hand: end quietly, without a traceback.
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(options.host, options.port))


if __name__ == "__main__":
    main()
