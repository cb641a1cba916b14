"""Which OpenAI model the default panel seats, measured: every OpenAI model the lifecycle table
lists as current (no retirement announced) and the price table prices judges the shopnest
example's cases against the fake provider server (127.0.0.1 only), at the effort the adapter
sends it; its dollars per 1,000 verdicts are what the fake counted (prompt, reply and
reasoning tokens) at the price table's rates (genai-prices). The table says which are dated
snapshots: the default is the cheapest that is (DESIGN: model IDs should be dated snapshots;
an alias is warned about on every run that seats it). `jury.panel._defaults` records it.

    python benchmarks/default_juror.py
"""

from __future__ import annotations

import asyncio
import random
import sys
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._machine import machine
from jury import Juror, Jury, Panel, load_cases
from jury.adapters import Usage, price
from jury.providers._lifecycle_table import OPENAI
from jury.providers._openai_efforts import default_effort
from jury.testing import FakeClock, FakeProviderServer

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "examples" / "shopnest" / "cases.jsonl"
DAY = date(2026, 12, 4)


def candidates() -> list[str]:
    """OpenAI models the table lists with no retirement announced (deprecated ones are not
    defaults: a default that retires within months is a default to change again)."""
    return sorted({row.model for row in OPENAI if row.retires is None})


async def measure(model: str, server: FakeProviderServer) -> tuple[float | None, int, int]:
    """Dollars per 1,000 verdicts, and the input and output tokens per verdict."""
    cases = load_cases(CASES)
    panel = Panel(jurors=(Juror(model=f"openai/{model}"),), quorum=1)
    cost: float | None = 0.0
    tokens_in = tokens_out = 0
    async with Jury(panel, clock=FakeClock(), rng=random.Random(1), checks=None) as jury:
        for case in cases:
            verdict = await jury.judge(case)
            (vote,) = verdict.votes
            calls = vote.calls
            # The fake's replies are billed $0: priced here as OpenAI would bill them.
            used = Usage(calls.input_tokens, calls.output_tokens, calls.cached_tokens)
            paid = price("openai", model, used)
            cost = None if cost is None or paid is None else cost + paid
            tokens_in += calls.input_tokens
            tokens_out += calls.output_tokens
    n = len(cases)
    return (None if cost is None else cost / n * 1000), tokens_in // n, tokens_out // n


async def main() -> None:
    import os

    from jury.adapters._registry import model_status

    async with FakeProviderServer() as server:
        for name, value in server.env("sk-benchmark").items():
            os.environ[name] = value
        rows = []
        for model in candidates():
            per_1000, tokens_in, tokens_out = await measure(model, server)
            status = model_status(f"openai/{model}", DAY)
            pinned = "dated" if status is not None and status.pinned else "alias"
            rows.append((per_1000, model, pinned, default_effort(model), tokens_in, tokens_out))
    rows.sort(key=lambda row: (row[0] is None, row[0] or 0.0))
    print(machine())
    print("| model | ID | effort sent | tokens in / out per verdict | $ per 1,000 verdicts |")
    print("| --- | --- | --- | --- | --- |")
    for per_1000, model, pinned, effort, tokens_in, tokens_out in rows:
        cost = "unpriced" if per_1000 is None else f"{per_1000:.3f}"
        print(f"| `{model}` | {pinned} | {effort} | {tokens_in} / {tokens_out} | {cost} |")


if __name__ == "__main__":
    asyncio.run(main())
