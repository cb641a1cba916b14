"""A run killed during its second chances resumes without paying for any call twice.

`jury run` against the fake provider server (real adapters, real HTTP, in a child process):
one juror's first call on four cases answers 503, so those cases are held; after the
cool-down the first of them is asked again and answered at once, the others slowly. The run
is SIGKILLed once that re-ask's verdict is recorded, then resumed.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from jury.testing import Fault, LoggedRequest
from served import JURORS, ServerThread, judge

ROOT = Path(__file__).resolve().parents[2]
CASES = 12
#: The cases whose first call to the flaky juror fails: k000 is re-asked and answered at once.
FLAKY = ("k000", "k003", "k006", "k009")
FLAKY_MODEL = JURORS[0].split("/", 1)[1]
CASE_MARK = re.compile(r"\[case (k\d{3})\]")


def case_of(request: LoggedRequest) -> str:
    found = CASE_MARK.search(json.dumps(request.body))
    assert found is not None
    return found.group(1)


def sent_calls(requests: list[LoggedRequest]) -> set[tuple[str, str]]:
    """(model, case) of each request the server received."""
    return {(request.model, case_of(request)) for request in requests}


def recorded(cache: Path) -> set[tuple[str, str]]:
    """(model, case) of every call whose reply is in the call cache."""
    path = cache / "calls.sqlite"
    if not path.exists():
        return set()
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT model, request FROM calls").fetchall()
    found = {(model.split("/", 1)[1], CASE_MARK.search(request)) for model, request in rows}
    return {(model, marked.group(1)) for model, marked in found if marked is not None}


def verdict_lines(run: Path) -> int:
    path = run / "verdicts.jsonl"
    return path.read_bytes().count(b"\n") if path.exists() else 0


def flaky_judge(served: ServerThread) -> Any:
    """The flaky juror: a 503 on its first call of each flaky case; on the second, k000 at
    once and the others after 5 s (so that the kill lands while they are asked again)."""

    def reply(request: LoggedRequest) -> Any:
        marked = case_of(request)
        if marked not in FLAKY:
            return judge(request)
        asked = sum(1 for r in served.requests if r.model == request.model and case_of(r) == marked)
        if asked == 1:
            return Fault.http(503, message="the service is briefly unavailable")
        if asked == 2 and marked != FLAKY[0]:
            return Fault.latency(5.0)
        return judge(request)

    return reply


@pytest.mark.timeout(120)
def test_a_run_killed_during_its_second_chances_resumes_paying_for_nothing_twice(
    tmp_path: Path,
) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"k{n:03d}",
                    "question": f"Where is order ORD-{n}? [case k{n:03d}]",
                    "answer": f"ORD-{n} has shipped.",
                    "golden_answer": f"ORD-{n} has shipped.",
                }
            )
            + "\n"
            for n in range(CASES)
        )
    )
    jury_file = tmp_path / "jury.toml"
    jurors = ", ".join(f'"{juror}"' for juror in JURORS)
    jury_file.write_text(
        f"jurors = [{jurors}]\nconcurrency = 4\n[retry]\nattempts = 1\ncool_down = 0.5\n"
    )
    served = ServerThread()
    served.server.script(FLAKY_MODEL, flaky_judge(served))
    cache, run = tmp_path / "cache", tmp_path / "run"
    env = {
        **{k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))},
        **served.server.env(),
        "JURY_CACHE_DIR": str(cache),
    }
    command = [sys.executable, "-m", "jury", "run", str(cases), "--jury", str(jury_file)]
    command += ["--out", str(run), "--progress", "none", "--no-checks"]
    try:
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        # Every case but the three slow ones: the eight steady cases and k000's second chance.
        deadline = time.monotonic() + 60
        while process.poll() is None and verdict_lines(run) < CASES - 3:
            assert time.monotonic() < deadline, "the run never reached its second chances"
            time.sleep(0.005)
        assert process.poll() is None, process.communicate()[1]
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=30)
        first_lines = (run / "verdicts.jsonl").read_text().splitlines()
        first = {json.loads(line)["case_id"]: json.loads(line) for line in first_lines}
        before = recorded(cache)
        sent_before = len(served.requests)

        resumed = subprocess.run(
            command, check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
        )
        resent = before.intersection(sent_calls(served.requests[sent_before:]))
    finally:
        served.stop()

    # The second chance of k000 was answered, recorded with its case and its call cached.
    assert set(first) == {f"k{n:03d}" for n in range(CASES)} - set(FLAKY[1:])
    flaky_vote = next(v for v in first["k000"]["votes"] if v["juror"] == JURORS[0])
    assert flaky_vote["second_chance"]["first_attempts"] == 1
    assert "503" in flaky_vote["second_chance"]["first_error"]
    assert (FLAKY_MODEL, "k000") in before
    assert resumed.returncode == 0, resumed.stderr
    assert not resent, f"the resumed run sent {sorted(resent)} again"
    lines = (run / "verdicts.jsonl").read_text().splitlines()
    verdicts = Counter(json.loads(line)["case_id"] for line in lines)
    assert set(verdicts.values()) == {1}
    assert {json.loads(line)["verdict"] for line in lines} == {"PASS"}
