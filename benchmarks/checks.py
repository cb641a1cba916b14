"""How fast the deterministic checks are: every built-in check over synthetic cases.

    python benchmarks/checks.py                # 100,000 cases
    python benchmarks/checks.py --cases 20000  # quicker

The cases are generated from a seed: ShopNest-like answers of 5 to 120 words, traces with up
to four tool calls and sources, and, in some share of cases, each expectation a check reads
(expected tool, argument as a string or a dict, source, tool order, refusal, word bounds, a
JSON schema, cited sources) and each thing a check looks for (PII and keys, profanity, tool
errors, JSON in a fence). It prints, per check, cases per second and microseconds per case,
and the outcome counts (so the data is seen to reach pass, fail and not-applicable paths);
then the same for the whole suite, as a markdown table for benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._machine import cpu_model
from jury import Case, CheckOutcome
from jury.checks import CheckSuite

WORDS = (
    "your order was shipped two days ago and should arrive within three to five business "
    "days the return window is thirty days from delivery refunds go to the original payment "
    "method within five business days please keep the receipt for your records"
).split()
TOOLS = ("getOrderStatus", "checkStock", "createExchange", "searchPolicy", "refund")
SOURCES = ("return-policy.md", "shipping-policy.md", "exchange-policy.md", "faq.md")
SCHEMA = {
    "type": "object",
    "required": ["order_id", "status"],
    "properties": {"order_id": {"type": "string"}, "status": {"enum": ["shipped", "delivered"]}},
}
EXTRAS = (
    " The card on file is 4111 1111 1111 1111.",
    " Mail jane.doe@mail.example for help.",
    " Call (555) 123-4567 any time.",
    " Use key sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z.",
    " That policy is bullshit.",
    " You deserve to die.",
    " [source: faq.md]",
    " I can't help with that.",
)


def synthetic_case(rng: random.Random, index: int) -> dict[str, Any]:
    order = f"ORD-{rng.randint(100, 999)}"
    answer = " ".join(rng.choices(WORDS, k=rng.randint(5, 120)))
    if rng.random() < 0.3:
        answer += rng.choice(EXTRAS)
    calls = []
    for _ in range(rng.choice((0, 1, 1, 2, 4))):
        arguments: Any = order if rng.random() < 0.5 else {"order_id": order, "verbose": False}
        call: dict[str, Any] = {"name": rng.choice(TOOLS), "arguments": arguments}
        if rng.random() < 0.05:
            call["error"] = "timeout"
        else:
            call["result"] = "Delivered 20 days ago"
        calls.append(call)
    data: dict[str, Any] = {
        "id": f"case-{index}",
        "category": rng.choice(("policy", "tool", "combined", "edge")),
        "question": f"Can I still return {order}?",
        "answer": answer,
        "trace": {
            "tool_calls": calls,
            "retrieved_sources": rng.sample(SOURCES, k=rng.randint(0, 3)),
            "cited_sources": rng.sample(SOURCES, k=1) if rng.random() < 0.2 else [],
        },
    }
    if rng.random() < 0.1:
        data["expected_tool"] = None
    elif rng.random() < 0.7:
        data["expected_tool"] = rng.choice(TOOLS)
        data["expected_tool_argument"] = (
            order if rng.random() < 0.5 else {"order_id": order if rng.random() < 0.8 else "ORD-0"}
        )
    if rng.random() < 0.6:
        data["expected_source"] = rng.choice(SOURCES)
    if rng.random() < 0.2:
        data["expected_tool_order"] = rng.sample(TOOLS, k=2)
    if rng.random() < 0.15:
        data["expect_refusal"] = rng.random() < 0.7
    if rng.random() < 0.3:
        data["min_words"], data["max_words"] = 10, 90
    if rng.random() < 0.2:
        data["allowed_emails"] = ["@shopnest.example"]
    if rng.random() < 0.1:
        data["json_schema"] = SCHEMA
        body = {"order_id": order, "status": rng.choice(("shipped", "lost"))}
        data["answer"] = "```json\n" + json.dumps(body) + "\n```"
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    started = time.perf_counter()
    cases = [Case.model_validate(synthetic_case(rng, i)) for i in range(args.cases)]
    built = time.perf_counter() - started
    suite = CheckSuite.from_settings()

    print(f"machine: {os.cpu_count()} CPUs (nproc), {cpu_model()}")
    print(f"python {platform.python_version()} ({sys.executable})")
    print(f"{len(cases):,} synthetic cases (seed {args.seed}), built in {built:.1f} s\n")
    # CPU time of this process is the figure to compare on a shared machine; wall-clock
    # time is shown beside it.
    print("| check | cases/s (CPU) | µs/case (CPU) | cases/s (wall) | pass | fail | n/a |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    n = len(cases)
    for check in suite:
        outcomes: Counter[CheckOutcome] = Counter()
        wall, cpu = time.perf_counter(), time.process_time()
        for case in cases:
            outcomes[check(case).outcome] += 1
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        print(
            f"| {check.name} | {n / cpu:,.0f} | {cpu / n * 1e6:.1f} | {n / wall:,.0f} "
            f"| {outcomes[CheckOutcome.PASS]:,} | {outcomes[CheckOutcome.FAIL]:,} "
            f"| {outcomes[CheckOutcome.NOT_APPLICABLE]:,} |"
        )
    wall, cpu = time.perf_counter(), time.process_time()
    failed = sum(any(r.outcome is CheckOutcome.FAIL for r in suite(case)) for case in cases)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(
        f"| **whole suite ({len(suite)} checks)** | {n / cpu:,.0f} | {cpu / n * 1e6:.1f} "
        f"| {n / wall:,.0f} | | {failed:,} cases | |"
    )


if __name__ == "__main__":
    main()
