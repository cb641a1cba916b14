"""Agent traces load as they are, as conversations: OpenTelemetry GenAI spans (OTLP JSON) and
MLflow traces become a case's turns, and the trace checks apply over every step."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jury import Case, CaseFileError, CheckOutcome, Verdict, load_cases
from jury.checks import CheckSuite
from jury.cli import main
from jury.runs._records import read_verdicts

TRACES = Path(__file__).parents[1] / "data" / "traces"


def calls_of(case: Case) -> list[tuple[str, Any, Any, Any]]:
    return [(c.name, c.arguments, c.result, c.error) for c in case.trace.tool_calls]


def failed(case: Case) -> dict[str, str]:
    results = CheckSuite.from_settings()(case)
    assert isinstance(results, tuple)
    return {r.name: r.reason for r in results if r.outcome.value == "fail"}


def otel_export() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((TRACES / "otel_export.json").read_text())
    return loaded


def one_trace(index: int) -> dict[str, Any]:
    """The export with only its `index`th trace (its resource's spans)."""
    document = otel_export()
    return {"resourceSpans": [document["resourceSpans"][index]]}


# --- OpenTelemetry ------------------------------------------------------------------------


def test_an_otlp_export_loads_one_conversation_per_trace() -> None:
    booking, bianchi = load_cases(TRACES / "otel_export.json")
    assert booking.id == "5b8efff798038103d269b633813fc60c"
    assert [t.role for t in booking.turns] == [
        "system",
        "user",
        "assistant",
        "assistant",
        "assistant",
    ]
    assert booking.question == "Book a table for 4 on Friday 14 March at 19:30, name Rossi."
    assert booking.answer == "Your table for 4 on Friday 14 March at 19:30 is booked under Rossi!"
    # Each tool call carries its arguments (structured or JSON text) and its result; the run
    # whose span ended in ERROR carries the span's error, whatever the model was told.
    assert calls_of(booking) == [
        (
            "check_availability",
            {"date": "2025-03-14", "time": "19:30", "party": 4},
            '{"available": true, "table": 12}',
            None,
        ),
        (
            "book_table",
            {"date": "2025-03-14", "time": "19:30", "party": 4, "name": "Rossi"},
            None,
            "BookingService timed out",
        ),
    ]
    assert booking.metadata == {
        "service": "trattoria-agent",
        "agent": "booking-agent",
        "conversation_id": "conv_5j66UpCpwteGg4YSxUnt7lPY",
        "trace_id": "5b8efff798038103d269b633813fc60c",
    }
    # OpenLLMetry's flattened gen_ai.prompt.N / gen_ai.completion.N attributes.
    assert [c[0] for c in calls_of(bianchi)] == ["book_table", "check_availability"]
    assert calls_of(bianchi)[0][2] == '{"booking_id": "BK-7730"}'
    assert bianchi.answer == "Booked: table for 2 tomorrow at 20:00, reference BK-7730."


def test_the_trace_checks_apply_over_every_step_of_an_otlp_trace() -> None:
    booking = Case.model_validate(
        {
            "id": "b",
            "turns": one_trace(0),
            "expected_tool_order": ["check_availability", "book_table"],
        }
    )
    problems = failed(booking)
    assert set(problems) == {"tools_healthy"}
    assert "book_table: BookingService timed out" in problems["tools_healthy"]
    wrong = Case.model_validate(
        {
            "id": "w",
            "turns": one_trace(1),
            "expected_tool": "check_availability",
            "expected_tool_order": ["check_availability", "book_table"],
        }
    )
    # Called at some step (tool_choice passes), but after the booking (tool_order fails).
    assert set(failed(wrong)) == {"tool_order"}


def test_an_export_written_one_batch_a_line_loads_to_the_same_cases(tmp_path: Path) -> None:
    # The collector's file exporter writes an export request per line.
    lines = tmp_path / "spans.jsonl"
    lines.write_text("".join(json.dumps(one_trace(i)) + "\n" for i in (0, 1)))
    assert load_cases(lines) == load_cases(TRACES / "otel_export.json")


def test_span_status_error_without_a_message_takes_the_exception_event() -> None:
    document = one_trace(0)
    tool = document["resourceSpans"][0]["scopeSpans"][0]["spans"][4]
    tool["status"] = {"code": "STATUS_CODE_ERROR"}
    tool["events"][0]["attributes"][1]["value"] = {"stringValue": "no table service"}
    case = Case.model_validate({"id": "x", "turns": document})
    assert calls_of(case)[1][3] == "no table service"


def test_an_export_without_genai_content_is_refused_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "plain.jsonl"
    plain = {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "ab", "name": "GET /"}]}]}]}
    path.write_text(json.dumps({"id": "a", "question": "q"}) + "\n" + json.dumps(plain) + "\n")
    with pytest.raises(CaseFileError, match=r"line 2: .*no GenAI span.*content capture"):
        load_cases(path)


