"""The ShopNest example agent is the system the example's cases were recorded from: its
answers, asked the golden set (in process, sync and async, and over HTTP from the example
server), fail exactly the cases `examples/shopnest/cases.jsonl` was built to fail, with the
same verdict for every case."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import jury
from jury.adapters import Agent, AgentReply
from jury.cli import main
from jury.panel._agent_spec import AgentSettings, resolve_agent

EXAMPLE = Path(__file__).parents[2] / "examples" / "shopnest"


def _verdicts(run: Path) -> dict[str, str]:
    lines = (run / "verdicts.jsonl").read_text().splitlines()
    return {json.loads(line)["case_id"]: json.loads(line)["verdict"] for line in lines}


def _judge(cases: Path, out: Path) -> dict[str, str]:
    code = main(["run", str(cases), "--jury", str(EXAMPLE / "jury.toml"), "--out", str(out)])
    assert code == 1  # the deliberately broken answers fail the gate
    return _verdicts(out)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The verdicts of the answers recorded in the example's cases file."""
    return _judge(EXAMPLE / "cases.jsonl", tmp_path_factory.mktemp("recorded") / "run")


def _answered(golden: list[jury.Case], replies: list[AgentReply], path: Path) -> Path:
    """The golden cases with the agent's answers and traces, as a run's cases file holds them."""
    with path.open("w", encoding="utf-8") as out:
        for case, reply in zip(golden, replies, strict=True):
            record: dict[str, Any] = case.model_dump(mode="json", exclude_unset=True)
            record["answer"] = reply.answer
            if reply.trace is not None:
                record["trace"] = reply.trace.model_dump(mode="json", exclude_defaults=True)
            out.write(json.dumps(record) + "\n")
    return path


async def _ask_all(agent: Agent) -> tuple[list[jury.Case], list[AgentReply]]:
    golden = jury.load_cases(EXAMPLE / "golden.jsonl")
    try:
        replies = await asyncio.gather(*(agent.respond(case) for case in golden))
    finally:
        await agent.aclose()
    return golden, list(replies)


def test_the_golden_set_is_the_cases_without_their_answers_and_traces() -> None:
    golden = (EXAMPLE / "golden.jsonl").read_text().splitlines()
    recorded = (EXAMPLE / "cases.jsonl").read_text().splitlines()
    assert len(golden) == len(recorded) == 24
    for mine, theirs in zip(golden, recorded, strict=True):
        full = json.loads(theirs)
        del full["trace"]
        assert json.loads(mine) == full


@pytest.mark.parametrize("function", ["answer", "answer_async"])
def test_the_agent_in_process_fails_exactly_the_cases_built_to_fail(
    function: str, recorded: dict[str, str], tmp_path: Path
) -> None:
    agent = resolve_agent(f"{EXAMPLE}/agent.py:{function}", AgentSettings())
    golden, replies = asyncio.run(_ask_all(agent))
    verdicts = _judge(_answered(golden, replies, tmp_path / "answers.jsonl"), tmp_path / "run")
    assert verdicts == recorded
    assert sorted(verdicts.values()).count("FAIL") == 13


def test_the_agent_served_over_http_fails_exactly_the_same_cases(
    recorded: dict[str, str], tmp_path: Path
) -> None:
    server = subprocess.Popen(
        [sys.executable, str(EXAMPLE / "agent_server.py"), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline()  # the server's first line: where it listens
        assert url.startswith("http://127.0.0.1:")
        assert url.strip().endswith("/ask")
        golden, replies = asyncio.run(_ask_all(resolve_agent(url.strip(), AgentSettings())))
        # And as a gate runs it: `jury run GOLDEN --agent URL`, the agent called by the run.
        argv = ["run", str(EXAMPLE / "golden.jsonl"), "--jury", str(EXAMPLE / "jury.toml")]
        assert main([*argv, "--agent", url.strip(), "--out", str(tmp_path / "gate")]) == 1
    finally:
        server.terminate()
        server.communicate(timeout=30)
    verdicts = _judge(_answered(golden, replies, tmp_path / "answers.jsonl"), tmp_path / "run")
    assert verdicts == recorded
    assert _verdicts(tmp_path / "gate") == recorded
