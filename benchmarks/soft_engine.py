"""Engine throughput with `logprobs = true` against the same panel without (issue 21, item 3).

    python benchmarks/soft_engine.py --rounds 20 [--cases 3000]

Each round runs `benchmarks/engine.py`'s throughput set-up (N cases x 3 scripted jurors that
answer at once, validation included) twice, each in a fresh process: once with jurors that ask
for log-probabilities and get a reply carrying them (five alternatives listed at the first token
of two metrics' values, as `benchmarks/soft.py` reads), once with the same reply text and no
log-probabilities. The order alternates every round, so that a drift of the machine favours
neither. Each side reports the CPU seconds of its run (`time.process_time`, which the other
jobs on a shared machine disturb less than the wall clock); the round's ratio is
plain / logprobs, the throughput with log-probabilities as a share of the throughput without.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._machine import machine
from benchmarks.engine import REPLY, cases, drain, quiet
from jury import Juror, Jury, Panel
from jury.adapters import JudgeReply, TokenLogprob, Usage
from jury.testing import ScriptedModel
from jury.testing._logprobs import tokens_of

FIVE = {"5": 0.6, "4": 0.2, "3": 0.1, "2": 0.05, "1": 0.05}
ODDS = {"correctness": {"4": 0.5, "5": 0.3, "3": 0.2}, "relevance": FIVE}


def reply(logprobs: bool) -> JudgeReply:
    tokens = tuple(TokenLogprob(t.text, t.logprob, t.top) for t in tokens_of(REPLY, ODDS, 5))
    return JudgeReply(
        text=REPLY,
        model="scripted",
        usage=Usage(400, len(REPLY) // 4),
        logprobs=tokens if logprobs else None,
    )


def run(n: int, logprobs: bool) -> float:
    """CPU seconds for n cases x 3 jurors."""
    answer = reply(logprobs)
    jurors = tuple(
        Juror(
            model=ScriptedModel([answer], name=f"scripted/judge-{i}", record=False),
            logprobs=logprobs,
        )
        for i in range(3)
    )
    jury = Jury(Panel(jurors=jurors, concurrency=256), checks=None)
    started = time.process_time()
    tally = asyncio.run(drain(jury, cases(n)))
    spent = time.process_time() - started
    assert tally.passed == n, tally.summary()
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--cases", type=int, default=3000)
    parser.add_argument("--side", choices=["plain", "logprobs"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.side:  # one side of a round, in its own process
        quiet()
        print(run(args.cases, args.side == "logprobs"))
        return
    print(f"machine: {machine()}; load before: {os.getloadavg()[0]:.2f}")
    calls = 3 * args.cases
    ratios, costs = [], []
    for round_ in range(args.rounds):
        sides = ["plain", "logprobs"] if round_ % 2 == 0 else ["logprobs", "plain"]
        spent = {}
        for side in sides:
            out = subprocess.run(
                [sys.executable, __file__, "--side", side, "--cases", str(args.cases)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            spent[side] = float(out.strip().splitlines()[-1])
        ratio = spent["plain"] / spent["logprobs"]
        extra = (spent["logprobs"] - spent["plain"]) / calls * 1e6
        ratios.append(ratio)
        costs.append(extra)
        print(
            f"round {round_ + 1}: plain {spent['plain'] / calls * 1e6:.1f} µs/call, logprobs "
            f"{spent['logprobs'] / calls * 1e6:.1f} µs/call, throughput ratio {ratio:.3f}"
        )
    ratios.sort()
    quarter = len(ratios) // 4
    print(
        f"logprobs/plain throughput: median {statistics.median(ratios):.3f}, interquartile "
        f"{ratios[quarter]:.3f}-{ratios[-1 - quarter]:.3f}, range {ratios[0]:.3f}-"
        f"{ratios[-1]:.3f} over {len(ratios)} rounds; extra CPU a call: median "
        f"{statistics.median(costs):.1f} µs; load after: {os.getloadavg()[0]:.2f}"
    )


if __name__ == "__main__":
    main()
