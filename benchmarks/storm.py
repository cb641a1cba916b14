"""A 429 storm: does a run with no `rpm` configured settle under the provider's real limit,
without letting errors turn verdicts INCONCLUSIVE or change them?

N cases x 3 jurors on one account of the fake provider server (127.0.0.1 only), which lets
`--rpm` requests a minute through its sliding minute and answers the rest 429, fails 30 % of
the calls with a 5xx and answers another 10 % with a malformed body. The jury file sets no
`rpm`: the engine has to learn it. Each judge's verdict on a case is fixed by the case (about
one case in four fails), so any verdict other than the expected one was changed by an error.

Reported: cases INCONCLUSIVE, verdicts changed, requests answered 429 after the first minute
(and overall), the rate the run kept and its length, and the votes given a second chance
(issue 22: a vote lost to transient errors is asked again at the end of the run, after
`retry.cool_down`) with how many of them then counted. `--baseline` first runs the same cases
without the storm (no 5xx, no malformed replies) and compares the verdicts case by case.
`--split 0.25` makes one juror in turn dissent on a quarter of the cases (the other two still
decide them), so that a lost vote of one of the two leaves a tie: the issue's INCONCLUSIVE
cases, "a juror whose four attempts all met a 5xx and whose two colleagues then split".
This takes real minutes: the fake's windows are wall-clock minutes (a `FakeClock` cannot
drive a real HTTP server), and 300 x 3 calls at 600 a minute, plus their retries, take about
three.

    python benchmarks/storm.py --provider google --cases 300 --rpm 600 --split 0.25 --baseline

Gemini sends no rate-limit header (the limiter must learn from its first 429s); OpenAI and
Anthropic do (`--provider openai` or `anthropic`). The same script runs against an older
checkout of the engine (it uses only what the fake server had before strict mode), for the
figure before the change.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import logging
import os
import random
import re
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import structlog

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._machine import machine
from jury import Case, Juror, Jury, Panel
from jury.testing import FakeProviderServer, Fault, LoggedRequest, valid_reply

#: Three models of each provider, on one key: one account, one limit.
JURORS = {
    "google": ("gemini-3.5-flash-lite", "gemini-3.8-flash", "gemini-3.6-flash"),
    "openai": ("gpt-4.1-mini-2025-04-14", "gpt-5.4-mini-2026-03-17", "gpt-6-luna"),
    "anthropic": ("claude-haiku-5-5", "claude-haiku-4-5-20251001", "claude-opus-4-8"),
}
KEY = "storm-key-not-secret"
_CASE = re.compile(r"\[case (\d+)\]")


def expected(index: int) -> str:
    """The verdict every judge gives case `index`: one case in four fails."""
    return "FAIL" if index % 4 == 0 else "PASS"


def make_cases(n: int) -> list[Case]:
    return [
        Case(
            id=f"case-{i}",
            question=f"[case {i}] Can I still return item {i % 17} bought {i % 40} days ago?",
            answer=f"Returns are accepted within 30 days; item {i % 17} was bought "
            f"{i % 40} days ago.",
            golden_answer="Returns are accepted within 30 days of delivery.",
        )
        for i in range(n)
    ]


def dissenter(index: int, split: float, models: tuple[str, ...]) -> str | None:
    """The juror that disagrees with the other two on case `index` (None: they all agree):
    on a `split` share of the cases, one juror in turn. Two still make the verdict, but a lost
    vote of one of those two leaves the other facing the dissenter, a tie."""
    if (index * 7919) % 1000 >= split * 1000:
        return None
    return models[index % len(models)]


class Storm:
    """What each call gets: a fault (5xx or malformed) by a seeded draw, else the judge's
    fixed verdict on the case (the opposite one from the case's dissenter, if any)."""

    def __init__(
        self, seed: int, fail: float, malformed: float, split: float, models: tuple[str, ...]
    ) -> None:
        self.rng = random.Random(seed)
        self.fail = fail
        self.malformed = malformed
        self.split = split
        self.models = models

    def __call__(self, request: LoggedRequest) -> Any:
        draw = self.rng.random()
        if draw < self.fail:
            return Fault.http(self.rng.choice((500, 502, 503)))
        if draw < self.fail + self.malformed:
            return Fault.malformed()
        found = _CASE.search(json.dumps(request.body))
        index = int(found.group(1)) if found else 1
        fails = expected(index) == "FAIL"
        if dissenter(index, self.split, self.models) == request.model:
            fails = not fails
        reply = valid_reply(request.schema)
        for name, value in list(reply.items()):
            if isinstance(value, int):
                reply[name] = 2 if fails else 5
        return reply


class ServerThread:
    """The fake server in a thread of its own: the engine's event loop is not shared."""

    def __init__(self, **options: Any) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.server = FakeProviderServer(**options)
        asyncio.run_coroutine_threadsafe(self.server.start(), self.loop).result(timeout=10)

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.server.close(), self.loop).result(timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)


