"""A recorded run to label (ten cases, three categories, offline jurors that split on half of
them) and `jury label` started as a child process, as a labeller starts it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from jury.cli import main

CATEGORIES = ("policy", "tools", "billing")


def recorded_run(where: Path, count: int = 10) -> Path:
    cases = where / "cases.jsonl"
    lines = [
        {
            "id": f"c{n}",
            "category": CATEGORIES[n % 3],
            "question": f"Can I return order ORD-10{n}?",
            "answer": "Yes, within 30 days." if n % 2 else "No refunds ever.",
            "golden_answer": f"Yes, ORD-10{n} is within the 30-day window.",
            "trace": {
                "context": ["Returns are accepted within 30 days."],
                "tool_calls": [{"name": "getOrder", "arguments": {"id": f"ORD-10{n}"}}],
            },
        }
        for n in range(count)
    ]
    cases.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    run = where / "run"
    env = {k: os.environ.pop(k) for k in list(os.environ) if k.endswith("_API_KEY")}
    try:
        # The offline jurors: no key, no network. The gate fails (exit 1) on the bad answers.
        assert main(["run", str(cases), "--out", str(run), "--progress", "none"]) in (0, 1)
    finally:
        os.environ.update(env)
    return run


class LabelServer:
    def __init__(self, process: subprocess.Popen[str], url: str, banner: str) -> None:
        self.process = process
        self.url = url
        self.banner = banner

    def kill(self) -> None:
        """SIGKILL: as a crash, nothing is flushed or closed on the way out."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)


@contextmanager
def label_server(run: Path, *args: str) -> Iterator[LabelServer]:
    process = subprocess.Popen(
        [sys.executable, "-m", "jury", "label", str(run), *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        if not url:
            process.wait(timeout=30)
            error = process.stderr.read() if process.stderr else ""
            raise AssertionError(f"jury label printed nothing: {error}")
        yield LabelServer(process, url, process.stdout.readline().strip())
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
