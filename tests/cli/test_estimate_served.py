"""Acceptance, against the strict fake provider server: `jury estimate` counts for each seat the
prompts `jury run` really sends it (a strategy's instructions included) and, as the most a call
may write, the output limit the adapter really asks for (a juror's own max_tokens, a thinking
model's room); `jury calibrate --votes RUN --select --budget` then prices each seat by the
tokens its votes recorded, through the price tables, not by the USD they stored."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jury import load_cases, load_panel
from jury.adapters import Usage, price
from jury.cli import main
from jury.runs._estimate import estimate
from jury.testing import LoggedRequest, valid_reply
from served import ServerThread

MINI = "gpt-4.1-mini-2025-04-14"
OPUS = "claude-opus-5-5"
JURY = f"""\
rubric = "five-metric"
max_tokens = 400

[[jurors]]
model = "openai/{MINI}"

[[jurors]]
model = "openai/{MINI}"
strategy = "metrics_reference"

[[jurors]]
model = "anthropic/{OPUS}"
name = "opus"
max_tokens = 300
"""


def judge(request: LoggedRequest) -> dict[str, Any]:
    reply = valid_reply(request.schema)
    for name in ("questions", "own_answer"):
        if name in reply:
            reply[name] = f"the {name} this judge wrote first"
    return reply


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[ServerThread]:
    thread = ServerThread()
    thread.server.script(MINI, judge)
    thread.server.script(OPUS, judge)
    for name, value in thread.server.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JURY_CACHE_DIR", str(tmp_path / "cache"))
    lines = [
        {
            "id": f"c{i}",
            "question": f"Can order ORD-{100 + i} be returned{'?' * i}",
            "answer": "Yes, within 30 days." if i % 2 else "No.",
            "labels": {"pass": bool(i % 2)},
        }
        for i in range(24)
    ]
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    (tmp_path / "jury.toml").write_text(JURY, encoding="utf-8")
    yield thread
    thread.stop()


def sent(request: LoggedRequest) -> tuple[str, int, int]:
    """The seat a logged request came from, its system and user text in estimated tokens, and
    the output limit it asked for."""
    body = request.body
    if request.model == OPUS:
        system, user = body["system"][0]["text"], body["messages"][0]["content"]
        return "opus", (len(system) + len(user)) // 4, body["max_tokens"]
    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    seat = f"openai/{MINI}" + ("+metrics_reference" if "(metrics_reference)" in system else "")
    return seat, (len(system) + len(user)) // 4, body["max_completion_tokens"]


def test_the_estimate_counts_what_each_seat_is_really_sent(
    served: ServerThread, tmp_path: Path
) -> None:
    argv = ["run", "cases.jsonl", "--jury", "jury.toml", "--out", "run", "--no-checks"]
    assert main([*argv, "--progress", "none"]) in (0, 1)
    asked: dict[str, list[tuple[int, int]]] = {}
    for request in served.requests:
        seat, tokens, limit = sent(request)
        asked.setdefault(seat, []).append((tokens, limit))
    rows = {
        row.juror: row
        for row in estimate(load_panel("jury.toml"), load_cases("cases.jsonl")).jurors
    }
    assert set(asked) == set(rows)
    for seat, calls in asked.items():
        row = rows[seat]
        assert row.calls == len(calls) == 24
        assert row.input_tokens == sum(tokens for tokens, _ in calls)
        # The most one call may write is what the adapter asked for, thinking room included.
        assert {limit for _, limit in calls} == {row.max_output_tokens // row.max_calls}
    assert rows["opus"].max_output_tokens // rows["opus"].max_calls == 300 + 2048
    assert (
        rows[f"openai/{MINI}+metrics_reference"].input_tokens > rows[f"openai/{MINI}"].input_tokens
    )


def test_calibrate_prices_recorded_tokens_by_the_tables_not_the_stored_usd(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["run", "cases.jsonl", "--jury", "jury.toml", "--out", "run", "--no-checks"]
    assert main([*argv, "--progress", "none"]) in (0, 1)
    path = tmp_path / "run" / "verdicts.jsonl"
    records = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    spent: dict[str, list[float]] = {}
    for record in records:
        for vote in record["votes"]:
            calls = vote["calls"]
            usage = Usage(
                calls["input_tokens"], calls["output_tokens"], calls.get("cached_tokens", 0)
            )
            provider, model = ("anthropic", OPUS) if vote["juror"] == "opus" else ("openai", MINI)
            spent.setdefault(vote["juror"], []).append(price(provider, model, usage) or 0.0)
            calls["cost"] = 123.0  # stored USD that is wrong on purpose
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    capsys.readouterr()
    calibrate = ["calibrate", "cases.jsonl", "--jury", "jury.toml", "--votes", "run"]
    code = main([*calibrate, "--select", "--budget", "100"])
    out, err = capsys.readouterr()
    assert code == 0, err
    for seat, costs in spent.items():
        model = f"anthropic/{OPUS}" if seat == "opus" else f"openai/{MINI}"
        per_1000 = 1000 * sum(costs) / len(costs)
        assert f"  {seat}: ${per_1000:.4f}, measured tokens ({model})" in out
    assert "$123" not in out
