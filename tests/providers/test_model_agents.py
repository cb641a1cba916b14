"""A model as the system under test (``--agent provider/model``), through the judges' own
adapters against the strict fake provider server: what it is sent with and without a prompt
template, and how its reply becomes the case's answer."""

from __future__ import annotations

from pathlib import Path

import pytest
from provider_helpers import ANTHROPIC, GOOGLE, OPENAI, model_id

from jury import Case
from jury.adapters import AgentError, JudgeReply, Usage
from jury.panel._agent_spec import AgentSettings, resolve_agent
from jury.testing import FakeProviderServer

PROMPT_ONLY = Case.model_validate(
    {
        "id": "p1",
        "question": "What is 2 + 2?",
        "golden_answer": "4",
        "metadata": {"vars": {"tone": "terse"}},
    }
)


@pytest.mark.parametrize("spec", [OPENAI, ANTHROPIC, GOOGLE])
async def test_a_prompt_only_case_is_answered_by_the_model_through_its_adapter(
    server: FakeProviderServer, spec: str
) -> None:
    server.script(model_id(spec), {"answer": "2 + 2 is 4."})
    agent = resolve_agent(spec, AgentSettings())
    try:
        reply = await agent.respond(PROMPT_ONLY)
    finally:
        await agent.aclose()
    assert reply.answer == "2 + 2 is 4."
    assert reply.usage is not None
    assert len(server.requests) == 1
    sent = str(server.requests[0].body)
    assert "What is 2 + 2?" in sent
    assert "'4'" not in sent  # the golden answer is never sent to the system under test


async def test_a_prompt_template_fills_the_question_and_the_cases_variables(
    server: FakeProviderServer, tmp_path: Path
) -> None:
    (tmp_path / "prompt.txt").write_text("Be {{ tone }}. Q: {{question}}")
    server.script(model_id(OPENAI), {"answer": "4"})
    agent = resolve_agent(OPENAI, AgentSettings(agent_prompt="prompt.txt"), base_dir=tmp_path)
    try:
        await agent.respond(PROMPT_ONLY)
    finally:
        await agent.aclose()
    messages = server.requests[0].body["messages"]
    assert messages[-1] == {"role": "user", "content": "Be terse. Q: What is 2 + 2?"}


async def test_a_conversation_is_sent_as_its_turns(server: FakeProviderServer) -> None:
    case = Case.model_validate(
        {
            "id": "conv",
            "turns": [
                {"role": "system", "content": "You are ShopNest's assistant."},
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello!"},
                {"role": "user", "content": "Where is ORD-101?"},
            ],
        }
    )
    server.script(model_id(OPENAI), {"answer": "Shipped."})
    agent = resolve_agent(OPENAI, AgentSettings())
    try:
        reply = await agent.respond(case)
    finally:
        await agent.aclose()
    assert reply.answer == "Shipped."
    messages = server.requests[0].body["messages"]
    assert "You are ShopNest's assistant." in messages[0]["content"]
    assert [m["role"] for m in messages[1:]] == ["user", "assistant", "user"]


def test_the_pipeline_gets_the_model_and_the_request_to_send_through_its_call_layer(
    server: FakeProviderServer,
) -> None:
    agent = resolve_agent(OPENAI, AgentSettings())
    request = agent.request_for(PROMPT_ONLY)
    assert agent.model is not None
    assert agent.model.name == OPENAI
    assert request.schema["required"] == ["answer"]
    assert request.messages[-1].content == "What is 2 + 2?"
    assert agent.family == "openai"
    # What the call layer got back becomes the case's reply, priced by the call layer.
    served = JudgeReply(text='{"answer": "4"}', model="gpt-4.1-mini", usage=Usage(9, 2))
    reply = agent.reply_for(served, cost=0.001)
    assert (reply.answer, reply.cost, reply.usage) == ("4", 0.001, Usage(9, 2))
    # A reply that is not the asked-for JSON (a server told to send plain text) is the answer.
    assert agent.reply_for(JudgeReply(text="Four.", model="m")).answer == "Four."


def test_an_agent_that_is_no_model_says_so(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("def answer(case):\n    return 'x'\n")
    agent = resolve_agent("bot.py:answer", AgentSettings(), base_dir=tmp_path)
    assert agent.model is None
    with pytest.raises(NotImplementedError, match="no model agent"):
        agent.request_for(PROMPT_ONLY)


def test_a_template_naming_what_the_case_lacks_fails_that_case(
    server: FakeProviderServer, tmp_path: Path
) -> None:
    (tmp_path / "prompt.txt").write_text("{{customer}}: {{question}}")
    agent = resolve_agent(OPENAI, AgentSettings(agent_prompt="prompt.txt"), base_dir=tmp_path)
    with pytest.raises(AgentError, match=r"\{\{customer\}\}, which case 'p1' has not"):
        agent.request_for(PROMPT_ONLY)
