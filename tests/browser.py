"""Headless Chromium over the DevTools protocol: open a page, collect its console errors and
exceptions, and evaluate expressions in it. Only file:// pages and a loopback debugging port."""

from __future__ import annotations

import asyncio
import itertools
import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
)


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@dataclass
class PageResult:
    errors: list[str] = field(default_factory=list)
    values: dict[str, Any] = field(default_factory=dict)


def _port(profile: Path, process: subprocess.Popen[bytes]) -> int:
    active = profile / "DevToolsActivePort"
    for _ in range(300):
        if active.exists() and active.read_text().strip():
            return int(active.read_text().split()[0])
        if process.poll() is not None:
            raise RuntimeError(f"chromium exited with {process.returncode}")
        time.sleep(0.1)
    raise TimeoutError("chromium did not open its debugging port")


def _page_socket(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as reply:
        targets = json.load(reply)
    return str(next(t for t in targets if t["type"] == "page")["webSocketDebuggerUrl"])


def open_page(path: Path, expressions: Sequence[str]) -> PageResult:
    """Load `path` and return its console errors and the value of each expression."""
    binary = chromium()
    if binary is None:
        raise RuntimeError("chromium is not installed")
    with tempfile.TemporaryDirectory() as profile:
        process = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            socket = _page_socket(_port(Path(profile), process))
            return asyncio.run(_session(socket, path.resolve().as_uri(), expressions))
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


async def _session(socket_url: str, url: str, expressions: Sequence[str]) -> PageResult:
    from websockets.asyncio.client import connect

    result = PageResult()
    async with connect(socket_url, max_size=None) as socket:
        ids = itertools.count(1)
        replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        loaded = asyncio.Event()

        async def listen() -> None:
            async for raw in socket:
                message = json.loads(raw)
                if "id" in message and message["id"] in replies:
                    replies.pop(message["id"]).set_result(message)
                    continue
                method, params = message.get("method"), message.get("params", {})
                if method == "Page.loadEventFired":
                    loaded.set()
                elif method == "Runtime.exceptionThrown":
                    result.errors.append(json.dumps(params["exceptionDetails"]))
                elif method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
                    result.errors.append(json.dumps(params["args"]))
                elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
                    result.errors.append(params["entry"]["text"])

        async def send(method: str, **params: Any) -> dict[str, Any]:
            number = next(ids)
            replies[number] = asyncio.get_running_loop().create_future()
            await socket.send(json.dumps({"id": number, "method": method, "params": params}))
            return await asyncio.wait_for(replies[number], 30)

        listener = asyncio.create_task(listen())
        for domain in ("Page", "Runtime", "Log"):
            await send(f"{domain}.enable")
        await send("Page.navigate", url=url)
        await asyncio.wait_for(loaded.wait(), 30)
        await asyncio.sleep(0.3)  # late errors (a deferred handler) have time to show
        for expression in expressions:
            reply = await send("Runtime.evaluate", expression=expression, returnByValue=True)
            result.values[expression] = reply["result"]["result"].get("value")
        listener.cancel()
        await asyncio.gather(listener, return_exceptions=True)
    return result
