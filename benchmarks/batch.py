"""Batch mode at scale, against the fake provider server in its own process (127.0.0.1 only).

(a) ``scale``: N cases x 3 jurors (OpenAI, Anthropic, Gemini) through ``jury run --batch``:
    first ``--submit-only`` (judge every case, write and send the batches), then ``--resume``
    (poll, collect, judge again, publish). Reported for each: wall time and the peak
    resident memory of the `jury` process; and the requests prepared a second while
    submitting (requests / submit wall time, start-up included).
(b) ``equal``: N cases x 3 jurors through ``--batch`` and the same run online (``--no-cache``):
    the verdicts and aggregated metrics of every case compared. The acceptance test of issue
    15 at its full size (the suite runs it on a few hundred cases).

    python benchmarks/batch.py scale --cases 100000
    python benchmarks/batch.py equal --cases 10000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from benchmarks._machine import machine
from served import ServerThread, judge

ROOT = Path(__file__).resolve().parents[1]

JURORS = (
    "openai/gpt-5.4-mini-2026-03-17",
    "anthropic/claude-haiku-5-5",
    "google/gemini-3.5-flash-lite",
)


def write_cases(path: Path, count: int) -> None:
    with path.open("w") as handle:
        for n in range(count):
            golden = f"Order ORD-{n} shipped on day {n % 9 + 1}."
            answer = golden if n % 7 else f"WRONG: order ORD-{n} is lost."
            case = {"id": f"c{n:06d}", "question": f"Where is ORD-{n}?", "answer": answer}
            handle.write(json.dumps(case | {"golden_answer": golden}) + "\n")


#: `jury` itself, noting on stderr its peak resident memory just before it publishes the
#: reports (summary, HTML, JUnit), and its own peak as it exits.
_MEASURED = """
import sys
import jury.cli._run as run

def publish(*args, **options):
    status = open("/proc/self/status").read()
    print("peak before publishing:", status.split("VmHWM:")[1].split()[0], file=sys.stderr)
    return real(*args, **options)

real, run.publish = run.publish, publish

