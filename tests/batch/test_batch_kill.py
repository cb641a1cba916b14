"""The batch kill test: `jury run --batch` against the fake server (three providers, real
adapters, real HTTP) is SIGKILLed at five random moments across submitting, polling and
collecting, and run again until it finishes.

Each kill waits for a state the test can see, never for a guessed time: batches created in
the fake server's log (submit), every batch submitted in the run directory's
``batches.sqlite`` and polled (poll: the fake holds its batches meanwhile with a long
completion delay), results read (collect: the fake has ended its batches). So all five kills
land, each in its phase, every time.

At the end every case has exactly one verdict, and the fake server's log shows that no
request was submitted twice (no body in two batches), whatever the moment of each kill.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest
from batch_helpers import JURORS, inner_bodies, make_cases, script_jurors, write_cases

from jury.testing import Fault
from jury.testing._batches import BATCHES
from served import ServerThread

ROOT = Path(__file__).resolve().parents[2]
CASES = 90
#: Requests a batch: 6 batches a juror in the first round, 18 in all.
SIZE = 15
FIRST_ROUND = CASES // SIZE * len(JURORS)
#: Where each attempt but the last is killed: while creating batches, while polling them,
#: while reading their results.
PHASES = ("submit", "submit", "poll", "collect", "collect")
#: Seconds a batch takes while the test holds them (longer than the test), then after.
HELD, QUICK = 600.0, 0.2


#: The calls that create a batch (not an upload, not a cancel).
CREATES = ("/v1/batches", "/v1/messages/batches", ":batchGenerateContent")


def creates(served: ServerThread) -> int:
    """Batches the server has created: a kill right after one lands between the provider
    creating a batch and the run recording its ID, the window `BatchAPI.find` covers."""
    return sum(
        1
        for r in served.requests
        if r.model == BATCHES and r.method == "POST" and r.path.endswith(CREATES) and r.status
    )


def polls(served: ServerThread, since: int) -> int:
    """Looks at one batch (a retrieve, not a list) among the server's requests from `since`."""
    return sum(
        1
        for r in served.requests[since:]
        if r.model == BATCHES
        and r.method == "GET"
        and "/batches/" in r.path
        and not r.path.endswith(("/content", "/results"))
    )


def result_reads(served: ServerThread) -> int:
    return sum(1 for r in served.requests if r.path.endswith(("/content", "/results")))


def batch_states(run: Path) -> Counter[str]:
    """The states of the run's batches, as its ``batches.sqlite`` has them now."""
    store = run / "batches.sqlite"
    if not store.exists():
        return Counter()
    with closing(sqlite3.connect(store, timeout=10)) as db:
        return Counter(state for (state,) in db.execute("SELECT state FROM batches"))


def waiter(phase: str, served: ServerThread, run: Path, rng: random.Random) -> Callable[[], bool]:
    """When to kill an attempt in `phase`: a condition on the server's log and the run's
    store. A submit kill always leaves batches to create (18 in the first round); a poll kill
    comes once every batch is submitted and has been polled a random number of times (they
    are held: none ends); a collect kill at the next result read (two of the three
    providers' results are read apart from their status)."""
    if phase == "submit":
        target = creates(served) + rng.randint(1, 4)
        return lambda: creates(served) >= target
    if phase == "poll":
        since, looks = len(served.requests), rng.randint(1, 20)
        return lambda: (
            polls(served, since) >= looks and batch_states(run) == Counter(submitted=FIRST_ROUND)
        )
    target = result_reads(served) + 1
    return lambda: result_reads(served) >= target


def end_batches(served: ServerThread) -> None:
    """Let the held batches end now, and the next ones soon."""

    async def end() -> None:
        served.server.batches.delay = QUICK
        served.server.batches.end()

    asyncio.run_coroutine_threadsafe(end(), served.loop).result(timeout=10)


@pytest.mark.timeout(120)
def test_a_batch_run_killed_at_random_moments_resumes_to_one_verdict_per_case(
    tmp_path: Path,
) -> None:
    cases = write_cases(tmp_path / "cases.jsonl", make_cases(CASES, prefix="k"))
    jury_file = tmp_path / "jury.toml"
    jurors = ", ".join(f'"{juror}"' for juror in JURORS)
    jury_file.write_text(f"jurors = [{jurors}]\n[batch]\nsize = {SIZE}\npoll = 0.05\n")
    served = ServerThread(batch_delay=HELD)
    script_jurors(served.server)
    # Some invalid replies, so that there is a round of follow-up batches too.
    served.server.inject(Fault.out_of_range(), model="claude-haiku-5-5", times=6)
    run = tmp_path / "run"
    env = {
        **{k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))},
        **served.server.env(),
        "JURY_CACHE_DIR": str(tmp_path / "cache"),
    }
    command = [sys.executable, "-m", "jury", "run", str(cases), "--jury", str(jury_file)]
    command += ["--out", str(run), "--progress", "none", "--no-checks"]
    rng = random.Random(15)
    kills: list[str] = []
    try:
        for attempt in range(len(PHASES) + 1):
            if attempt < len(PHASES) and PHASES[attempt] == "collect" and "collect" not in kills:
                end_batches(served)
            process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            if attempt < len(PHASES):
                ready = waiter(PHASES[attempt], served, run, rng)
                deadline = time.monotonic() + 60
                while process.poll() is None and not ready() and time.monotonic() < deadline:
                    time.sleep(0.005)
                if process.poll() is None:
                    process.send_signal(signal.SIGKILL)
                    if ready():
                        kills.append(PHASES[attempt])
            _, err = process.communicate(timeout=60)
            if attempt == len(PHASES):
                assert process.returncode == 1, err  # the WRONG answers fail the gate
        batched = inner_bodies(served.server.batched)
    finally:
        served.stop()

    assert kills == list(PHASES), f"not every kill landed in its phase: {kills}"
    lines = (run / "verdicts.jsonl").read_text().splitlines()
    counts = Counter(json.loads(line)["case_id"] for line in lines)
    assert set(counts) == {f"k{n:05d}" for n in range(CASES)}
    assert set(counts.values()) == {1}
    twice = [body for body, n in Counter(batched).items() if n > 1]
    assert not twice, f"{len(twice)} requests were submitted twice"
    # Every first request went out once, and the six re-asks once more.
    assert len(batched) == CASES * len(JURORS) + 6
    summary = json.loads((run / "summary.json").read_text())
    assert summary["total"] == CASES
    assert summary["failed"] == len([n for n in range(CASES) if n % 7 == 0])
