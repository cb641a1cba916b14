"""Real local model servers as jurors (issue 32): the example gate through each server given,
one juror, five-metric, ``logprobs = true``, nothing set but where the server is.

Start the servers first (loopback only), e.g. with SmolLM2-135M-Instruct:

    python -m llama_cpp.server --model SmolLM2-135M-Instruct.Q4_1.gguf \\
        --model_alias smollm2-135m --n_ctx 4096 --n_threads 2 --logits_all true --port 8088
    llama-server -m SmolLM2-135M-Instruct.Q4_1.gguf --alias smollm2-135m -c 8192 -np 2 \\
        -t 2 --port 8090

then, from the repository root:

    python benchmarks/local_server.py llamacpppython=http://127.0.0.1:8088/v1 \\
        llamaserver=http://127.0.0.1:8090/v1

One line per server: cases, judge calls, mean and 95th-percentile latency per call, votes
valid / invalid / unavailable, valid votes with a probability, with a doubtful one (its
verdict less likely than another) and without one, this process's CPU time per judge call
(the whole run: checks, jury, records and reports), and what the server said of itself.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

import jury
from jury import VoteStatus

EXAMPLE = Path(__file__).parents[1] / "examples" / "shopnest" / "cases.jsonl"
MODEL = "smollm2-135m"


async def one(service: str, url: str, folder: Path) -> str:
    prefix = service.upper()
    os.environ[f"{prefix}_BASE_URL"] = url
    os.environ.setdefault(f"{prefix}_API_KEY", "x")
    jury_file = folder / f"{service}.toml"
    jury_file.write_text(
        f'[[juror]]\nmodel = "openai-api/{service}/{MODEL}"\nlogprobs = true\n', encoding="utf-8"
    )
    cpu = time.process_time()
    run = await jury.run(EXAMPLE, jury=str(jury_file), out=str(folder / service), no_cache=True)
    cpu = time.process_time() - cpu
    votes = [vote for verdict in run.verdicts for vote in verdict.votes]
    latencies = sorted(v.calls.latency_s / v.calls.attempts for v in votes if v.calls.attempts)
    calls = sum(v.calls.attempts for v in votes)
    valid = [v for v in votes if v.status is VoteStatus.VALID]
    count = {s: sum(v.status is s for v in votes) for s in VoteStatus}
    sure = sum(v.probability is not None and v.probability_note is None for v in valid)
    doubtful = sum(v.probability is not None and v.probability_note is not None for v in valid)
    missing = sum(v.probability is None for v in valid)
    p95 = latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))] if latencies else 0.0
    mean = sum(latencies) / len(latencies) if latencies else 0.0
    said = "; ".join(run.manifest.get("servers", [])) or "nothing"
    return (
        f"{service}: {len(run.verdicts)} cases, {calls} calls, latency mean {mean:.1f} s "
        f"p95 {p95:.1f} s; votes valid {count[VoteStatus.VALID]} invalid "
        f"{count[VoteStatus.INVALID]} unavailable {count[VoteStatus.UNAVAILABLE]}; "
        f"probability on {sure} valid votes, doubtful on {doubtful}, missing on {missing}; "
        f"aiojury CPU {1000 * cpu / max(calls, 1):.1f} ms per call (reports included); "
        f"exit {run.exit_code}; server: {said}"
    )


async def main(pairs: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        for pair in pairs:
            service, _, url = pair.partition("=")
            print(await one(service, url, Path(folder)), flush=True)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    asyncio.run(main(sys.argv[1:]))
