"""Conversations: every recorded shape loads into turns, a conversation gives its case an
answer, a question and a trace, and the checks and the rubric see all of it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from extras import needs

from jury import Case, CaseFileError, Turn, load_cases
from jury.checks import CheckSuite

if TYPE_CHECKING:
    # The SDKs' own message types check the literal messages below (mypy runs with every
    # extra); at run time they are plain lists of dicts.
    from anthropic.types import ContentBlockParam, MessageParam
    from openai.types.chat import ChatCompletionMessageParam
    from openai.types.responses import ResponseInputItemParam

ORDER = {"order_id": "ORD-102"}


def booking(turns: list[Any], **fields: Any) -> Case:
    return Case.model_validate({"id": "c", "turns": turns, **fields})


def calls_of(case: Case) -> list[tuple[str, Any, Any, Any]]:
    return [(c.name, c.arguments, c.result, c.error) for c in case.trace.tool_calls]


# --- each shape, as its SDK types it ------------------------------------------------------


def test_openai_chat_messages_load_with_tool_results_joined_by_id() -> None:
    messages: list[ChatCompletionMessageParam] = [
        {"role": "developer", "content": "You are ShopNest's agent."},
        {"role": "user", "content": [{"type": "text", "text": "Where is ORD-102?"}]},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_a",
                    "type": "function",
                    "function": {"name": "getOrderStatus", "arguments": json.dumps(ORDER)},
                },
                {
                    "id": "call_b",
                    "type": "function",
                    "function": {"name": "getInvoice", "arguments": json.dumps(ORDER)},
                },
            ],
        },
        # Results may come in any order: each is joined to its call by ID.
        {"role": "tool", "tool_call_id": "call_b", "content": "INV-9"},
        {"role": "tool", "tool_call_id": "call_a", "content": "Shipped"},
        {"role": "assistant", "content": "ORD-102 has shipped; the invoice is INV-9."},
    ]
    case = booking(list(messages))
    assert [t.role for t in case.turns] == ["system", "user", "assistant", "assistant"]
    assert calls_of(case) == [
        ("getOrderStatus", ORDER, "Shipped", None),
        ("getInvoice", ORDER, "INV-9", None),
    ]
    assert case.answer == "ORD-102 has shipped; the invoice is INV-9."
    assert case.question == "Where is ORD-102?"


def test_openai_responses_items_load() -> None:
    items: list[ResponseInputItemParam] = [
        {"role": "user", "content": "Where is ORD-102?"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {
            "type": "function_call",
            "call_id": "fc_1",
            "name": "getOrderStatus",
            "arguments": json.dumps(ORDER),
        },
        {"type": "function_call_output", "call_id": "fc_1", "output": "Shipped"},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "It has shipped.", "annotations": []}],
            "id": "msg_1",
            "status": "completed",
        },
    ]
    case = booking(list(items))
    assert calls_of(case) == [("getOrderStatus", ORDER, "Shipped", None)]
    assert case.answer == "It has shipped."


def test_anthropic_messages_load_with_an_error_marked_by_is_error() -> None:
    said: list[ContentBlockParam] = [
        {"type": "thinking", "thinking": "The user wants...", "signature": "sig"},
        {"type": "text", "text": "Cancelling it now."},
        {"type": "tool_use", "id": "toolu_1", "name": "cancelOrder", "input": dict(ORDER)},
    ]
    messages: list[MessageParam] = [
        {"role": "user", "content": "Cancel ORD-102."},
        {"role": "assistant", "content": said},
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "content": [{"type": "text", "text": "order already shipped"}],
                    "is_error": True,
                }
            ],
        },
        {"role": "assistant", "content": "Done, ORD-102 is cancelled."},
    ]
    case = booking(list(messages))
    # The thinking is not something the agent said; the tool's failure is an error.
    assert case.turns[1] == Turn(
        role="assistant", content="Cancelling it now.", tool_calls=case.turns[1].tool_calls
    )
    assert calls_of(case) == [("cancelOrder", ORDER, None, "order already shipped")]
    assert [t.role for t in case.turns] == ["user", "assistant", "assistant"]


@needs("google")
@pytest.mark.parametrize("by_alias", [True, False], ids=["rest", "python-sdk"])
def test_gemini_contents_load_with_output_and_error_responses(by_alias: bool) -> None:
    from google.genai import types as genai

    contents = [
        genai.Content(role="user", parts=[genai.Part(text="Where are ORD-1 and ORD-2?")]),
        genai.Content(
            role="model",
            parts=[
                genai.Part(text="thinking...", thought=True),
                genai.Part(function_call=genai.FunctionCall(name="status", args={"id": "ORD-1"})),
                genai.Part(function_call=genai.FunctionCall(name="status", args={"id": "ORD-2"})),
            ],
        ),
        genai.Content(
            role="user",
            parts=[
                genai.Part.from_function_response(name="status", response={"output": "Shipped"}),
                genai.Part.from_function_response(name="status", response={"error": "timeout"}),
            ],
        ),
        genai.Content(role="model", parts=[genai.Part(text="ORD-1 has shipped.")]),
    ]
    dumped = [c.model_dump(mode="json", exclude_none=True, by_alias=by_alias) for c in contents]
    case = booking(dumped)
    # Without IDs, results answer the calls of their name in order.
    assert calls_of(case) == [
        ("status", {"id": "ORD-1"}, "Shipped", None),
        ("status", {"id": "ORD-2"}, None, "timeout"),
    ]
    assert case.answer == "ORD-1 has shipped."


def test_langchain_messages_load_flat_and_as_messages_to_dict_writes_them() -> None:
    # https://python.langchain.com/api_reference/core/messages.html (messages_to_dict)
    flat: list[dict[str, Any]] = [
        {"type": "human", "content": "Where is ORD-102?"},
        {
            "type": "ai",
            "content": "",
            "tool_calls": [
                {"name": "getOrderStatus", "args": ORDER, "id": "c1", "type": "tool_call"}
            ],
        },
        {"type": "tool", "content": "boom", "tool_call_id": "c1", "status": "error"},
        {"type": "ai", "content": "Sorry, I could not look it up."},
    ]
    nested = [
        {"type": m["type"], "data": {k: v for k, v in m.items() if k != "type"}} for m in flat
    ]
    for messages in (flat, nested):
        case = booking(messages)
        assert calls_of(case) == [("getOrderStatus", ORDER, None, "boom")]
        assert case.answer == "Sorry, I could not look it up."


def test_deepeval_turns_load_with_their_tools_and_retrieval_context() -> None:
    # https://deepeval.com/docs/evaluation-multiturn-test-cases (Turn, ToolCall)
    turns = [
        {"role": "user", "content": "Can I return ORD-102?"},
        {
            "role": "assistant",
            "content": "Yes, within 30 days of delivery.",
            "retrieval_context": ["Returns are accepted within 30 days of delivery."],
            "tools_called": [
                {"name": "getOrderStatus", "input_parameters": ORDER, "output": "Delivered"}
            ],
        },
    ]
    case = booking(turns)
    assert calls_of(case) == [("getOrderStatus", ORDER, "Delivered", None)]
    assert case.trace.context == ("Returns are accepted within 30 days of delivery.",)


def test_a_conversation_ending_with_the_user_is_judged_on_the_answer_given() -> None:
    case = booking(
        [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello!"},
            {"role": "user", "content": "Can I return ORD-102?"},
        ],
        answer="Yes.",
    )
    assert case.answer == "Yes."
    assert case.history == case.turns  # every turn comes before the answer
    assert case.replies == ("Hello!", "Yes.")
    assert case.question == "Can I return ORD-102?"


def test_a_conversation_ending_with_the_user_without_an_answer_has_none_yet() -> None:
    # A dataset's prompt (an OpenAI evals or Inspect sample): it loads, as a question without
    # an answer does, and the answer check says what is missing.
    case = booking(
        [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Can I return ORD-102?"},
        ]
    )
    assert (case.question, case.answer) == ("Can I return ORD-102?", None)
    results = CheckSuite.from_settings()(case)
    assert isinstance(results, tuple)
    present = next(r for r in results if r.name == "answer_present")
    assert (present.outcome.value, present.reason) == ("fail", "the case has no answer")


def test_a_written_case_loads_back_the_same() -> None:
    case = booking(
        [
            {"role": "user", "content": "Cancel ORD-102."},
            {
                "role": "assistant",
                "tool_calls": [{"name": "cancelOrder", "arguments": ORDER, "error": "shipped"}],
            },
            {"role": "assistant", "content": "It shipped already."},
        ],
        as_of="2025-03-14",
        split="heldout",
        must_find=["shipped", {"regex": "ORD-\\d+"}],
    )
    assert Case.model_validate_json(case.model_dump_json()) == case
    assert Case.model_validate(case.model_dump(mode="json")) == case


# --- what is refused, and where --------------------------------------------------------


@pytest.mark.parametrize(
    ("turns", "fields", "says"),
    [
        ([{"role": "bot", "content": "hi"}], {}, "turns[0]: unknown role 'bot'"),
        (
            [
                {"role": "user", "content": "hi"},
                {"role": "tool", "tool_call_id": "x", "content": "1"},
            ],
            {},
            "turns[1]: a tool result for call 'x', which no turn before made",
        ),
        (
            [{"role": "user", "contnet": "hi"}],
            {},
            "turns[0]: no content, tool call or tool result (keys: contnet, role)",
        ),
        (
            [{"role": "assistant", "content": "A"}],
            {"answer": "B"},
            "answer is given and the turns end",
        ),
        (
            [{"role": "assistant", "tool_calls": [{"name": "t"}], "content": "A"}],
            {"trace": {"tool_calls": [{"name": "other"}]}},
            "trace.tool_calls is given and the turns carry tool_calls",
        ),
        (
            [{"role": "user", "content": "hi", "tool_calls": [{"name": "t"}]}],
            {"answer": "x"},
            "a user turn cannot call a tool",
        ),
    ],
)
def test_a_conversation_that_cannot_be_read_is_refused_naming_the_turn(
    tmp_path: Any, turns: list[Any], fields: dict[str, Any], says: str
) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps({"id": "c", "messages": turns, **fields}) + "\n")
    with pytest.raises(CaseFileError) as caught:
        load_cases(path)
    assert says in str(caught.value)
    assert "line 1" in str(caught.value)


# --- checks over every turn --------------------------------------------------------------


def conversation(**fields: Any) -> Case:
    return booking(
        [
            {"role": "user", "content": "Book a table for 2 on Friday, then email me."},
            {
                "role": "assistant",
                "content": "Booking it.",
                "tool_calls": [
                    {"name": "book", "arguments": {"day": "Fri"}, "result": "BK-1"},
                ],
            },
            {
                "role": "assistant",
                "content": "Your card 4111 1111 1111 1111 is on file.",
                "tool_calls": [{"name": "sendEmail", "arguments": {}, "error": "SMTP down"}],
            },
            {"role": "assistant", "content": "All done: booking BK-1, email sent."},
        ],
        **fields,
    )


def outcomes(case: Case) -> dict[str, str]:
    results = CheckSuite.from_settings()(case)
    assert isinstance(results, tuple)
    return {r.name: r.outcome.value for r in results}


def test_trace_checks_apply_across_every_step_of_a_conversation() -> None:
    found = outcomes(
        conversation(expected_tool="sendEmail", expected_tool_order=["book", "sendEmail"])
    )
    assert found["tool_choice"] == "pass"  # called at some step, not the last
    assert found["tool_order"] == "pass"
    assert found["tools_healthy"] == "fail"  # the error of the second step counts
    wrong = outcomes(conversation(expected_tool_order=["sendEmail", "book"]))
    assert wrong["tool_order"] == "fail"


def test_what_must_never_be_said_is_checked_in_every_assistant_turn() -> None:
    # The card number is in an earlier turn, not in the answer: it still leaks.
    assert outcomes(conversation())["pii"] == "fail"
    clean = booking([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello."}])
    assert outcomes(clean)["pii"] == "pass"


def test_the_readme_conversation_loads_as_documented() -> None:
    page = (Path(__file__).parents[2] / "docs/cases.md").read_text(encoding="utf-8")
    section = page[page.index("## Conversations and agent trajectories") :]
    found = re.search(r"```json\n(.*?)```", section, re.S)
    assert found is not None
    case = Case.model_validate(json.loads(found.group(1)))
    assert tuple(c.name for c in case.trace.tool_calls) == case.expected_tool_order
    assert case.trace.tool_calls[1].result == '{"booking_id": "BK-5521"}'
    assert case.answer == "Booked for 4 on Friday 14 March at 19:30: BK-5521."
    assert outcomes(case)["tool_order"] == "pass"