# Its own peak, as it exits: the rusage of a child (`wait4`) counts the pages of the process
# that started it as they were when it started (Linux records the old address space's peak
# at exec), so with the fake server's batches in this process it said gigabytes.
import atexit
atexit.register(
    lambda: print("peak:", open("/proc/self/status").read().split("VmHWM:")[1].split()[0],
                  file=sys.stderr)
)
from jury.cli import main
sys.exit(main(sys.argv[1:]))
"""


def jury(args: list[str], env: dict[str, str]) -> tuple[int, float, float, float | None]:
    """Run `jury`: its exit code, wall seconds, peak memory (MB) and peak memory before it
    published the reports (MB; None when it published none)."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-c", _MEASURED, *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    err = process.stderr.read()
    _, status, _usage = os.wait4(process.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    before = [line for line in err.splitlines() if line.startswith("peak before publishing:")]
    kb = float(before[-1].split(":")[1]) if before else None
    peak = [line for line in err.splitlines() if line.startswith("peak:")]
    assert peak, err[-2000:]
    own = float(peak[-1].split(":")[1]) / 1024
    return code, time.perf_counter() - started, own, kb and kb / 1024


def setup(where: Path, count: int, server: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    write_cases(where / "cases.jsonl", count)
    jurors = ", ".join(f'"{juror}"' for juror in JURORS)
    (where / "jury.toml").write_text(f"jurors = [{jurors}]\n[batch]\npoll = 1\n")
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    env |= server | {"JURY_CACHE_DIR": str(where / "cache")}
    base = ["run", str(where / "cases.jsonl"), "--jury", str(where / "jury.toml")]
    return [*base, "--no-checks", "--no-cache", "--progress", "none"], env


def scale(count: int) -> None:
    # The server in a thread of this process, with batches that end only when told: the
    # submit ends pending, and the collect finds every batch ended.
    served = ServerThread(batch_delay=10.0**9, log=False)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            where = Path(tmp)
            base, env = setup(where, count, served.server.env())
            run = where / "run"
            code, submit, submit_mb, _ = jury([*base, "--out", str(run), "--submit-only"], env)
            assert code == 3, f"submitting exited {code}"
            done = asyncio.run_coroutine_threadsafe(_end(served), served.loop)
            sent = done.result(timeout=60)
            print(
                f"submit: {submit:.1f} s, peak {submit_mb:.0f} MB, {sent} batches sent", flush=True
            )
            resume = ["run", "--resume", str(run), "--progress", "none", "--no-cache"]
            code, collect, collect_mb, before_mb = jury(resume, env)
            assert before_mb is not None
            assert code in (0, 1), f"collecting exited {code}"
            summary = json.loads((run / "summary.json").read_text())
            assert summary["total"] == count
            batches = len(served.server.batches.jobs)
    finally:
        served.stop()
    requests = count * len(JURORS)
    print(
        f"scale: {count:,} cases x {len(JURORS)} jurors ({requests:,} requests in {batches} "
        f"batches, {sent} sent by the submit); submit {submit:.1f} s, peak {submit_mb:.0f} MB, "
        f"{requests / submit:,.0f} requests/s prepared; "
        f"collect {collect:.1f} s, peak {collect_mb:.0f} MB, "
        f"{before_mb:.0f} MB before publishing the reports; {machine()}"
    )


async def _end(served: ServerThread) -> int:
    """Every batch at the server ends now, and every batch created from now on ends at once
    (those the submit left unsent: at most ``in_flight`` of a model are in flight, and a
    Gemini batch holds 20 MB); how many batches there are now."""
    served.server.batches.delay = 0.0
    for job in served.server.batches.jobs.values():
        job.ends = 0.0
    return len(served.server.batches.jobs)


def verdicts(run: Path) -> dict[str, Any]:
    decided = {}
    for line in (run / "verdicts.jsonl").read_text().splitlines():
        v = json.loads(line)
        metrics = {name: m["value"] for name, m in v["metrics"].items()}
        decided[v["case_id"]] = (v["verdict"], metrics)
    return decided


def equal(count: int) -> None:
    # Batches end as soon as they are created; each juror answers from its request
    # (`served.judge`: deterministic, failing the wrong answers), online and in a batch alike.
    served = ServerThread(log=False)
    for juror in JURORS:
        served.server.script(juror.split("/", 1)[1], judge)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            where = Path(tmp)
            base, env = setup(where, count, served.server.env())
            _, batch_s, _, _ = jury([*base, "--out", str(where / "batch")], env)
            online_base = [*base[:2], "--jury", str(where / "online.toml"), *base[4:]]
            jurors = ", ".join(f'"{juror}"' for juror in JURORS)
            (where / "online.toml").write_text(f"jurors = [{jurors}]\n")
            _, online_s, _, _ = jury([*online_base, "--out", str(where / "online")], env)
            batched, online = verdicts(where / "batch"), verdicts(where / "online")
    finally:
        served.stop()
    differ = [case for case in online if batched.get(case) != online[case]]
    print(
        f"equal: {count:,} cases x {len(JURORS)} jurors; through batches {batch_s:.1f} s, "
        f"online {online_s:.1f} s; {len(batched):,} and {len(online):,} verdicts "
        f"({dict(sorted(Counter(v for v, _ in online.values()).items()))} online), "
        f"{len(differ)} differ{': ' + ', '.join(differ[:5]) if differ else ''}; {machine()}"
    )
    assert len(batched) == len(online) == count, "a run left cases without a verdict"
    assert not differ, f"{len(differ)} verdicts differ between batches and online"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=("scale", "equal"))
    parser.add_argument("--cases", type=int, default=None)
    args = parser.parse_args()
    if args.mode == "scale":
        scale(args.cases or 100_000)
    else:
        equal(args.cases or 10_000)


if __name__ == "__main__":
    main()
