"""Shared pieces of the provider tests: the models, a case, and a one-case jury."""

from __future__ import annotations

import random
from typing import Any

from jury import Case, CaseVerdict, Juror, Jury, Panel, RetrySettings
from jury.testing import FakeClock

ANTHROPIC = "anthropic/claude-haiku-4-5-20251001"
OPENAI = "openai/gpt-4.1-mini-2025-04-14"
GOOGLE = "google/gemini-2.5-flash"
COMPATIBLE = "openai-api/acme/llama-3.1-8b-instruct"
OLLAMA = "ollama/qwen2.5:7b"

#: The three first-party APIs, each through its own SDK (and the direct transport).
FIRST_PARTY = (ANTHROPIC, OPENAI, GOOGLE)
ALL_SPECS = (*FIRST_PARTY, COMPATIBLE, OLLAMA)
TRANSPORTS = ("sdk", "direct")

CASE = Case(
    id="refund-1",
    question="Can I still return the kettle I bought 20 days ago?",
    answer="Yes: returns are accepted within 30 days, so you have 10 days left.",
    golden_answer="Yes, within the 30-day return window.",
)


def model_id(spec: str) -> str:
    """The model name the server sees (the spec without its provider prefix)."""
    if spec.startswith("openai-api/"):
        return spec.split("/", 2)[2]
    return spec.partition("/")[2]


def panel(*jurors: str | Juror, **settings: Any) -> Panel:
    settings.setdefault("retry", RetrySettings(attempts=3, base_delay=1.0, max_delay=8.0))
    settings.setdefault("quorum", 1)
    return Panel(
        jurors=tuple(j if isinstance(j, Juror) else Juror(model=j) for j in jurors), **settings
    )


async def judge(p: Panel, clock: FakeClock | None = None, case: Case = CASE) -> CaseVerdict:
    async with Jury(p, clock=clock or FakeClock(), rng=random.Random(7)) as jury:
        return await jury.judge(case)
