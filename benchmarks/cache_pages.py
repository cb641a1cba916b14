"""What the call cache's smaller page cache costs a rerun (issue 36): the CPU of a 1,000-case
`jury.run` served wholly from the cache, with SQLite's page cache at each size given (KiB
per connection; SQLite's default is 2,000), each rerun in a fresh process, the sizes
interleaved round by round, the order rotating. The neutral harness's cases and jurors
(`benchmarks/neutral.py`) against the fake server; the cache is filled once first.

    python benchmarks/cache_pages.py --rounds 5 --kib 256,1024,2000
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHILD = """
import asyncio, json, resource, sys
from pathlib import Path
sys.path.insert(0, {root!r})
import jury, jury.engine._cache as cache
from benchmarks import neutral
cache._CACHE_KIB = -int(sys.argv[2])
folder = Path(sys.argv[1])
cases, panel = neutral._run_files(1000, 20, folder)
before = resource.getrusage(resource.RUSAGE_SELF)
run = asyncio.run(jury.run(cases, jury=str(panel), out=str(folder / ("run-" + sys.argv[3])),
                           cache_dir=str(folder / "cache"), no_html=True))
after = resource.getrusage(resource.RUSAGE_SELF)
cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
hits = sum(vote.calls.cache_hits for verdict in run.verdicts for vote in verdict.votes)
print(json.dumps({{"cpu_s": cpu, "cached": hits}}))
"""


def main() -> None:
    from benchmarks._machine import machine
    from benchmarks.providers import ServerProcess

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--kib", default="256,2000", help="page cache sizes, KiB, comma-separated")
    args = parser.parse_args()
    sizes = [int(kib) for kib in args.kib.split(",")]
    code = CHILD.format(root=str(ROOT))
    print(f"# {machine()}; load {os.getloadavg()[0]:.2f} at the start")
    server = ServerProcess(0.05)
    found: dict[int, list[float]] = {kib: [] for kib in sizes}
    try:
        with tempfile.TemporaryDirectory(prefix="jury-cache-pages-") as folder:
            env = {**os.environ, **server.env()}

            def rerun(kib: int, name: str) -> dict[str, float]:
                done = subprocess.run(
                    [sys.executable, "-c", code, folder, str(kib), name],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                result: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
                return result

            rerun(2000, "fill")
            for round_ in range(args.rounds):
                for kib in sizes[round_ % len(sizes) :] + sizes[: round_ % len(sizes)]:
                    result = rerun(kib, f"{kib}-{round_}")
                    if result["cached"] != 3000:
                        raise SystemExit(f"{kib} KiB: {result['cached']} of 3000 calls cached")
                    found[kib].append(result["cpu_s"])
    finally:
        server.stop()
    base = found[sizes[-1]]
    for kib in sizes:
        seconds = ", ".join(f"{s:.3f}" for s in found[kib])
        ratios = ", ".join(f"{a / b:.3f}" for a, b in zip(found[kib], base, strict=True))
        print(f"{kib} KiB: CPU s per rerun {seconds}; / {sizes[-1]} KiB per round {ratios}")
    print(f"# load {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
