"""Shared fixtures: scripted jurors and cases for engine tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import structlog

from jury import Case, Juror, Panel
from providers.scripted import ScriptedModel

METRICS = ("relevance", "correctness", "faithfulness", "helpfulness", "hallucinationFree")


def scores(
    value: int | dict[str, Any] = 5, reason: str = "because", **overrides: Any
) -> dict[str, Any]:
    """A five-metric reply: every metric `value`, with per-metric overrides."""
    base: dict[str, Any] = {"reason": reason}
    if isinstance(value, dict):
        base.update(value)
    else:
        base.update(dict.fromkeys(METRICS, value))
    base.update(overrides)
    return base


def case(case_id: str = "c1", **fields: Any) -> Case:
    data: dict[str, Any] = {
        "id": case_id,
        "category": "test",
        "question": "Can I return ORD-102?",
        "answer": "Yes, within 30 days.",
        "golden_answer": "Yes, ORD-102 is within the 30-day window.",
    }
    data.update(fields)
    return Case.model_validate(data)


def panel_of(*models: ScriptedModel, **settings: Any) -> Panel:
    return Panel(jurors=tuple(Juror(model=m) for m in models), **settings)


def scripted(replies: Any, name: str = "scripted/judge", **options: Any) -> ScriptedModel:
    return ScriptedModel(replies, name=name, **options)


@pytest.fixture
def make_case() -> Callable[..., Case]:
    return case


@pytest.fixture(autouse=True)
def _fresh_logging() -> Any:
    # The CLI configures structlog globally, bound to the stream it ran with (a capture that
    # closes after its test): give every test the library's default configuration again.
    yield
    structlog.reset_defaults()
