"""Acceptance: a jury file seating one model twice, with two strategies, run by `jury run`
against the strict fake provider server. The two seats send different pinned prompts, the
family warning names one family, and what the strategy seat wrote before its verdict is in
the records, the tokens and the HTML card."""

from __future__ import annotations

import html
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jury.cli import main
from jury.testing import LoggedRequest, valid_reply
from served import ServerThread

MODEL = "gpt-4.1-mini-2025-04-14"
GOLDEN = Path(__file__).parent.parent / "golden"
JURY = f"""\
rubric = "five-metric"

[[jurors]]
model = "openai/{MODEL}"

[[jurors]]
model = "openai/{MODEL}"
strategy = "metrics_reference"
"""
QUESTIONS = "Does it say ORD-102 can be returned?\nDoes it give the 30-day window?"
OWN_ANSWER = "Yes: delivered 20 days ago, inside the 30-day window."


def judge(request: LoggedRequest) -> dict[str, Any]:
    reply = valid_reply(request.schema)
    if "questions" in reply:
        reply["questions"] = QUESTIONS
        reply["own_answer"] = OWN_ANSWER
    return reply


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[ServerThread]:
    thread = ServerThread()
    thread.server.script(MODEL, judge)
    for name, value in thread.server.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JURY_CACHE_DIR", str(tmp_path / "cache"))
    golden = (GOLDEN / "cases.jsonl").read_text(encoding="utf-8").splitlines()[0]
    (tmp_path / "cases.jsonl").write_text(golden + "\n", encoding="utf-8")
    (tmp_path / "jury.toml").write_text(JURY, encoding="utf-8")
    yield thread
    thread.stop()


def pinned_system(path: Path) -> str:
    """The system text of a golden prompt file (its length is in its header)."""
    text = path.read_text(encoding="utf-8")
    head, rest = text.split("· system (", 1)[1].split("\n", 1)
    return rest[: int(head.split(" ", 1)[0])]


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def test_two_seats_of_one_model_send_their_pinned_prompts_and_record_what_they_wrote(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "cases.jsonl", "--jury", "jury.toml", "--out", "run"]) == 0
    err = capsys.readouterr().err
    # One family, named once: the two seats are one model.
    family = [line for line in err.splitlines() if "family" in line]
    assert len(family) == 1
    assert (
        f"jurors openai/{MODEL}, openai/{MODEL}+metrics_reference (seats of one model, "
        f"openai/{MODEL}) are all of the openai family" in family[0]
    )

    asked = [r for r in served.requests if r.model == MODEL]
    assert len(asked) == 2
    systems = [next(s for s in strings(r.body) if s.startswith("You are one judge")) for r in asked]
    assert systems[0] != systems[1]
    folder = "five-metric/return-ord-102"
    plain = pinned_system(next((GOLDEN / "prompts" / folder).glob("*.txt")))
    strategic = pinned_system(
        next((GOLDEN / "strategy-prompts" / folder).glob("*metrics_reference*.txt"))
    )
    assert sorted(systems) == sorted([plain, strategic])
    # The schema the strategy seat asked for puts its fields first, in the protocol's request.
    schemas = [r.schema or {} for r in asked]
    firsts = sorted(list(s["properties"])[:2] for s in schemas)
    assert ["questions", "own_answer"] in firsts

    (line,) = (tmp_path / "run" / "verdicts.jsonl").read_text(encoding="utf-8").splitlines()
    votes = {vote["juror"]: vote for vote in json.loads(line)["votes"]}
    seat = votes[f"openai/{MODEL}+metrics_reference"]
    assert seat["generated"] == {"questions": QUESTIONS, "own_answer": OWN_ANSWER}
    assert "generated" not in votes[f"openai/{MODEL}"]
    assert seat["calls"]["output_tokens"] > votes[f"openai/{MODEL}"]["calls"]["output_tokens"]
    assert seat["calls"]["cost"] > votes[f"openai/{MODEL}"]["calls"]["cost"]

    assert main(["report", "run", "--html", "report.html"]) == 0
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "what it wrote before its verdict" in page
    assert html.escape(OWN_ANSWER) in page
    assert html.escape(QUESTIONS.splitlines()[1]) in page
    # The prompt link of the strategy seat says it saw more than the rubric's prompt.
    assert "with its strategy's (metrics_reference) instructions and fields" in page
