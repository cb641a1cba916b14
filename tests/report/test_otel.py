"""Votes as OpenTelemetry gen_ai.evaluation.result events, read back from the SDK's in-memory
exporter."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from extras import needs

from conftest import case, panel_of, scores, scripted
from jury import Jury
from jury.adapters import TransientError
from jury.report._otel_events import EVENT, VerdictEvents

if TYPE_CHECKING:
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter

# The events go through opentelemetry-api (the otel extra), read back with the SDK's exporter.
pytestmark = needs("otel", "test")


def _events() -> tuple[VerdictEvents, InMemoryLogRecordExporter]:
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor

    exporter = InMemoryLogRecordExporter()  # type: ignore[no-untyped-call]
    provider = LoggerProvider()
    provider.add_log_record_processor(SimpleLogRecordProcessor(exporter))
    return VerdictEvents(logger_provider=provider), exporter


async def test_each_vote_and_metric_is_an_evaluation_event() -> None:
    good = scripted([scores(5, reason="all supported")], name="scripted/good")
    down = scripted([TransientError("503")], name="scripted/down")
    events, exporter = _events()
    async with Jury(panel_of(good, down, quorum=1, retry={"attempts": 1, "cool_down": 0})) as jury:
        verdict = await jury.judge(case("c1", category="policy"))
    events.emit(verdict)

    records: list[Any] = [data.log_record for data in exporter.get_finished_logs()]
    assert {r.event_name for r in records} == {EVENT}
    valid = [dict(r.attributes) for r in records if r.attributes["jury.juror"] == "scripted/good"]
    assert sorted(a["gen_ai.evaluation.name"] for a in valid) == sorted(
        ["relevance", "correctness", "faithfulness", "helpfulness", "hallucinationFree"]
    )
    first = valid[0]
    assert first["gen_ai.evaluation.score.value"] == 5
    assert first["gen_ai.evaluation.score.label"] == "pass"
    assert first["gen_ai.evaluation.explanation"] == "all supported"
    assert first["jury.case.id"] == "c1"
    assert first["jury.case.category"] == "policy"
    assert first["jury.case.verdict"] == "PASS"
    assert "error.type" not in first

    [unavailable] = [
        dict(r.attributes) for r in records if r.attributes["jury.juror"] == "scripted/down"
    ]
    assert unavailable["error.type"] == "unavailable"
    assert unavailable["gen_ai.evaluation.score.label"] == "unavailable"
    assert "gen_ai.evaluation.score.value" not in unavailable
    assert "503" in unavailable["gen_ai.evaluation.explanation"]
