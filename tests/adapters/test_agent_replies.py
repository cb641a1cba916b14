"""What an agent returns is read by `jury.adapters.reply_from`, with the case loader's own
readers: every shape a cases file may hold means the same thing when an agent returns it."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from jury import Case
from jury.adapters import AgentError, AgentReply, Usage, reply_from

TRACES = Path(__file__).parents[1] / "data" / "traces"


def _case(**fields: Any) -> Case:
    return Case.model_validate({"id": "c1", "question": "Where is ORD-101?", **fields})


def test_a_string_is_the_answer_with_no_trace() -> None:
    reply = reply_from("It has shipped.", _case())
    assert reply.answer == "It has shipped."
    assert reply.trace is None


def test_an_agent_reply_is_taken_as_it_is() -> None:
    given = AgentReply(answer="Shipped.", cost=0.25)
    assert reply_from(given, _case()) is given


def test_the_seed_articles_flat_reply_gives_the_answer_and_its_trace() -> None:
    value = {
        "answer": "ORD-101 has shipped.",
        "retrievedSources": ["orders.md"],
        "toolCalls": [{"name": "getOrderStatus", "argument": "ORD-101", "result": "Shipped"}],
        "context": "ORD-101 shipped yesterday.",
    }
    kept = copy.deepcopy(value)
    reply = reply_from(value, _case())
    assert reply.answer == "ORD-101 has shipped."
    assert reply.trace is not None
    assert reply.trace.retrieved_sources == ("orders.md",)
    assert reply.trace.tool_calls[0].arguments == "ORD-101"
    assert reply.trace.tool_calls[0].result == "Shipped"
    assert reply.trace.context == ("ORD-101 shipped yesterday.",)
    assert value == kept  # the agent's object is not changed


def test_a_trace_nested_under_trace_reads_as_the_flat_one() -> None:
    flat = reply_from({"answer": "A", "toolCalls": [{"name": "t"}]}, _case())
    nested = reply_from({"answer": "A", "trace": {"tool_calls": [{"name": "t"}]}}, _case())
    assert flat.trace == nested.trace


@pytest.mark.parametrize(
    "messages",
    [
        # OpenAI Chat Completions: a tool call and its result, then the reply.
        [
            {"role": "user", "content": "Where is ORD-101?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "getOrderStatus", "arguments": '{"id": "ORD-101"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "Shipped"},
            {"role": "assistant", "content": "ORD-101 has shipped."},
        ],
        # Anthropic Messages: tool_use and tool_result blocks.
        [
            {"role": "user", "content": "Where is ORD-101?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "tu_1", "name": "getOrderStatus",
                     "input": {"id": "ORD-101"}},
                ],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "Shipped"}],
            },
            {"role": "assistant", "content": [{"type": "text", "text": "ORD-101 has shipped."}]},
        ],
        # Gemini contents: functionCall and functionResponse parts.
        [
            {"role": "user", "parts": [{"text": "Where is ORD-101?"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "getOrderStatus",
                                                          "args": {"id": "ORD-101"}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "getOrderStatus",
                                                             "response": {"output": "Shipped"}}}]},
            {"role": "model", "parts": [{"text": "ORD-101 has shipped."}]},
        ],
    ],
    ids=["openai", "anthropic", "gemini"],
)  # fmt: skip
def test_messages_in_each_providers_shape_give_the_last_reply_and_the_tool_calls(
    messages: list[dict[str, Any]],
) -> None:
    for value in ({"messages": messages}, messages):
        reply = reply_from(value, _case())
        assert reply.answer == "ORD-101 has shipped."
        assert reply.trace is not None
        assert reply.trace.tool_names == ("getOrderStatus",)
        assert reply.trace.tool_calls[0].arguments == {"id": "ORD-101"}
        assert reply.trace.tool_calls[0].result == "Shipped"


def test_a_conversation_case_gets_only_the_turns_the_agent_added() -> None:
    case = _case(
        turns=[
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello, how can I help?"},
            {"role": "user", "content": "Where is ORD-101?"},
        ]
    )
    history = [{"role": t.role, "content": t.content} for t in case.turns]
    reply = reply_from({"messages": [*history, {"role": "assistant", "content": "Shipped."}]}, case)
    assert reply.answer == "Shipped."
    assert [(t.role, t.content) for t in reply.turns] == [("assistant", "Shipped.")]


def test_an_mlflow_trace_is_read_by_the_mlflow_reader() -> None:
    trace = json.loads((TRACES / "mlflow_trace.json").read_text())
    reply = reply_from(trace, _case())
    assert reply.answer == "ORD-101 has shipped with ParcelCo."
    assert reply.trace is not None
    assert reply.trace.tool_names == ("get_order_status",)


def _one_otel_trace() -> dict[str, Any]:
    export = json.loads((TRACES / "otel_export.json").read_text())
    first = None
    for resource in export["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            first = first or scope["spans"][0]["traceId"]
            scope["spans"] = [s for s in scope["spans"] if s["traceId"] == first]
    return dict(export)


def test_an_opentelemetry_export_of_one_trace_is_read_by_the_otel_reader() -> None:
    reply = reply_from(_one_otel_trace(), _case())
    assert reply.answer.strip()
    assert reply.trace is not None
    assert reply.trace.tool_calls  # the trace's tool runs became the reply's tool calls


def test_an_opentelemetry_export_of_two_traces_is_refused() -> None:
    export = json.loads((TRACES / "otel_export.json").read_text())
    with pytest.raises(AgentError, match="2 traces"):
        reply_from(export, _case())


def test_a_field_map_finds_the_answer_in_a_shape_of_the_agents_own() -> None:
    value = {"data": {"reply": "Shipped.", "docs": ["orders.md"]}}
    fields = {"answer": "data.reply", "trace.retrieved_sources": "data.docs"}
    reply = reply_from(value, _case(), fields)
    assert reply.answer == "Shipped."
    assert reply.trace is not None
    assert reply.trace.retrieved_sources == ("orders.md",)
    assert value == {"data": {"reply": "Shipped.", "docs": ["orders.md"]}}


def test_a_field_map_path_the_reply_lacks_is_named() -> None:
    with pytest.raises(AgentError, match=r"answer=data\.text: the reply has no such path"):
        reply_from({"data": {"reply": "x"}}, _case(), {"answer": "data.text"})


@pytest.mark.parametrize("value", ["", "   ", {"answer": ""}, {"toolCalls": []}])
def test_an_empty_answer_raises(value: object) -> None:
    with pytest.raises(AgentError, match="answer is empty"):
        reply_from(value, _case())


def test_a_misspelt_answer_key_is_named_in_the_error() -> None:
    with pytest.raises(AgentError, match="anwser, which are no case field"):
        reply_from({"anwser": "Shipped."}, _case())


def test_keys_that_are_no_case_field_are_kept_in_the_metadata() -> None:
    reply = reply_from({"answer": "Shipped.", "model_version": "v7"}, _case())
    assert reply.metadata == {"model_version": "v7"}


def test_usage_cost_and_latency_are_read_from_the_reply() -> None:
    value = {"answer": "A", "usage": {"prompt_tokens": 12, "completion_tokens": 3},
             "cost": 0.002, "latency": 1.5}  # fmt: skip
    reply = reply_from(value, _case())
    assert reply.usage == Usage(input_tokens=12, output_tokens=3)
    assert (reply.cost, reply.latency) == (0.002, 1.5)


@pytest.mark.parametrize(
    ("value", "said"),
    [({"answer": "A", "cost": -1}, "cost"), ({"answer": "A", "usage": "many"}, "usage")],
)
def test_a_bad_cost_or_usage_is_named(value: object, said: str) -> None:
    with pytest.raises(AgentError, match=said):
        reply_from(value, _case())


def test_a_reply_for_another_case_is_refused() -> None:
    with pytest.raises(AgentError, match="for case 'c2', not 'c1'"):
        reply_from({"id": "c2", "answer": "A"}, _case())
    assert reply_from({"id": "c1", "answer": "A"}, _case()).answer == "A"


def test_a_value_of_another_type_is_refused_with_its_type() -> None:
    with pytest.raises(AgentError, match="returned int"):
        reply_from(42, _case())