async def judge_all(provider: str, cases: list[Case]) -> list[Any]:
    panel = Panel(jurors=tuple(Juror(model=f"{provider}/{m}") for m in JURORS[provider]))
    async with Jury(panel, checks=None) as jury:
        return [verdict async for verdict in jury.evaluate(cases)]


def run(args: argparse.Namespace, fail: float, malformed: float) -> dict[str, Any]:
    options: dict[str, Any] = {"rpm": {args.provider: args.rpm}, "latency": args.latency}
    if "strict" in inspect.signature(FakeProviderServer).parameters:
        options["strict"] = True
    served = ServerThread(**options)
    storm = Storm(args.seed, fail, malformed, args.split, JURORS[args.provider])
    for model in JURORS[args.provider]:
        served.server.script(model, storm)
    os.environ.update(served.server.env(KEY))
    cases = make_cases(args.cases)
    started = time.monotonic()
    try:
        verdicts = asyncio.run(judge_all(args.provider, cases))
    finally:
        served.stop()
    wall = time.monotonic() - started
    requests = served.server.requests
    counted = Counter(v.verdict.value for v in verdicts)
    changed = [
        v.case_id
        for v in verdicts
        if v.verdict.value != "INCONCLUSIVE"
        and v.verdict.value != expected(int(v.case_id.split("-")[1]))
    ]
    late = [r for r in requests if r.received > 60.0]
    late_429 = sum(r.status == 429 for r in late)
    # `second_chance` is read with getattr: the script also runs against engines without it.
    again = [vote for v in verdicts for vote in v.votes if getattr(vote, "second_chance", None)]
    return {
        "verdicts": {v.case_id: v.verdict.value for v in verdicts},
        "second_chances": len(again),
        "second_chances_valid": sum(vote.status.value == "valid" for vote in again),
        "cases": len(verdicts),
        "inconclusive": counted.get("INCONCLUSIVE", 0),
        "changed": len(changed),
        "requests": len(requests),
        "429": sum(r.status == 429 for r in requests),
        "late": len(late),
        "late_429": late_429,
        "wall_s": wall,
        "served_rpm": sum(r.status != 429 for r in requests) / wall * 60.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--provider", choices=sorted(JURORS), default="google")
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--rpm", type=float, default=600)
    parser.add_argument("--fail", type=float, default=0.30, help="share of calls that 5xx")
    parser.add_argument("--malformed", type=float, default=0.10, help="share malformed")
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per reply")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument(
        "--split", type=float, default=0.0, help="share of cases where one juror dissents"
    )
    parser.add_argument(
        "--baseline", action="store_true", help="first judge the cases without the storm"
    )
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    print(f"machine: {machine()}")
    print(
        f"command: python benchmarks/storm.py --provider {args.provider} --cases {args.cases} "
        f"--rpm {args.rpm:g} --fail {args.fail:g} --malformed {args.malformed:g} "
        f"--latency {args.latency:g} --seed {args.seed} --split {args.split:g}"
        f"{' --baseline' * args.baseline}"
    )
    calm = run(args, 0.0, 0.0)["verdicts"] if args.baseline else None
    r = run(args, args.fail, args.malformed)
    verdicts = r.pop("verdicts")
    if calm is not None:
        # A verdict the storm changed: decided both times, differently.
        r["changed_from_baseline"] = sum(
            verdicts[c] != calm[c] for c in verdicts if "INCONCLUSIVE" not in (verdicts[c], calm[c])
        )
        r["baseline_inconclusive"] = sum(v == "INCONCLUSIVE" for v in calm.values())
    late_share = r["late_429"] / r["late"] if r["late"] else 0.0
    print(
        f"{r['cases']} cases x 3 jurors, no rpm configured, fake at {args.rpm:g} rpm: "
        f"{r['inconclusive']} INCONCLUSIVE ({r['inconclusive'] / r['cases']:.1%}), "
        f"{r['changed']} verdicts changed; {r['requests']} requests, {r['429']} answered 429 "
        f"({r['429'] / r['requests']:.1%}); after the first minute {r['late_429']} of "
        f"{r['late']} ({late_share:.1%}); {r['wall_s']:.0f}s, {r['served_rpm']:.0f} requests "
        f"a minute taken; {r['second_chances']} votes given a second chance, "
        f"{r['second_chances_valid']} of them then valid"
    )
    if calm is not None:
        print(
            f"against the storm-free run ({r['baseline_inconclusive']} INCONCLUSIVE): "
            f"{r['changed_from_baseline']} verdicts changed"
        )
    print(f"result: {json.dumps(r)}")


if __name__ == "__main__":
    main()
