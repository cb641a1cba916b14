"""Judges for the plugin's example tests, which `tests/test_pytest_plugin.py` runs under
pytest-asyncio's strict and auto modes and under anyio. Nothing here calls a provider."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import jury
from jury.adapters import JudgeRequest, TransientError, register_provider
from jury.pytest_plugin import JuryFactory
from jury.testing import FakeClock, ScriptedModel

#: What the scripted judge holds true of an answer, by criterion.
RULES: dict[str, Callable[[str], bool]] = {
    "states the refund window": lambda answer: "30-day" in answer or "30 days" in answer,
    "promises an exception to the return policy": lambda answer: "exception" in answer,
}


def by_the_rules(request: JudgeRequest) -> dict[str, Any]:
    assert request.case is not None
    answer = request.case.answer or ""
    for criterion, holds in RULES.items():
        if criterion in request.system:
            return {"reason": f"scripted: {criterion}", "pass": holds(answer)}
    raise AssertionError("a criterion the scripted judge has no rule for")


register_provider("rules", lambda spec: ScriptedModel(by_the_rules, name=spec))
# A judge that is always down: the engine retries it with backoff, then gives up.
register_provider("down", lambda spec: ScriptedModel([TransientError("503")], name=spec))

CLOCK = FakeClock()


@pytest.fixture(scope="session")
def jury_factory() -> JuryFactory:
    # Every jury of the session sleeps on the fake clock: a retry's backoff takes no time.
    return lambda panel, **options: jury.Jury(panel, clock=CLOCK, **options)


@pytest.fixture
def clock() -> FakeClock:
    return CLOCK
