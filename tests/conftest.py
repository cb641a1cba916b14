"""Shared fixtures: scripted jurors and cases for engine tests; the fake provider server for
adapter tests; the ``--live`` option for the opt-in tests against real APIs."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import structlog
from extras import skip_missing

from jury import Case, Juror, Panel
from jury.testing import FakeProviderServer, ScriptedModel

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


#: A key that looks like one, so that a leak of it anywhere would be caught by the tests.
FAKE_KEY = "sk-test-0123456789abcdefSECRET"
#: The credential and version headers every protocol of the strict fake asks for, for tests
#: that post to it by hand (one set serves all three: each API reads its own).
FAKE_HEADERS = {
    "authorization": f"Bearer {FAKE_KEY}",
    "x-goog-api-key": FAKE_KEY,
    "anthropic-version": "2026-10-21",
}

#: Every credential and base-URL variable an adapter or the default panel may read.
PROVIDER_VARIABLES = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_AUTH_TOKEN",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "GOOGLE_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_GEMINI_BASE_URL",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "OLLAMA_BASE_URL",
    "VLLM_BASE_URL",
    "JURY_TRANSPORT",
)


@pytest.fixture(autouse=True)
def _no_real_provider(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    # A developer's real keys must never reach a test (with keys, the default panel is made
    # of real judges): only the opt-in live tests see them. Subprocesses inherit the cleaning.
    if request.node.get_closest_marker("live") is None:
        for variable in PROVIDER_VARIABLES:
            monkeypatch.delenv(variable, raising=False)


#: The day the suite judges model lifecycles on (`JURY_TODAY`): the dates the providers
#: announce do not change a test's outcome as the calendar moves.
TODAY = "2026-11-30"


@pytest.fixture(autouse=True)
def _lifecycle_day(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JURY_TODAY", TODAY)


@pytest.fixture
def offline_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run from the command line as a new user makes it: in a folder of its own (records
    and the call cache out of the repository), with no provider key (the offline panel)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JURY_CACHE_DIR", raising=False)
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
async def server(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeProviderServer]:
    async with FakeProviderServer() as fake:
        for name, value in fake.env(FAKE_KEY).items():
            monkeypatch.setenv(name, value)
        yield fake


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--live",
        action="store_true",
        default=False,
        help="also run the provider contract against the real APIs (needs their keys; costs "
        "money; never in CI)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "live: calls a real provider API (needs --live and a key)")
    config.addinivalue_line(
        "markers",
        "extra(*names): needs these optional extras of pyproject.toml; skipped, naming them, "
        "when one is not installed (tests/extras.py)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip_missing(items)  # a test whose extra is not installed is skipped, naming it
    if config.getoption("--live"):
        return
    skip = pytest.mark.skip(reason="calls a real provider API: run with --live and its key set")
    for item in items:
        if "live" in item.keywords:
            item.add_marker(skip)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    # Screenshots a test took (`record_property("screenshot-...", path)`) are listed at the
    # end of the run, for a person to look at; they are also in a JUnit file's properties.
    shots = [
        (report.nodeid, name, value)
        for reports in terminalreporter.stats.values()
        for report in reports
        if getattr(report, "when", None) == "call"
        for name, value in getattr(report, "user_properties", ())
        if name.startswith("screenshot")
    ]
    if shots:
        terminalreporter.write_sep("-", "screenshots")
        for nodeid, name, value in shots:
            terminalreporter.write_line(f"{nodeid} {name}: {value}")