def test_a_case_turns_take_one_trace_not_an_export_of_several() -> None:
    with pytest.raises(ValueError, match="an OpenTelemetry export of 2 traces: give one"):
        Case.model_validate({"id": "x", "turns": otel_export()})


# --- MLflow -------------------------------------------------------------------------------


def test_an_mlflow_trace_loads_with_its_expected_response() -> None:
    (case,) = load_cases(TRACES / "mlflow_trace.json")
    assert case.id == "tr-7f1c2a9e4b3d4c5e8f6a0b1c2d3e4f50"
    assert [t.role for t in case.turns] == ["system", "user", "assistant", "assistant"]
    assert case.answer == "ORD-101 has shipped with ParcelCo."
    assert case.golden_answer == "ORD-101 has been shipped (carrier ParcelCo)."
    assert calls_of(case) == [
        (
            "get_order_status",
            {"order_id": "ORD-101"},
            '{"status": "shipped", "carrier": "ParcelCo"}',
            None,
        )
    ]
    assert case.metadata["tags"]["team"] == "support"
    assert not failed(case)


def test_mlflow_tool_spans_give_the_tool_runs_when_no_chat_messages_were_recorded() -> None:
    trace = json.loads((TRACES / "mlflow_trace.json").read_text())
    for span in trace["data"]["spans"]:
        span["attributes"].pop("mlflow.chat.messages", None)
    trace["data"]["spans"][2]["status"] = {"code": "ERROR", "message": "order service down"}
    case = Case.model_validate({"id": "m", "turns": trace, "expected_tool": "get_order_status"})
    # The chat spans' inputs and outputs (an OpenAI completion) are read instead.
    assert case.answer == "ORD-101 has shipped with ParcelCo."
    assert calls_of(case)[0][0] == "get_order_status"
    assert set(failed(case)) == {"tools_healthy"}


# --- cases that carry a trace as their turns, with expectations ---------------------------


def test_traces_in_a_case_file_fail_exactly_the_checks_they_were_built_to() -> None:
    cases = load_cases(TRACES / "cases.jsonl")
    assert len(cases) == 3
    for case in cases:
        assert set(failed(case)) == set(case.metadata["fails_on"]), case.id
    no_content = next(c for c in cases if c.id == "no-content-in-order")
    # Recorded without message content: the tool runs alone, in order, results unknown.
    assert calls_of(no_content) == [
        ("check_availability", None, None, None),
        ("book_table", None, None, None),
    ]


def test_a_trace_file_runs_offline_and_says_the_shape_it_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    code = main(["run", str(TRACES / "otel_export.json"), "--out", str(out), "--progress", "none"])
    err = capsys.readouterr().err
    assert code == 1, err
    assert "read 2 of 2 as OpenTelemetry traces" in err
    verdicts = {v.case_id: v for v in read_verdicts(out)}
    booking = verdicts["5b8efff798038103d269b633813fc60c"]
    failed_checks = {c.name for c in booking.checks if c.outcome is CheckOutcome.FAIL}
    # The booking whose tool failed is failed by the check, and no judge is paid for it.
    assert booking.verdict is Verdict.FAIL
    assert "tools_healthy" in failed_checks
    assert not booking.votes
