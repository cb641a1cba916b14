"""The fake provider server on a thread of its own, for tests that run `jury` as a command
(in this process or in a child): it outlives each run, and its request log can be read
between runs."""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from typing import Any

from jury.testing import FakeProviderServer, LoggedRequest, valid_reply

#: Two jurors of two families, through the real adapters (direct HTTP transport).
JURORS = ("openai/gpt-4.1-mini-2025-04-14", "anthropic/claude-haiku-4-5-20251001")


class ServerThread:
    def __init__(self, **options: Any) -> None:
        self.server = FakeProviderServer(**options)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self.server.start(), self.loop).result(timeout=10)
        for juror in JURORS:
            self.server.script(juror.split("/", 1)[1], judge)

    @property
    def requests(self) -> list[LoggedRequest]:
        return self.server.requests

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.server.close(), self.loop).result(timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()


def judge(request: LoggedRequest) -> dict[str, Any]:
    """A judge that finds the answers marked WRONG wrong (correctness 2) and scores the rest 4
    or 5, deterministically from the request, so that two jurors sometimes differ."""
    text = json.dumps(request.body, sort_keys=True)
    seed = int(hashlib.sha256(f"{request.model}{text}".encode()).hexdigest(), 16)
    reply = valid_reply(request.schema)
    for index, name in enumerate(n for n, v in reply.items() if isinstance(v, int)):
        reply[name] = 4 + (seed >> index) % 2
    if "WRONG" in text:
        reply["correctness"] = 2
    return reply
