"""Headless Chromium over the DevTools protocol: open a page, drive it as a user would (real
mouse clicks and typed text, dispatched by the browser's input pipeline), read what it shows,
collect its console errors and exceptions (a Content-Security-Policy violation is one), and
take screenshots. Only file:// pages, pages served on 127.0.0.1, and a loopback debugging port.

Playwright would do the same over the same protocol; this stays on `websockets` (already a test
dependency) rather than a 50 MB driver package, and uses Debian's chromium as it is.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager, suppress
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
    "--hide-scrollbars",
    "--font-render-hinting=none",
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


class Page:
    """One browser tab on one page: evaluate, click, type, select, screenshot."""

    def __init__(self, socket: Any) -> None:
        self._socket = socket
        self._ids = itertools.count(1)
        self._replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._loaded = asyncio.Event()
        self.errors: list[str] = []

    async def listen(self) -> None:
        async for raw in self._socket:
            message = json.loads(raw)
            if "id" in message and message["id"] in self._replies:
                self._replies.pop(message["id"]).set_result(message)
                continue
            method, params = message.get("method"), message.get("params", {})
            if method == "Page.loadEventFired":
                self._loaded.set()
            elif method == "Runtime.exceptionThrown":
                self.errors.append(json.dumps(params["exceptionDetails"]))
            elif method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
                self.errors.append(json.dumps(params["args"]))
            elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
                self.errors.append(params["entry"]["text"])

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        number = next(self._ids)
        self._replies[number] = asyncio.get_running_loop().create_future()
        await self._socket.send(json.dumps({"id": number, "method": method, "params": params}))
        reply = await asyncio.wait_for(self._replies[number], 30)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return dict(reply.get("result", {}))

    async def navigate(self, url: str) -> None:
        self._loaded.clear()
        await self.send("Page.navigate", url=url)
        await asyncio.wait_for(self._loaded.wait(), 30)
        await asyncio.sleep(0.2)  # late errors (a deferred handler) have time to show

    async def evaluate(self, expression: str) -> Any:
        reply = await self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in reply:
            raise RuntimeError(f"{expression}: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    async def viewport(self, width: int, height: int = 900) -> None:
        await self.send(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=width < 600,
        )
        await asyncio.sleep(0.1)

    async def _centre(self, selector: str) -> tuple[float, float]:
        box = await self.evaluate(
            f"""(() => {{
            const el = document.querySelector({json.dumps(selector)});
            if (!el) return null;
            el.scrollIntoView({{block: 'center'}});
            const r = el.getBoundingClientRect();
            if (!r.width || !r.height) return 'invisible';
            return [r.left + r.width / 2, r.top + r.height / 2];
        }})()"""
        )
        if box is None:
            raise LookupError(f"no element matches {selector}")
        if box == "invisible":
            raise LookupError(f"{selector} is not shown")
        return float(box[0]), float(box[1])

    async def click(self, selector: str) -> None:
        """A real mouse click in the middle of the element (so a hidden or covered element
        cannot be clicked, as a user could not)."""
        x, y = await self._centre(selector)
        for kind in ("mousePressed", "mouseReleased"):
            await self.send(
                "Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1
            )
        await asyncio.sleep(0.05)

    async def type(self, selector: str, text: str) -> None:
        """Focus the field with a click, select what it holds, and type `text` over it."""
        await self.click(selector)
        await self.evaluate(f"document.querySelector({json.dumps(selector)}).select()")
        await self.send("Input.insertText", text=text)
        await asyncio.sleep(0.05)

    async def press(self, key: str) -> None:
        """One key pressed and released, as the keyboard sends it (keydown with its text for
        a character, so that a focused field would receive it)."""
        special = {
            "Enter": (13, "\r"),
            "Escape": (27, ""),
            "ArrowLeft": (37, ""),
            "ArrowUp": (38, ""),
            "ArrowRight": (39, ""),
            "ArrowDown": (40, ""),
        }
        code, text = special[key] if key in special else (ord(key.upper()), key)
        down = {"key": key, "windowsVirtualKeyCode": code, "text": text}
        await self.send("Input.dispatchKeyEvent", type="keyDown" if text else "rawKeyDown", **down)
        await self.send("Input.dispatchKeyEvent", type="keyUp", key=key, windowsVirtualKeyCode=code)
        await asyncio.sleep(0.05)

    async def wait_for(self, expression: str, timeout: float = 15.0) -> Any:
        """The value of `expression` once it is truthy (a page that fetches shows late)."""
        deadline = time.monotonic() + timeout
        while True:
            value = await self.evaluate(expression)
            if value or time.monotonic() > deadline:
                return value
            await asyncio.sleep(0.05)

    async def select(self, selector: str, value: str) -> None:
        """Choose an option of a <select> (as Playwright's select_option does: a native
        drop-down is not drawn in headless mode), firing the events a user's choice fires."""
        await self.click(selector)
        await self.evaluate(
            f"""(() => {{
            const el = document.querySelector({json.dumps(selector)});
            el.value = {json.dumps(value)};
            if (el.value !== {json.dumps(value)}) throw new Error('no such option');
            el.dispatchEvent(new Event('input', {{bubbles: true}}));
            el.dispatchEvent(new Event('change', {{bubbles: true}}));
        }})()"""
        )
        await asyncio.sleep(0.05)

    async def screenshot(self, path: Path, width: int, max_height: int = 7000) -> Path:
        """The whole page (up to `max_height` pixels) at `width` CSS pixels, as a PNG."""
        await self.viewport(width)
        metrics = await self.send("Page.getLayoutMetrics")
        height = min(max_height, int(metrics["cssContentSize"]["height"]) + 1)
        shot = await self.send(
            "Page.captureScreenshot",
            format="png",
            captureBeyondViewport=True,
            clip={"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
        )
        await asyncio.to_thread(path.write_bytes, base64.b64decode(shot["data"]))
        return path


@contextmanager
def _chromium() -> Iterator[str]:
    """Headless Chromium on a fresh profile: the debugging socket of its page."""
    binary = chromium()
    if binary is None:
        raise RuntimeError("chromium is not installed")
    # Chromium's helpers (zygote, renderers, crash handler) outlive the main process by a
    # moment and may still write into the profile: the whole process group is ended and
    # waited for, and a file a helper left behind does not fail the test's teardown.
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        process = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            yield _page_socket(_port(Path(profile), process))
        finally:
            _end_group(process)


def _end_group(process: subprocess.Popen[bytes]) -> None:
    for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, None)):
        with suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
        return


@asynccontextmanager
async def browser_page(path: Path | str) -> AsyncIterator[Page]:
    """Headless Chromium with `path` (a file, or a loopback ``http://127.0.0.1`` address)
    loaded; the browser is closed on the way out."""
    from websockets.asyncio.client import connect

    if isinstance(path, str):
        url = path
        if not url.startswith("http://127.0.0.1:"):
            raise ValueError(f"only loopback pages: {url}")
    else:
        url = await asyncio.to_thread(lambda: path.resolve().as_uri())
    with _chromium() as socket_url:
        async with connect(socket_url, max_size=None) as socket:
            page = Page(socket)
            listener = asyncio.create_task(page.listen())
            try:
                for domain in ("Page", "Runtime", "Log"):
                    await page.send(f"{domain}.enable")
                await page.navigate(url)
                yield page
            finally:
                listener.cancel()
                await asyncio.gather(listener, return_exceptions=True)


def open_page(path: Path, expressions: Sequence[str]) -> PageResult:
    """Load `path` and return its console errors and the value of each expression."""

    async def session() -> PageResult:
        async with browser_page(path) as page:
            values = {expression: await page.evaluate(expression) for expression in expressions}
            return PageResult(errors=list(page.errors), values=values)

    return asyncio.run(session())
