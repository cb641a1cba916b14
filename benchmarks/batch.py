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
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._machine import machine

ROOT = Path(__file__).resolve().parents[1]

JURORS = (
    "openai/gpt-4.1-mini-2025-04-14",
    "anthropic/claude-haiku-4-5-20251001",
    "google/gemini-2.5-flash",
)
KEY = "benchmark-key-not-secret"


def write_cases(path: Path, count: int) -> None:
    with path.open("w") as handle:
        for n in range(count):
            golden = f"Order ORD-{n} shipped on day {n % 9 + 1}."
            answer = golden if n % 7 else f"WRONG: order ORD-{n} is lost."
            case = {"id": f"c{n:06d}", "question": f"Where is ORD-{n}?", "answer": answer}
            handle.write(json.dumps(case | {"golden_answer": golden}) + "\n")


class Server:
    """The fake server in a process of its own: its CPU and memory are not the client's."""

    def __init__(self, *options: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jury.testing", *options],
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        assert self.process.stdout is not None
        self.url = self.process.stdout.readline().strip()

    def env(self) -> dict[str, str]:
        return {
            "OPENAI_BASE_URL": f"{self.url}/v1",
            "OPENAI_API_KEY": KEY,
            "ANTHROPIC_BASE_URL": self.url,
            "ANTHROPIC_API_KEY": KEY,
            "GOOGLE_GEMINI_BASE_URL": self.url,
            "GOOGLE_API_KEY": KEY,
        }

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=60)


def jury(args: list[str], env: dict[str, str]) -> tuple[int, float, float, str]:
    """Run `jury` and return its exit code, wall seconds, peak memory (MB) and stdout."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "jury", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, time.perf_counter() - started, usage.ru_maxrss / 1024, out


def setup(where: Path, count: int, server: Server) -> tuple[list[str], dict[str, str]]:
    write_cases(where / "cases.jsonl", count)
    jurors = ", ".join(f'"{juror}"' for juror in JURORS)
    (where / "jury.toml").write_text(f"jurors = [{jurors}]\n[batch]\npoll = 1\n")
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    env |= server.env() | {"JURY_CACHE_DIR": str(where / "cache")}
    base = ["run", str(where / "cases.jsonl"), "--jury", str(where / "jury.toml")]
    return [*base, "--no-checks", "--no-cache", "--progress", "none"], env


def scale(count: int) -> None:
    server = Server("--batch-delay", "0")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            where = Path(tmp)
            base, env = setup(where, count, server)
            run = where / "run"
            code, submit, submit_mb, _ = jury([*base, "--out", str(run), "--submit-only"], env)
            assert code == 3, f"submitting exited {code}"
            resume = ["run", "--resume", str(run), "--progress", "none", "--no-cache"]
            code, collect, collect_mb, _ = jury(resume, env)
            assert code in (0, 1), f"collecting exited {code}"
            summary = json.loads((run / "summary.json").read_text())
            assert summary["total"] == count
    finally:
        server.stop()
    requests = count * len(JURORS)
    print(
        f"scale: {count:,} cases x {len(JURORS)} jurors ({requests:,} requests); "
        f"submit {submit:.1f} s, peak {submit_mb:.0f} MB, {requests / submit:,.0f} requests/s "
        f"prepared; collect {collect:.1f} s, peak {collect_mb:.0f} MB; {machine()}"
    )


def verdicts(run: Path) -> dict[str, Any]:
    decided = {}
    for line in (run / "verdicts.jsonl").read_text().splitlines():
        v = json.loads(line)
        metrics = {name: m["value"] for name, m in v["metrics"].items()}
        decided[v["case_id"]] = (v["verdict"], metrics)
    return decided


def equal(count: int) -> None:
    server = Server("--batch-delay", "0")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            where = Path(tmp)
            base, env = setup(where, count, server)
            _, batch_s, _, _ = jury([*base, "--out", str(where / "batch")], env)
            online_base = [*base[:2], "--jury", str(where / "online.toml"), *base[4:]]
            jurors = ", ".join(f'"{juror}"' for juror in JURORS)
            (where / "online.toml").write_text(f"jurors = [{jurors}]\n")
            _, online_s, _, _ = jury([*online_base, "--out", str(where / "online")], env)
            batched, online = verdicts(where / "batch"), verdicts(where / "online")
    finally:
        server.stop()
    differ = [case for case in online if batched.get(case) != online[case]]
    print(
        f"equal: {count:,} cases x {len(JURORS)} jurors; through batches {batch_s:.1f} s, "
        f"online {online_s:.1f} s; {len(batched):,} and {len(online):,} verdicts, "
        f"{len(differ)} differ{': ' + ', '.join(differ[:5]) if differ else ''}; {machine()}"
    )


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
