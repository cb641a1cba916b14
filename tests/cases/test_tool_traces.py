"""Trace files as the tracing tools' own code writes them, read as conversations.

Each file is produced in the test by the tool itself, instrumenting the OpenAI SDK pointed at
the fake provider server on 127.0.0.1 (no network): OpenTelemetry's GenAI instrumentation
(``opentelemetry-instrumentation-openai-v2``, with ``opentelemetry-util-genai``'s tool spans)
exported by OpenTelemetry's own OTLP JSON file exporter, and MLflow's tracing (``mlflow.openai``
autologging and ``@mlflow.trace``) with a local store, saved by ``Trace.to_json``. Each runs in
a fresh interpreter: instrumenting patches the OpenAI SDK and sets process-wide providers.
The tools are in the `tool-files` extra (part of `dev`); without them the script fails and so
does the test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from extras import needs

from jury import Case
from jury.cases import CaseSource

MODEL = "gpt-4.1-mini-2025-04-14"

#: The agent both tools trace: two chat calls, a tool that answers, one that fails.
AGENT = textwrap.dedent(
    """
    import asyncio
    import openai
    from jury.testing import FakeProviderServer

    MODEL = "gpt-4.1-mini-2025-04-14"

    async def agent(tool, root):
        async with FakeProviderServer() as server:
            replies = iter(["Paris.", "About 2.1 million people."])
            server.script(MODEL, lambda request: next(replies))
            client = openai.AsyncOpenAI(base_url=server.openai_base_url, api_key="test-key")
            messages = [
                {"role": "system", "content": "Answer briefly."},
                {"role": "user", "content": "What is the capital of France?"},
            ]
            with root(messages) as span:
                first = await client.chat.completions.create(model=MODEL, messages=messages)
                messages += [
                    {"role": "assistant", "content": first.choices[0].message.content},
                    {"role": "user", "content": "How many people live there?"},
                ]
                tool("lookup_population", "call_1", {"city": "Paris"}, {"population": 2100000})
                try:
                    tool("lookup_weather", "call_2", {"city": "Paris"}, None)
                except TimeoutError:
                    pass
                second = await client.chat.completions.create(model=MODEL, messages=messages)
                return span, second.choices[0].message.content
    """
)

OTEL = AGENT + textwrap.dedent(
    """
    import contextlib, sys
    from opentelemetry.exporter.otlp.json.file import FileSpanExporter
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.util.genai.handler import get_telemetry_handler

    provider = TracerProvider(resource=Resource.create({"service.name": "capital-agent"}))
    provider.add_span_processor(SimpleSpanProcessor(FileSpanExporter(sys.argv[1])))
    OpenAIInstrumentor().instrument(tracer_provider=provider)
    handler = get_telemetry_handler(tracer_provider=provider)
    tracer = provider.get_tracer("capital-agent")

    def tool(name, call_id, arguments, result):
        with handler.tool(name, tool_call_id=call_id) as run:
            run.arguments = arguments
            if result is None:
                raise TimeoutError("weather service timed out")
            run.tool_result = result

    def root(messages):
        return tracer.start_as_current_span("invoke_agent capital-agent")

    asyncio.run(agent(tool, root))
    provider.shutdown()
    """
)

MLFLOW = AGENT + textwrap.dedent(
    """
    import pathlib, sys
    import mlflow

    out = pathlib.Path(sys.argv[1])
    mlflow.set_tracking_uri((out.parent / "mlruns").as_uri())
    mlflow.openai.autolog()

    def tool(name, call_id, arguments, result):
        @mlflow.trace(name=name, span_type="TOOL")
        def run(city):
            if result is None:
                raise TimeoutError("weather service timed out")
            return result
        return run(**arguments)

    def root(messages):
        span = mlflow.start_span(name="capital-agent", span_type="AGENT")
        return span

    span, reply = asyncio.run(agent(tool, root))
    mlflow.flush_trace_async_logging()
    mlflow.log_expectation(
        trace_id=span.trace_id, name="expected_response", value="About 2.1 million."
    )
    out.write_text(mlflow.get_trace(span.trace_id, flush=True).to_json(pretty=True), "utf-8")
    """
)


def produced(script: str, path: Path, **env: str) -> Path:
    """The file `script` writes at `path`, run in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", script, str(path)],
        check=False,
        cwd=path.parent,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=50,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return path


def conversation(case: Case) -> list[tuple[str, str | None]]:
    return [(t.role, t.content) for t in case.turns if not t.tool_calls]


def calls_of(case: Case) -> list[tuple[str, Any, Any, Any]]:
    return [(c.name, c.arguments, c.result, c.error) for c in case.trace.tool_calls]


SAID = [
    ("system", "Answer briefly."),
    ("user", "What is the capital of France?"),
    ("assistant", "Paris."),
    ("user", "How many people live there?"),
    ("assistant", "About 2.1 million people."),
]


