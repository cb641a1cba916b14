"""A model as the system under test: a prompt-only dataset answered by ``--agent
provider/model`` through the fake provider server, the judges' family warning naming the
agent, and a retired model refused as the agent as it is as a juror."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from jury.cli import main
from jury.testing import LoggedRequest
from served import ServerThread

AGENT_MODEL = "gpt-5.4-mini-2026-03-17"
PROMPTS = [
    {"id": "p1", "question": "What is the capital of France?", "golden_answer": "Paris"},
    {"id": "p2", "question": "How many legs has a spider?", "golden_answer": "Eight."},
]
ANSWERS = {"capital of France": "Paris.", "legs has a spider": "Eight."}


def answer(request: LoggedRequest) -> dict[str, str]:
    """The model under test: answers the prompts it is asked (in the reply schema asked)."""
    text = json.dumps(request.body)
    return {"answer": next(a for asked, a in ANSWERS.items() if asked in text)}


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[ServerThread]:
    thread = ServerThread()
    thread.server.script(AGENT_MODEL, answer)
    for name, value in thread.server.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JURY_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "prompts.jsonl").write_text("".join(json.dumps(p) + "\n" for p in PROMPTS))
    yield thread
    thread.stop()


def test_a_prompt_only_dataset_is_answered_by_a_model_agent_and_judged(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "jury.toml").write_text('jurors = ["offline/reference"]\n')
    served.server.mark = False  # priced as a real server's replies (the fake's cost $0)
    argv = ["run", "prompts.jsonl", "--jury", "jury.toml", "--agent", f"openai/{AGENT_MODEL}"]
    assert main([*argv, "--out", "run"]) == 0
    recorded = [
        json.loads(line) for line in (tmp_path / "run/cases.jsonl").read_text().splitlines()
    ]
    assert {case["id"]: case["answer"] for case in recorded} == {"p1": "Paris.", "p2": "Eight."}
    asked = [r for r in served.requests if r.model == AGENT_MODEL]
    assert len(asked) == 2  # once per case, through the real adapter to the fake
    said = capsys.readouterr()
    assert "Gate PASSED" in said.out
    assert "agent cost " in said.err  # its spend on a line apart from the judges'
    # Through the judges' call layer, so through their cache: a new run pays no answer twice.
    assert main([*argv, "--out", "again"]) == 0
    assert len([r for r in served.requests if r.model == AGENT_MODEL]) == 2
    lines = (tmp_path / "again/cases.jsonl").read_text().splitlines()
    assert [json.loads(line)["answer"] for line in lines] == ["Paris.", "Eight."]


def test_a_judge_of_the_agents_family_is_warned_about(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "agent.py").write_text("def answer(case):\n    return 'Paris.'\n")
    (tmp_path / "jury.toml").write_text(
        'jurors = ["offline/reference", "openai/gpt-4.1-mini-2025-04-14"]\n'
        'agent_family = "openai"\n'
    )
    argv = ["run", "prompts.jsonl", "--jury", "jury.toml", "--agent", "agent.py:answer"]
    main([*argv, "--out", "run"])
    err = capsys.readouterr().err
    assert "is of the openai family, like the system under test (agent.py:answer)" in err


def test_a_retired_model_is_refused_as_the_agent_before_any_call(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "jury.toml").write_text('jurors = ["offline/reference"]\n')
    # Retired on 2026-11-30 by the project's own lifecycle table (the suite's day).
    retired = "anthropic/claude-sonnet-4-5-20250929"
    argv = ["run", "prompts.jsonl", "--jury", "jury.toml", "--agent", retired]
    assert main([*argv, "--out", "run"]) == 2
    assert "retired model as the agent" in capsys.readouterr().err
    assert served.requests == []
