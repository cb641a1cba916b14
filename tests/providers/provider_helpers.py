"""Shared pieces of the provider tests: the models, a case, and a one-case jury."""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
from pathlib import Path
from typing import Any

from conftest import FAKE_KEY
from jury import Case, CaseVerdict, Juror, Jury, Panel, RetrySettings
from jury.testing import FakeClock, FakeProviderServer

ROOT = Path(__file__).resolve().parents[2]

ANTHROPIC = "anthropic/claude-haiku-5-5"
#: A model that takes a temperature (not a reasoning one), served until 2027-01-14.
OPENAI = "openai/gpt-4.1-mini-2025-04-14"
GOOGLE = "google/gemini-3.5-flash-lite"
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
    # One asking's calls are what these tests count: the second chance is the engine's
    # (tests/engine/test_second_chance.py).
    retry = RetrySettings(attempts=3, base_delay=1.0, max_delay=8.0, second_chance=False)
    settings.setdefault("retry", retry)
    settings.setdefault("quorum", 1)
    return Panel(
        jurors=tuple(j if isinstance(j, Juror) else Juror(model=j) for j in jurors), **settings
    )


async def judge(p: Panel, clock: FakeClock | None = None, case: Case = CASE) -> CaseVerdict:
    async with Jury(p, clock=clock or FakeClock(), rng=random.Random(7)) as jury:
        return await jury.judge(case)


async def run_cli(server: FakeProviderServer, tmp_path: Path, jury_toml: str) -> tuple[int, str]:
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        "\n".join(json.dumps(CASE.model_dump(mode="json", exclude_none=True)) for _ in range(1))
        + "\n"
    )
    jury_file = tmp_path / "jury.toml"
    jury_file.write_text(jury_toml)
    env = {**os.environ, **server.env(FAKE_KEY), "PYTHONPATH": str(ROOT)}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "jury",
        "run",
        str(cases),
        "--jury",
        str(jury_file),
        "-vv",
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await asyncio.wait_for(process.communicate(), timeout=30)
    return process.returncode or 0, output.decode()