# The agent calls the fake through the OpenAI SDK, instrumented by OpenTelemetry's own code.
@needs("tool-files", "openai", "test")
def test_otel_genai_spans_exported_a_span_a_line_load_as_one_conversation(
    tmp_path: Path,
) -> None:
    path = produced(
        OTEL,
        tmp_path / "spans.jsonl",
        # Content capture on span attributes, in the latest GenAI conventions
        # (the instrumentation's README: without them no message content is recorded).
        OTEL_SEMCONV_STABILITY_OPT_IN="gen_ai_latest_experimental",
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="span_only",
    )
    lines = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    spans = [
        span
        for line in lines
        for resource in line["resourceSpans"]
        for scope in resource["scopeSpans"]
        for span in scope["spans"]
    ]
    # The exporter wrote each span on its own line as it ended: one trace over several lines.
    assert len(lines) > 1
    assert (len(spans), len({s["traceId"] for s in spans})) == (5, 1)
    source = CaseSource(path)
    source.validate()
    (case,) = list(source)
    trace_id = spans[0]["traceId"]
    assert case.id == trace_id
    assert conversation(case) == SAID
    assert (case.question, case.answer) == ("How many people live there?", SAID[-1][1])
    # The tool spans' arguments and results (JSON text in the attributes) decoded; the run
    # whose span ended in ERROR carries its status message.
    assert calls_of(case) == [
        ("lookup_population", {"city": "Paris"}, '{"population": 2100000}', None),
        ("lookup_weather", {"city": "Paris"}, None, "weather service timed out"),
    ]
    assert case.metadata == {"service": "capital-agent", "trace_id": trace_id}
    assert f"{path}: read 1 of 1 as OpenTelemetry traces" in source.notices


@needs("tool-files", "openai")
def test_an_mlflow_trace_saved_by_to_json_loads_with_its_expectation_and_info(
    tmp_path: Path,
) -> None:
    # The filesystem store is in maintenance mode, refused unless allowed (MLflow's own
    # message); the test needs no database.
    path = produced(MLFLOW, tmp_path / "trace.json", MLFLOW_ALLOW_FILE_STORE="true")
    trace: dict[str, Any] = json.loads(path.read_text("utf-8"))
    info = trace["info"]
    (failed,) = [s for s in trace["data"]["spans"] if s["name"] == "lookup_weather"]
    source = CaseSource(path)
    source.validate()
    (case,) = list(source)
    assert case.id == info["trace_id"]
    assert conversation(case) == SAID
    assert calls_of(case) == [
        ("lookup_population", {"city": "Paris"}, '{"population": 2100000}', None),
        ("lookup_weather", {"city": "Paris"}, None, failed["status"]["message"]),
    ]
    # The failed span's error is its status message (MLflow writes the exception there).
    assert "weather service timed out" in failed["status"]["message"]
    assert case.golden_answer == "About 2.1 million."
    assert case.metadata["assessments"] == info["assessments"]
    assert case.metadata["tags"] == info["tags"]
    # The trace's own record of itself is kept, not dropped: its state, timing, and
    # metadata (token usage, source, schema version).
    for key in ("state", "request_time", "execution_duration_ms", "trace_metadata"):
        assert case.metadata[key] == info[key], key
    assert case.metadata["trace_id"] == info["trace_id"]
    assert f"{path}: read 1 of 1 as MLflow traces" in source.notices


def test_interleaved_traces_over_lines_are_joined_per_trace_and_a_case_line_stays_whole(
    tmp_path: Path,
) -> None:
    traces = Path(__file__).parents[1] / "data" / "traces"
    export = json.loads((traces / "otel_export.json").read_text("utf-8"))
    booking, bianchi = (r["scopeSpans"][0]["spans"] for r in export["resourceSpans"])
    resources = [r["resource"] for r in export["resourceSpans"]]

    def line(*parts: tuple[int, list[dict[str, Any]]]) -> str:
        spans = [
            {"resource": resources[i], "scopeSpans": [{"scope": {"name": "s"}, "spans": s}]}
            for i, s in parts
        ]
        return json.dumps({"resourceSpans": spans}) + "\n"

    # A batch exporter's lines: the ends of both traces on one line, the rest after.
    own = {"id": "mine", "golden_answer": "Booked.", **json.loads(line((1, bianchi)))}
    path = tmp_path / "batches.jsonl"
    path.write_text(
        line((0, booking[:2]), (1, bianchi[:1]))
        + line((0, booking[2:]))
        + line((1, bianchi[1:]))
        + json.dumps(own)
        + "\n",
        "utf-8",
    )
    source = CaseSource(path)
    source.validate()
    first, second, mine = list(source)
    expected = CaseSource(traces / "otel_export.json")
    assert [first, second] == list(expected)
    # A line with keys of its own beside the export is a case of its own, not joined.
    assert (mine.id, mine.golden_answer) == ("mine", "Booked.")
    assert mine.turns == second.turns
