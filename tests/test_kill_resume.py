"""The kill test: a 300-case run is SIGKILLed at random points and resumed until it finishes.

At the end every case has exactly one verdict, and the judge server's request log shows that
no call whose reply was recorded (in the call cache) before an attempt started was sent again
during that attempt.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import loopback
import pytest

CASES = 300
JURORS = 2
KILLS = 4


def recorded(cache: Path) -> set[str]:
    path = cache / "calls.sqlite"
    if not path.exists():
        return set()
    with sqlite3.connect(path) as db:
        return {row[0] for row in db.execute("SELECT key FROM calls")}


def verdict_lines(run: Path) -> int:
    path = run / "verdicts.jsonl"
    return path.read_bytes().count(b"\n") if path.exists() else 0


@pytest.mark.timeout(180)
def test_a_run_killed_at_random_points_resumes_to_one_verdict_per_case(tmp_path: Path) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"k{n:03d}",
                    "question": f"Where is order ORD-{n}?",
                    "answer": f"ORD-{n} has shipped." if n % 7 else "WRONG: it is lost",
                    "golden_answer": f"ORD-{n} has shipped.",
                }
            )
            + "\n"
            for n in range(CASES)
        )
    )
    jury_file = tmp_path / "jury.toml"
    jury_file.write_text(
        'jurors = ["loopback/alpha-2", "loopback/beta-2"]\nconcurrency = 16\n'
        "[retry]\nattempts = 1\n"
    )
    log = tmp_path / "requests.log"
    server, port = loopback.start_server(log, latency=0.03)
    cache, run = tmp_path / "cache", tmp_path / "run"
    env = {**os.environ, loopback.PORT_VARIABLE: str(port), "JURY_CACHE_DIR": str(cache)}
    command = [
        sys.executable,
        loopback.__file__,
        "jury",
        "run",
        str(cases),
        "--jury",
        str(jury_file),
        "--out",
        str(run),
        "--progress",
        "none",
    ]
    rng = random.Random(7)
    kills = 0
    try:
        for attempt in range(KILLS + 1):
            before = recorded(cache)
            sent_before = len(loopback.logged_keys(log))
            process = subprocess.Popen(
                command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
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
            _, err = process.communicate(timeout=120)
            sent = loopback.logged_keys(log)[sent_before:]
            resent = before.intersection(sent)
            assert not resent, f"attempt {attempt} sent {len(resent)} recorded calls again"
            if attempt == KILLS:
                assert process.returncode == 1, err  # some answers are WRONG: the gate fails
    finally:
        loopback.stop_server(server)

    assert kills >= 3, "the run finished before it could be killed"
    lines = (run / "verdicts.jsonl").read_text().splitlines()
    counts = Counter(json.loads(line)["case_id"] for line in lines)
    assert set(counts) == {f"k{n:03d}" for n in range(CASES)}
    assert set(counts.values()) == {1}
    # Every call reached the server at least once; the cache holds every reply.
    assert len(set(loopback.logged_keys(log))) == CASES * JURORS
    assert len(recorded(cache)) == CASES * JURORS
    summary = json.loads((run / "summary.json").read_text())
    assert summary["total"] == CASES
    assert summary["failed"] == len([n for n in range(CASES) if n % 7 == 0])
