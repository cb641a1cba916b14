"""One canonical event per case, and no secret in any log line, vote or report."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator

import pytest
import structlog

from conftest import case, scores
from jury import Juror, Jury, Panel, summarize
from jury._logging import configure_logging
from jury._redact import redact
from jury.adapters import TransientError
from jury.testing import ScriptedModel

KEY = "sk-proj-TESTONLY0123456789abcdefghij"


@pytest.fixture
def log_lines(monkeypatch: pytest.MonkeyPatch) -> Iterator[io.StringIO]:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    stream = io.StringIO()
    configure_logging(1, json=True, stream=stream)
    yield stream
    structlog.reset_defaults()


async def test_one_event_per_case_and_no_key(log_lines: io.StringIO) -> None:
    leaky = ScriptedModel([TransientError(f"401-ish: bad key {KEY}")], name="scripted/leaky")
    fine = ScriptedModel([scores(5)], name="scripted/fine")
    panel = Panel(jurors=(Juror(model=leaky), Juror(model=fine)), quorum=1)
    from jury.testing import FakeClock

    async with Jury(panel, clock=FakeClock()) as jury:
        verdicts = [await jury.judge(case(f"c{i}")) for i in range(3)]
    events = [json.loads(line) for line in log_lines.getvalue().splitlines()]
    case_events = [e for e in events if e["event"] == "case"]
    assert [e["case"] for e in case_events] == ["c0", "c1", "c2"]
    assert all(e["verdict"] == "PASS" and e["valid"] == 1 for e in case_events)
    assert KEY not in log_lines.getvalue()
    for verdict in verdicts:
        assert KEY not in verdict.model_dump_json()
        assert "[redacted]" in (verdict.votes[0].error or verdict.votes[1].error or "")
    assert KEY not in summarize(verdicts).model_dump_json()


def test_key_shapes_are_redacted_even_when_unknown() -> None:
    text = (
        "keys: sk-ant-api03-abcdefghijklmnop AIzaSyA1234567890abcdefghijklmnopqrstuv "
        "AKIAABCDEFGHIJKLMNOP"
    )
    cleaned = redact(text)
    assert "sk-ant-api03" not in cleaned
    assert "AIzaSy" not in cleaned
    assert "AKIA" not in cleaned
    assert cleaned.count("[redacted]") == 3


async def test_an_unconfigured_library_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    # structlog's defaults print every event to stdout; the library must not use them.
    structlog.reset_defaults()
    model = ScriptedModel([scores(5)], name="scripted/fine")
    async with Jury(Panel(jurors=(Juror(model=model),)), checks=None) as jury:
        verdicts = [v async for v in jury.evaluate(case(f"c{i}") for i in range(200))]
    assert len(verdicts) == 200
    assert capsys.readouterr() == ("", "")


async def test_a_user_who_configures_structlog_gets_the_case_events() -> None:
    model = ScriptedModel([scores(5)], name="scripted/fine")
    async with Jury(Panel(jurors=(Juror(model=model),)), checks=None) as jury:
        with structlog.testing.capture_logs() as events:
            await jury.judge(case("c1"))
    assert [(e["event"], e["case"]) for e in events if e["event"] == "case"] == [("case", "c1")]
