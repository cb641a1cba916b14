"""HTTP endpoints as the agent: what is POSTed, how each reply is read, and the errors that
tell an endpoint that broke on one case from one that cannot be reached at all. Everything
runs against aiohttp apps on 127.0.0.1."""

from __future__ import annotations

import asyncio
import importlib.util
import socket
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from conftest import panel_of, scores, scripted
from jury import Case, ConfigError, Jury, Verdict
from jury.adapters import Agent, AgentError, AgentUnreachable
from jury.panel._agent_spec import AgentSettings, resolve_agent

EXAMPLE = Path(__file__).parents[2] / "examples" / "shopnest"

Handler = Callable[[web.Request], Any]


async def _serve(app: web.Application) -> tuple[web.AppRunner, str]:
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    return runner, f"http://{host}:{port}"


@pytest.fixture
async def endpoint() -> AsyncIterator[Callable[[Handler], Any]]:
    """Serve one handler at /ask; each request it got is kept in `seen`."""
    runners: list[web.AppRunner] = []

    async def start(handler: Handler) -> tuple[str, list[dict[str, Any]]]:
        seen: list[dict[str, Any]] = []

        async def ask(request: web.Request) -> web.StreamResponse:
            seen.append({"body": await request.json(), "headers": dict(request.headers)})
            result: web.StreamResponse = await handler(request)
            return result

        app = web.Application()
        app.router.add_post("/ask", ask)
        runner, base = await _serve(app)
        runners.append(runner)
        return f"{base}/ask", seen

    yield start
    for runner in runners:
        await runner.cleanup()


def _conversation() -> Case:
    return Case.model_validate(
        {
            "id": "conv-1",
            "golden_answer": "SECRET GOLD",
            "metadata": {"vars": {"tone": "brief"}},
            "turns": [
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello!"},
                {"role": "user", "content": "Where is ORD-101?"},
            ],
        }
    )


async def _ask(agent: Agent, case: Case) -> Any:
    try:
        return await agent.respond(case)
    finally:
        await agent.aclose()


async def test_the_case_is_posted_with_its_messages_and_never_its_golden_answer(
    endpoint: Any,
) -> None:
    async def handler(_: web.Request) -> web.Response:
        return web.json_response({"answer": "Shipped.", "toolCalls": [{"name": "lookup"}]})

    url, seen = await endpoint(handler)
    reply = await _ask(resolve_agent(url, AgentSettings()), _conversation())
    assert reply.answer == "Shipped."
    assert reply.trace.tool_names == ("lookup",)
    assert reply.latency is not None
    assert seen[0]["body"] == {
        "id": "conv-1",
        "question": "Where is ORD-101?",
        "metadata": {"vars": {"tone": "brief"}},
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello!"},
            {"role": "user", "content": "Where is ORD-101?"},
        ],
    }
    assert "SECRET GOLD" not in str(seen)


