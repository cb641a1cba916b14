"""The batch kill test: `jury run --batch` against the fake server (three providers, real
adapters, real HTTP) is SIGKILLed at five random moments across submitting, polling and
collecting, and run again until it finishes.

At the end every case has exactly one verdict, and the fake server's log shows that no
request was submitted twice (no body in two batches), whatever the moment of each kill.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from batch_helpers import JURORS, inner_bodies, make_cases, script_jurors, write_cases

from jury.testing import Fault
from jury.testing._batches import BATCHES
from served import ServerThread

ROOT = Path(__file__).resolve().parents[2]
CASES = 90
#: Where each attempt but the last is killed: while creating batches, while polling them,
#: while reading their results.
PHASES = ("submit", "submit", "poll", "collect", "collect")


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


def result_reads(served: ServerThread) -> int:
    return sum(1 for r in served.requests if r.path.endswith(("/content", "/results")))


def waiter(phase: str, served: ServerThread, rng: random.Random) -> Callable[[], bool]:
    """When to kill an attempt in `phase`: a condition read from the server's log."""
    if phase == "submit":
        target = creates(served) + rng.randint(1, 2)
        return lambda: creates(served) >= target
    if phase == "collect":
        target = result_reads(served) + 1
        return lambda: result_reads(served) >= target
    started = time.monotonic()
    pause = rng.uniform(0.2, 1.0)
    base = creates(served)
    return lambda: creates(served) > base and time.monotonic() - started > pause


@pytest.mark.timeout(300)
def test_a_batch_run_killed_at_random_moments_resumes_to_one_verdict_per_case(
    tmp_path: Path,
) -> None:
    cases = write_cases(tmp_path / "cases.jsonl", make_cases(CASES, prefix="k"))
    jury_file = tmp_path / "jury.toml"
    jurors = ", ".join(f'"{juror}"' for juror in JURORS)
    jury_file.write_text(f"jurors = [{jurors}]\n[batch]\npoll = 0.05\n")
    served = ServerThread(batch_delay=1.0)
    script_jurors(served.server)
    # Some invalid replies, so that there is a round of follow-up batches to kill too.
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
            process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            if attempt < len(PHASES):
                ready = waiter(PHASES[attempt], served, rng)
                while process.poll() is None and not ready():
                    time.sleep(0.001)
                if process.poll() is None:
                    process.send_signal(signal.SIGKILL)
                    kills.append(PHASES[attempt])
            _, err = process.communicate(timeout=120)
            if attempt == len(PHASES):
                assert process.returncode == 1, err  # the WRONG answers fail the gate
        batched = inner_bodies(served.server.batched)
    finally:
        served.stop()

    assert len(kills) >= 4, f"the run finished before it could be killed: {kills}"
    assert "submit" in kills
    assert "collect" in kills
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
