"""A loopback HTTP judge for run-record tests: a server process that logs every request, and
a small `JudgeModel` adapter that calls it.

The server replies with five-metric scores derived from the request (an answer containing
"WRONG" gets correctness 2, everything else 4 or 5), after `--latency` seconds, and appends
each request's call key to `--log` as it arrives, so a test can count exactly which calls
reached the provider.

    python tests/loopback.py serve --log requests.log [--latency 0.01]   # prints the port
    python tests/loopback.py jury run cases.jsonl --jury jury.toml ...   # `jury` with the
                                                                         # loopback provider
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from jury import JudgeModel, JudgeReply, JudgeRequest, TransientError, Usage  # noqa: E402
from jury._model import call_key  # noqa: E402

METRICS = ("relevance", "correctness", "faithfulness", "helpfulness", "hallucinationFree")
PORT_VARIABLE = "JURY_LOOPBACK_PORT"


def scores_for(key: str, user: str) -> dict[str, Any]:
    seed = int(hashlib.sha256(key.encode()).hexdigest(), 16)
    scores = {m: 4 + (seed >> i) % 2 for i, m in enumerate(METRICS)}
    if "WRONG" in user:
        scores["correctness"] = 2
    return {"reason": f"loopback judge {seed % 997}", **scores}


def serve(log: Path, latency: float) -> None:
    lock = threading.Lock()
    handle = open(log, "a", encoding="utf-8")  # noqa: SIM115 - open for the server's life

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with lock:
                handle.write(body["key"] + "\n")
                handle.flush()
            time.sleep(latency)
            payload = json.dumps(
                {"text": json.dumps(scores_for(body["key"], body["user"])), "usage": [100, 20]}
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    finally:
        handle.close()


class LoopbackModel(JudgeModel):
    """An adapter for the loopback server: one HTTP/1.1 request per call."""

    family = "loopback"

    def __init__(self, name: str, port: int) -> None:
        self.name = name
        self.port = port

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        body = json.dumps(
            {
                "key": call_key(self.name, request, request.sample),
                "model": self.name,
                "user": request.user,
            }
        ).encode()
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        try:
            writer.write(
                b"POST /judge HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
                + body
            )
            await writer.drain()
            raw = await reader.read()
        finally:
            writer.close()
        head, _, payload = raw.partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.0 200") and not head.startswith(b"HTTP/1.1 200"):
            raise TransientError(f"loopback judge: {head[:40]!r}")
        data = json.loads(payload)
        return JudgeReply(text=data["text"], model=self.name, usage=Usage(*data["usage"]))


def create(spec: str) -> LoopbackModel:
    return LoopbackModel(spec, int(os.environ[PORT_VARIABLE]))


def start_server(log: Path, latency: float = 0.0) -> tuple[subprocess.Popen[str], int]:
    """Start the server in a process of its own; returns it and its port."""
    process = subprocess.Popen(
        [sys.executable, __file__, "serve", "--log", str(log), "--latency", str(latency)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    port = int(process.stdout.readline())
    return process, port


def stop_server(process: subprocess.Popen[str]) -> None:
    process.terminate()
    process.wait(timeout=10)
    if process.stdout is not None:
        process.stdout.close()


def logged_keys(log: Path) -> list[str]:
    return log.read_text().split() if log.exists() else []


def main(argv: list[str]) -> int:
    if argv[:1] == ["serve"]:
        log = Path(argv[argv.index("--log") + 1])
        latency = float(argv[argv.index("--latency") + 1]) if "--latency" in argv else 0.0
        serve(log, latency)
        return 0
    if argv[:1] == ["jury"]:
        from jury import register_provider
        from jury._cli import main as jury_main

        register_provider("loopback", create)
        return jury_main(argv[1:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
