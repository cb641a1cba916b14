"""Shared pieces of the batch tests: the three first-party jurors, cases, a batch run in this
process, and reading what the fake server was sent."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from jury import Case, CaseVerdict, Juror, Panel, RetrySettings, load_rubric
from jury.adapters import JudgeRequest, Message
from jury.batch._run import BatchRun, BatchRunResult
from jury.batch._store import BatchStore
from jury.panel._batch_settings import BatchSettings
from jury.testing import FakeClock, LoggedRequest
from served import judge

OPENAI = "openai/gpt-5.4-mini-2026-03-17"
ANTHROPIC = "anthropic/claude-haiku-5-5"
GOOGLE = "google/gemini-3.5-flash-lite"
#: One juror per provider, each with its batch API.
JURORS = (OPENAI, ANTHROPIC, GOOGLE)


def model_id(spec: str) -> str:
    return spec.partition("/")[2]


def script_jurors(server: Any) -> None:
    """Every juror answers deterministically from its request (`served.judge`)."""
    for spec in JURORS:
        server.script(model_id(spec), judge)


def make_cases(count: int, prefix: str = "b") -> list[Case]:
    """Cases whose every seventh answer is marked WRONG (the judges fail it)."""
    return [
        Case(
            id=f"{prefix}{n:05d}",
            question=f"Where is order ORD-{n}? [case {prefix}{n:05d}]",
            answer=f"ORD-{n} has shipped." if n % 7 else "WRONG: it is lost",
            golden_answer=f"ORD-{n} has shipped.",
        )
        for n in range(count)
    ]


def write_cases(path: Path, cases: Iterable[Case]) -> Path:
    path.write_text(
        "".join(
            json.dumps(case.model_dump(mode="json", exclude_none=True)) + "\n" for case in cases
        )
    )
    return path


def batch_panel(**settings: Any) -> Panel:
    settings.setdefault("retry", RetrySettings(attempts=2, base_delay=0.01, max_delay=0.05))
    batch = settings.pop("batch", BatchSettings(poll=0.01))
    return Panel(jurors=tuple(Juror(model=spec) for spec in JURORS), batch=batch, **settings)


def request_for(case: Case) -> JudgeRequest:
    """The request a five-metric juror is sent for `case`."""
    prompt = load_rubric("five-metric").prompts(case)[0]
    return JudgeRequest(
        system=prompt.system,
        messages=(Message("user", prompt.user),),
        schema=prompt.schema,
        schema_name=prompt.schema_name,
    )


async def run_batches(
    panel: Panel, cases: list[Case], run_dir: Path, **options: Any
) -> tuple[dict[str, CaseVerdict], BatchRunResult]:
    """A batch run in this process, judging `cases` into a dict of verdicts."""
    verdicts: dict[str, CaseVerdict] = {}
    submit_only = options.pop("submit_only", False)
    options.setdefault("checks", None)
    options.setdefault("clock", FakeClock())
    async with BatchRun(panel, BatchStore(run_dir), **options) as run:
        result = await run.run(
            lambda: [c for c in cases if c.id not in verdicts],
            lambda verdict: verdicts.__setitem__(verdict.case_id, verdict),
            submit_only=submit_only,
        )
    return verdicts, result


def inner_bodies(requests: Iterable[LoggedRequest]) -> list[str]:
    """Each request submitted inside a batch, as canonical JSON with its model."""
    return [json.dumps([r.model, r.body], sort_keys=True) for r in requests]
