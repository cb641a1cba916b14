"""What OpenAI says of a model's shutdown: ``GET /v1/models/{model}`` gives its
``shutdown_date`` when one is announced (openai SDK 3.60 types/model.py: "The date when the
model will shut down, or null if not announced"). Read once, before a model's first call
(`OpenAIJudge.prepare`), so that a date the project's table does not know yet is said in the
run's notes, its manifest and `jury doctor`, never missed."""

from __future__ import annotations

import json
import os
from datetime import UTC, date, datetime
from typing import Any

from jury.adapters import ModelStatus

from ._lifecycle import openai
from ._openai_sdk import OpenAISdkTransport
from ._wire import DirectTransport, WireModel

__all__ = ["SECONDS", "announced", "said", "shutdown_said"]

#: The most a run waits for the answer: the call itself says what is wrong when none comes.
SECONDS = 10.0


async def announced(base_url: str, headers: dict[str, str], model: str) -> date | None:
    """The ``shutdown_date`` OpenAI gives `model`, or None (none announced, no answer, or an
    answer that is not a date)."""
    import aiohttp

    timeout = aiohttp.ClientTimeout(total=SECONDS)
    try:
        async with (
            aiohttp.ClientSession(timeout=timeout) as session,
            session.get(f"{base_url}/models/{model}", headers=headers) as response,
        ):
            if response.status != 200:
                return None
            body: Any = json.loads(await response.read())
    except (aiohttp.ClientError, TimeoutError, ValueError, UnicodeDecodeError):
        return None
    found = body.get("shutdown_date") if isinstance(body, dict) else None
    try:
        return date.fromisoformat(str(found)[:10]) if found else None
    except ValueError:
        return None


def said(name: str, model: str, shutdown: date, known: ModelStatus | None, day: date) -> str:
    """The line a run notes: the date, whether it has passed, and what the table said."""
    when = "shut down on" if shutdown <= day else "shuts down on"
    line = (
        f"{name}: OpenAI says {model} {when} {shutdown.isoformat()} (GET /v1/models shutdown_date)"
    )
    if known is None or known.retires is None:
        return f"{line}; the lifecycle table announced no date"
    if known.retires != shutdown:
        return f"{line}; the lifecycle table said {known.retires.isoformat()}"
    return line


async def shutdown_said(judge: WireModel) -> tuple[str, ...]:
    """What OpenAI says of `judge`'s model's shutdown, as a line for the run (none when no
    date is announced). Asked of OpenAI itself only, through the adapter's own transports (a
    transport given as an object is a test's or a caller's, and is never bypassed)."""
    wire = judge.wire
    own = isinstance(judge.transport, (DirectTransport, OpenAISdkTransport))
    if wire.provider != "openai" or not own:
        return ()
    shutdown = await announced(getattr(wire, "base_url", ""), wire.headers(), judge.model)
    if shutdown is None:
        return ()
    day = _today()
    return (said(judge.name, judge.model, shutdown, openai(judge.model, day), day),)


def _today() -> date:
    """The day the lifecycle checks use (``JURY_TODAY``, else today in UTC), as
    `jury.panel` reads it; a bad value there is refused when the panel loads."""
    try:
        return date.fromisoformat(os.environ.get("JURY_TODAY", "").strip())
    except ValueError:
        return datetime.now(UTC).date()
