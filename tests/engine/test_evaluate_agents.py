"""`Jury.evaluate(cases, agent=X)` takes what `jury run --agent` takes (issue 31): a sync or
async function, ``"file.py:function"``, ``"package.module:function"``, a URL, ``provider/model``
or an `Agent`; each gives the verdicts `jury run --agent` gives on the same cases, and a bad
one is a `ConfigError` naming it (never an AttributeError)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from jury import Case, ConfigError, Jury, Verdict, default_panel
from jury.adapters import Agent, AgentReply
from jury.cli import main
from jury.testing import FakeProviderServer

#: Golden cases: the agent answers, the offline panel judges (no key, deterministic).
GOLDEN = [
    {
        "id": "return-window",
        "question": "Can I return ORD-102?",
        "golden_answer": "Yes, ORD-102 is within the 30-day return window.",
    },
    {
        "id": "refund",
        "question": "Is ORD-104 eligible for a refund?",
        "golden_answer": "No, ORD-104 was delivered 45 days ago, past the 30-day window.",
    },
]
ANSWERS = {
    "Can I return ORD-102?": "Yes, ORD-102 is within the 30-day return window.",
    "Is ORD-104 eligible for a refund?": "Yes, ORD-104 can be refunded in full.",
}
AGENT_FILE = (
    "ANSWERS = " + json.dumps(ANSWERS) + "\ndef answer(case):\n    return ANSWERS[case.question]\n"
)


def answer(case: Case) -> str:
    return ANSWERS[case.question or ""]


async def answer_async(case: Case) -> str:
    await asyncio.sleep(0)
    return ANSWERS[case.question or ""]


class Scripted(Agent):
    name = "scripted"
    family = None

    async def respond(self, case: Case) -> AgentReply:
        return AgentReply(answer=ANSWERS[case.question or ""])


def cases() -> list[Case]:
    return [Case.model_validate(c) for c in GOLDEN]


def evaluate(agent: Any) -> dict[str, Verdict]:
    async def go() -> dict[str, Verdict]:
        async with Jury(default_panel()) as jury:
            return {v.case_id: v.verdict async for v in jury.evaluate(cases(), agent=agent)}

    return asyncio.run(go())


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agent.py").write_text(AGENT_FILE)
    package = tmp_path / "shopagent"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "bot.py").write_text(AGENT_FILE)
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "golden.jsonl").write_text("".join(json.dumps(c) + "\n" for c in GOLDEN))
    return tmp_path


def run_verdicts(spec: str, out: str) -> dict[str, Verdict]:
    """What `jury run --agent SPEC` decides on the same cases."""
    main(["run", "golden.jsonl", "--agent", spec, "--out", out, "--progress", "none"])
    lines = Path(out, "verdicts.jsonl").read_text().splitlines()
    return {v["case_id"]: Verdict(v["verdict"]) for v in map(json.loads, lines)}


@pytest.fixture
def endpoint() -> Iterator[str]:
    """An HTTP agent on 127.0.0.1, answering the default body's question."""

    async def reply(request: web.Request) -> web.Response:
        body = await request.json()
        return web.json_response({"answer": ANSWERS[body["question"]]})

    loop = asyncio.new_event_loop()
    app = web.Application()
    app.router.add_post("/agent", reply)
    runner = web.AppRunner(app)
    loop.run_until_complete(runner.setup())
    site = web.TCPSite(runner, "127.0.0.1", 0)
    loop.run_until_complete(site.start())
    port = runner.addresses[0][1]
    import threading

    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}/agent"
    asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(timeout=10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=10)
    loop.close()


def test_every_form_of_agent_gives_the_verdicts_jury_run_gives(
    workdir: Path, endpoint: str
) -> None:
    expected = run_verdicts("agent.py:answer", "by-file")
    # The two cases part ways (one right answer, one that says yes to a no): a real comparison.
    assert expected == {"return-window": Verdict.PASS, "refund": Verdict.FAIL}
    assert run_verdicts("shopagent.bot:answer", "by-module") == expected
    assert run_verdicts(endpoint, "by-url") == expected
    for form in (
        answer,
        answer_async,
        "agent.py:answer",
        "shopagent.bot:answer",
        endpoint,
        Scripted(),
    ):
        assert evaluate(form) == expected, form


def test_a_model_as_the_agent_is_taken_by_its_provider_model_spec(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    panel = default_panel()  # offline: chosen before the fake's keys are set

    async def go() -> tuple[list[Verdict], list[str]]:
        async with FakeProviderServer() as server:
            for name, value in server.env().items():
                monkeypatch.setenv(name, value)
            server.script("shop-bot", "Yes, ORD-102 is within the 30-day return window.")
            async with Jury(panel) as jury:
                agent = "openai-api/fake/shop-bot"
                found = [v.verdict async for v in jury.evaluate(cases()[:1], agent=agent)]
            return found, [r.model for r in server.requests]

    verdicts, asked = asyncio.run(go())
    assert asked == ["shop-bot"]  # the model was asked, once, as the agent
    assert verdicts == [Verdict.PASS]


@pytest.mark.parametrize(
    ("agent", "words"),
    [
        (42, "expected an Agent, a SPEC"),
        ("missing.py:answer", "missing.py"),
        ("agent.py:nope", "nope"),
        ("not a spec", "expected path/to/file.py:function"),
    ],
)
def test_an_agent_that_cannot_work_is_a_config_error_naming_it(
    workdir: Path, agent: Any, words: str
) -> None:
    with pytest.raises(ConfigError, match=words.replace(".", r"\.")):
        evaluate(agent)
