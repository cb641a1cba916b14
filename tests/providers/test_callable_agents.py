"""Python callables as the agent: sync ones in a worker thread, async ones on the loop, each
call with a trace of its own (`jury.trace`), and every return shape read by `reply_from`."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

import jury.trace
from jury import Case
from jury.adapters import AgentError, AgentReply
from jury.panel._agent_spec import AgentSettings, resolve_agent

AGENT_FILE = """
import asyncio
import threading

import jury.trace

threads = []

def sync_answer(case):
    threads.append(threading.get_ident())
    jury.trace.retrieved("orders.md")
    jury.trace.tool_call("getOrderStatus", case.id, result="Shipped")
    return f"{case.id} has shipped."

async def async_answer(case):
    await asyncio.sleep(0)
    jury.trace.context("ORD-101 shipped yesterday.")
    return {"answer": f"{case.id} has shipped.", "retrievedSources": ["orders.md"]}

def as_reply(case):
    return jury.adapters.AgentReply(answer="done", cost=0.5)

def raising(case):
    raise RuntimeError("database is down")

def empty(case):
    return ""

def own_shape(case):
    return {"result": {"text": "in my own shape"}}

class Bot:
    async def __call__(self, case):
        return "from an object"

bot = Bot()
"""


@pytest.fixture
def agent_dir(tmp_path: Path) -> Path:
    (tmp_path / "bot.py").write_text("import jury.adapters\n" + AGENT_FILE)
    return tmp_path


def _case(case_id: str = "c1") -> Case:
    return Case(id=case_id, question=f"Where is {case_id}?")


async def _respond(agent_dir: Path, function: str, case: Case | None = None) -> AgentReply:
    agent = resolve_agent(f"bot.py:{function}", AgentSettings(), base_dir=agent_dir)
    try:
        return await agent.respond(case or _case())
    finally:
        await agent.aclose()


async def test_a_sync_callable_runs_in_a_worker_thread_and_its_trace_is_kept(
    agent_dir: Path,
) -> None:
    agent = resolve_agent("bot.py:sync_answer", AgentSettings(), base_dir=agent_dir)
    reply = await agent.respond(_case())
    assert reply.answer == "c1 has shipped."
    assert reply.trace is not None
    assert reply.trace.retrieved_sources == ("orders.md",)
    assert [(c.name, c.arguments, c.result) for c in reply.trace.tool_calls] == [
        ("getOrderStatus", "c1", "Shipped")
    ]
    # The function saw the call on another thread than the loop's.
    threads = agent.function.__globals__["threads"]  # type: ignore[attr-defined]
    assert threads == [threads[0]]
    assert threads[0] != threading.get_ident()


async def test_an_async_callable_returns_a_mapping_merged_with_what_it_recorded(
    agent_dir: Path,
) -> None:
    reply = await _respond(agent_dir, "async_answer")
    assert reply.answer == "c1 has shipped."
    assert reply.trace is not None
    assert reply.trace.retrieved_sources == ("orders.md",)
    assert reply.trace.context == ("ORD-101 shipped yesterday.",)


async def test_the_field_map_reads_a_mapping_of_the_agents_own_shape(agent_dir: Path) -> None:
    settings = AgentSettings(agent_fields={"answer": "result.text"})
    agent = resolve_agent("bot.py:own_shape", settings, base_dir=agent_dir)
    assert (await agent.respond(_case())).answer == "in my own shape"


async def test_an_object_with_an_async_call_is_awaited(agent_dir: Path) -> None:
    assert (await _respond(agent_dir, "bot")).answer == "from an object"


async def test_an_agent_reply_returned_is_kept_with_its_cost(agent_dir: Path) -> None:
    reply = await _respond(agent_dir, "as_reply")
    assert (reply.answer, reply.cost) == ("done", 0.5)


async def test_an_agent_that_raises_lets_its_error_through(agent_dir: Path) -> None:
    with pytest.raises(RuntimeError, match="database is down"):
        await _respond(agent_dir, "raising")


async def test_an_agent_that_answers_nothing_raises_an_agent_error(agent_dir: Path) -> None:
    with pytest.raises(AgentError, match="answer is empty"):
        await _respond(agent_dir, "empty")


async def test_a_package_module_callable_is_imported_by_its_dotted_name(
    agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = agent_dir / "shoppkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "agent.py").write_text("async def answer(case):\n    return 'from a package'\n")
    monkeypatch.syspath_prepend(str(agent_dir))
    agent = resolve_agent("shoppkg.agent:answer", AgentSettings())
    assert (await agent.respond(_case())).answer == "from a package"


def test_the_helpers_record_nothing_outside_an_agent_call() -> None:
    assert jury.trace.current() is None
    jury.trace.tool_call("t", 1)  # no error, nothing kept anywhere
    with jury.trace.recording() as recorded:
        jury.trace.tool_call("t", 1, error=ValueError("bad"))
        jury.trace.cited("a.md")
    assert recorded.tool_calls == [{"name": "t", "arguments": 1, "error": "bad"}]
    assert recorded.cited_sources == ["a.md"]
    assert jury.trace.current() is None


async def _interleaved(case: Case) -> dict[str, Any]:
    # Every helper call is followed by a switch to other cases in flight.
    for step in range(3):
        jury.trace.tool_call(f"lookup-{step}", case.id, result=f"{case.id}:{step}")
        await asyncio.sleep(0)
        jury.trace.retrieved(f"{case.id}.md")
        await asyncio.sleep(0)
    jury.trace.context(f"context of {case.id}")
    await asyncio.sleep(0)
    return {"answer": f"answer for {case.id}"}


def _threaded(case: Case) -> str:
    for step in range(3):
        jury.trace.tool_call(f"lookup-{step}", case.id, result=f"{case.id}:{step}")
        jury.trace.retrieved(f"{case.id}.md")
    jury.trace.context(f"context of {case.id}")
    return f"answer for {case.id}"


@pytest.mark.parametrize("function", [_interleaved, _threaded], ids=["async", "sync"])
async def test_two_hundred_cases_in_flight_never_share_a_trace(function: Any) -> None:
    from jury.providers.agents._callable import CallableAgent

    agent = CallableAgent("test:agent", function)
    cases = [_case(f"case-{n:03d}") for n in range(200)]
    replies = await asyncio.gather(*(agent.respond(case) for case in cases))
    for case, reply in zip(cases, replies, strict=True):
        assert reply.answer == f"answer for {case.id}"
        assert reply.trace is not None
        assert [c.arguments for c in reply.trace.tool_calls] == [case.id] * 3
        assert [c.result for c in reply.trace.tool_calls] == [f"{case.id}:{s}" for s in range(3)]
        assert reply.trace.retrieved_sources == (f"{case.id}.md",) * 3
        assert reply.trace.context == (f"context of {case.id}",)
    assert jury.trace.current() is None