async def test_a_body_template_and_headers_from_the_environment_are_sent(
    endpoint: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHOP_TOKEN", "tok-123")

    async def handler(_: web.Request) -> web.Response:
        return web.json_response({"output": {"text": "Shipped."}})

    url, seen = await endpoint(handler)
    settings = AgentSettings(
        agent_headers={"Authorization": "Bearer ${SHOP_TOKEN}"},
        agent_body={"input": {"chat": "{{messages}}", "note": "tone={{tone}} id={{id}}"}},
        agent_fields={"answer": "output.text"},
    )
    reply = await _ask(resolve_agent(url, settings), _conversation())
    assert reply.answer == "Shipped."
    assert seen[0]["headers"]["Authorization"] == "Bearer tok-123"
    assert seen[0]["body"]["input"]["note"] == "tone=brief id=conv-1"
    assert seen[0]["body"]["input"]["chat"][-1] == {"role": "user", "content": "Where is ORD-101?"}


async def test_a_text_reply_is_the_answer(endpoint: Any) -> None:
    async def handler(_: web.Request) -> web.Response:
        return web.Response(text="It has shipped.", content_type="text/plain")

    url, _ = await endpoint(handler)
    reply = await _ask(resolve_agent(url, AgentSettings()), _conversation())
    assert reply.answer == "It has shipped."


@pytest.mark.parametrize(
    ("response", "said"),
    [
        (lambda: web.Response(status=503, text="upstream   model\n overloaded"),
         "HTTP 503: upstream model overloaded"),
        (lambda: web.Response(status=404), r"HTTP 404: (Not Found|\(empty body\))"),
        (lambda: web.Response(text="{not json", content_type="application/json"),
         "not valid JSON"),
        (lambda: web.Response(body=b"\x00", content_type="application/octet-stream"),
         "HTTP 200 with 'application/octet-stream', not an answer"),
        # A 200 web page (a login page, a proxy's) is not the agent's answer, whatever it says.
        (lambda: web.Response(text="<html><body>Login required</body></html>",
                              content_type="text/html"),
         r"HTTP 200 with 'text/html', not an answer \(expected JSON or text/plain\): "
         "<html><body>Login required"),
        (lambda: web.json_response({"answer": ""}), "answer is empty"),
    ],
    ids=["5xx", "404", "bad-json", "binary", "html", "empty"],
)  # fmt: skip
async def test_a_reply_that_cannot_count_raises_an_agent_error_saying_why(
    endpoint: Any, response: Callable[[], web.Response], said: str
) -> None:
    async def handler(_: web.Request) -> web.Response:
        return response()

    url, _ = await endpoint(handler)
    with pytest.raises(AgentError, match=said) as raised:
        await _ask(resolve_agent(url, AgentSettings()), _conversation())
    assert not isinstance(raised.value, ConfigError)  # a broken case, not a broken run


async def test_markdown_is_an_answer_as_text_plain_is(endpoint: Any) -> None:
    async def handler(_: web.Request) -> web.Response:
        return web.Response(text="**Shipped.**", content_type="text/markdown")

    url, _ = await endpoint(handler)
    reply = await _ask(resolve_agent(url, AgentSettings()), _conversation())
    assert reply.answer == "**Shipped.**"


async def test_a_login_page_fails_its_case_at_the_agent_stage_and_no_judge_is_paid(
    endpoint: Any,
) -> None:
    # The new user's trial: a 200 text/html login page was judged as the agent's answer.
    async def handler(_: web.Request) -> web.Response:
        page = "<html><body>Login required</body></html>"
        return web.Response(text=page, content_type="text/html")

    url, _ = await endpoint(handler)
    judge = scripted([scores(5)])
    agent = resolve_agent(url, AgentSettings())
    try:
        async with Jury(panel_of(judge), checks=None) as jury:
            verdicts = [v async for v in jury.evaluate([_conversation()], agent=agent)]
    finally:
        await agent.aclose()
    (verdict,) = verdicts
    assert (verdict.verdict, verdict.failed_stage) == (Verdict.FAIL, "agent")
    assert "'text/html', not an answer" in verdict.reasons[0]
    assert judge.calls == 0


async def test_a_reply_slower_than_the_timeout_raises_an_agent_error(endpoint: Any) -> None:
    async def handler(_: web.Request) -> web.Response:
        await asyncio.sleep(2)
        return web.json_response({"answer": "late"})

    url, _ = await endpoint(handler)
    with pytest.raises(AgentError, match=r"no reply within 0\.2s"):
        await _ask(resolve_agent(url, AgentSettings(agent_timeout=0.2)), _conversation())


async def test_an_endpoint_nobody_listens_on_raises_agent_unreachable() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    agent = resolve_agent(f"http://127.0.0.1:{port}/ask", AgentSettings())
    with pytest.raises(AgentUnreachable, match=f"127.0.0.1:{port}/ask: cannot connect") as raised:
        await _ask(agent, _conversation())
    assert isinstance(raised.value, ConfigError)  # the CLI's exit 2


def _example_app() -> web.Application:
    path = EXAMPLE / "agent_server.py"
    spec = importlib.util.spec_from_file_location("shopnest_agent_server", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    app: web.Application = module.make_app()
    return app


async def test_the_example_server_answers_as_the_example_agent_does_in_process() -> None:
    runner, base = await _serve(_example_app())
    try:
        case = Case(id="tool-status-01", question="Where is my order ORD-101?")
        over_http = await _ask(resolve_agent(f"{base}/ask", AgentSettings()), case)
        in_process = await _ask(resolve_agent(f"{EXAMPLE}/agent.py:answer", AgentSettings()), case)
    finally:
        await runner.cleanup()
    assert over_http.answer == in_process.answer
    assert over_http.answer == "ORD-101 was shipped 2 days ago and has not been delivered yet."
    assert over_http.trace == in_process.trace
