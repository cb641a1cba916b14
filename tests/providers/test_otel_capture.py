"""An agent instrumented with OpenTelemetry GenAI spans: its spans are captured in process for
each call, by a trace ID of the call's own, and read by the case loader's OTel reader into
that call's trace. Run in a fresh interpreter: the global tracer provider can be set once."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from extras import needs

ROOT = Path(__file__).parents[2]

SCRIPT = textwrap.dedent(
    """
    import asyncio, json

    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    import jury
    from jury.providers.agents._callable import CallableAgent

    provider = TracerProvider()
    exported = InMemorySpanExporter()  # the application's own telemetry
    provider.add_span_processor(SimpleSpanProcessor(exported))
    trace.set_tracer_provider(provider)
    tracer = trace.get_tracer("shop-agent")

    async def instrumented(case):
        order = case.id.upper()
        with tracer.start_as_current_span("chat shop-model") as span:
            span.set_attribute("gen_ai.operation.name", "chat")
            span.set_attribute("gen_ai.input.messages", json.dumps(
                [{"role": "user", "parts": [{"type": "text", "content": case.question}]}]))
            await asyncio.sleep(0)
            span.set_attribute("gen_ai.output.messages", json.dumps([{"role": "assistant",
                "parts": [{"type": "tool_call", "id": "c1", "name": "getOrderStatus",
                           "arguments": {"order_id": order}}]}]))
        with tracer.start_as_current_span("execute_tool getOrderStatus") as span:
            span.set_attribute("gen_ai.operation.name", "execute_tool")
            span.set_attribute("gen_ai.tool.name", "getOrderStatus")
            span.set_attribute("gen_ai.tool.call.id", "c1")
            span.set_attribute("gen_ai.tool.call.arguments", json.dumps({"order_id": order}))
            await asyncio.sleep(0)
            span.set_attribute("gen_ai.tool.call.result", f"{order} shipped")
        return f"{order} has shipped."

    async def main():
        agent = CallableAgent("test:instrumented", instrumented)
        cases = [jury.Case(id=f"ord-{n}", question=f"Where is ORD-{n}?") for n in range(50)]
        replies = await asyncio.gather(*(agent.respond(c) for c in cases))
        out = []
        for case, reply in zip(cases, replies):
            calls = reply.trace.tool_calls
            out.append([case.id.upper(), [c.name for c in calls],
                        [c.arguments for c in calls], [c.result for c in calls]])
        with tracer.start_as_current_span("outside any agent call"):
            pass
        print(json.dumps({"replies": out, "exported": len(exported.get_finished_spans())}))

    asyncio.run(main())
    """
)


# The application's own OpenTelemetry: the API (the otel extra) and the SDK (the test extra).
@needs("otel", "test")
def test_each_calls_genai_spans_become_its_own_trace_and_nothing_else() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert len(result["replies"]) == 50
    for order, names, arguments, results in result["replies"]:
        assert names == ["getOrderStatus"]
        assert arguments == [{"order_id": order}]
        assert results == [f"{order} shipped"]
    # The application's exporter still gets every span (two per call, and the one outside):
    # the capture adds none of its own and takes none away.
    assert result["exported"] == 50 * 2 + 1


def test_without_an_sdk_provider_nothing_is_captured_and_the_call_still_works() -> None:
    code = (
        "import asyncio, jury\n"
        "from jury.providers.agents._callable import CallableAgent\n"
        "import jury.trace\n"
        "async def a(case):\n"
        "    return 'fine'\n"
        "r = asyncio.run(CallableAgent('t:a', a).respond(jury.Case(id='x', question='q')))\n"
        "print(r.answer, r.trace, jury.trace._processor())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["fine", "None", "None"]
