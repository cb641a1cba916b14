"""The kill test: a 300-case run against the fake provider server (real adapters, real HTTP)
is SIGKILLed at random points and resumed until it finishes.

At the end every case has exactly one verdict, and the server's request log shows that no call
whose reply was recorded (in the call cache) before an attempt started was sent again during
that attempt.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from jury.testing import LoggedRequest
from served import JURORS, ServerThread

ROOT = Path(__file__).resolve().parents[2]
CASES = 300
KILLS = 4
CASE_MARK = re.compile(r"\[case (k\d{3})\]")


def sent_calls(requests: list[LoggedRequest]) -> list[tuple[str, str]]:
    """(model, case) of each request the server received, in order."""
    calls = []
    for request in requests:
        found = CASE_MARK.search(json.dumps(request.body))
        assert found is not None, request.body
        calls.append((request.model, found.group(1)))
    return calls


def recorded(cache: Path) -> set[tuple[str, str]]:
    """(model, case) of every call whose reply is in the cache."""
    path = cache / "calls.sqlite"
    if not path.exists():
        return set()
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT model, request FROM calls").fetchall()
    out = set()
    for model, request in rows:
        found = CASE_MARK.search(request)
        assert found is not None
        out.add((model.split("/", 1)[1], found.group(1)))
    return out


def verdict_lines(run: Path) -> int:
    path = run / "verdicts.jsonl"
    return path.read_bytes().count(b"\n") if path.exists() else 0


@pytest.mark.timeout(240)
def test_a_run_killed_at_random_points_resumes_to_one_verdict_per_case(tmp_path: Path) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"k{n:03d}",
                    "question": f"Where is order ORD-{n}? [case k{n:03d}]",
                    "answer": f"ORD-{n} has shipped." if n % 7 else "WRONG: it is lost",
                    "golden_answer": f"ORD-{n} has shipped.",
                }
            )
            + "\n"
            for n in range(CASES)
        )
    )
    jury_file = tmp_path / "jury.toml"
    jurors = ", ".join(f'"{juror}"' for juror in JURORS)
    jury_file.write_text(f"jurors = [{jurors}]\nconcurrency = 16\n[retry]\nattempts = 1\n")
    served = ServerThread(latency=0.03)
    cache, run = tmp_path / "cache", tmp_path / "run"
    env = {
        **{k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))},
        **served.server.env(),
        "JURY_CACHE_DIR": str(cache),
    }
    command = [sys.executable, "-m", "jury", "run", str(cases), "--jury", str(jury_file)]
    command += ["--out", str(run), "--progress", "none", "--no-checks"]
    rng = random.Random(7)
    kills = 0
    try:
        for attempt in range(KILLS + 1):
            before = recorded(cache)
            sent_before = len(served.requests)
            process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            if attempt < KILLS:
                # Kill once a random number of further cases has finished.
                target = min(CASES - 1, verdict_lines(run) + rng.randint(15, 60))
                while process.poll() is None and verdict_lines(run) < target:
                    time.sleep(0.002)
                if process.poll() is None:
                    time.sleep(rng.uniform(0, 0.05))  # land between cases, or in the middle
                    process.send_signal(signal.SIGKILL)
                    kills += 1
            _, err = process.communicate(timeout=150)
            sent = sent_calls(served.requests[sent_before:])
            resent = before.intersection(sent)
            assert not resent, f"attempt {attempt} sent {len(resent)} recorded calls again"
            if attempt == KILLS:
                assert process.returncode == 1, err  # some answers are WRONG: the gate fails
        everything = sent_calls(served.requests)
    finally:
        served.stop()

    assert kills >= 3, "the run finished before it could be killed"
    lines = (run / "verdicts.jsonl").read_text().splitlines()
    counts = Counter(json.loads(line)["case_id"] for line in lines)
    assert set(counts) == {f"k{n:03d}" for n in range(CASES)}
    assert set(counts.values()) == {1}
    # Every call reached the server at least once; the cache holds every reply.
    assert len(set(everything)) == CASES * len(JURORS)
    assert len(recorded(cache)) == CASES * len(JURORS)
    summary = json.loads((run / "summary.json").read_text())
    assert summary["total"] == CASES
    assert summary["failed"] == len([n for n in range(CASES) if n % 7 == 0])
