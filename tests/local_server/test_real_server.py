"""aiojury against a real model server (issue 32): llama-cpp-python's server with
SmolLM2-135M-Instruct, a model too small to judge well, whose replies nobody wrote.

What must hold whatever the model says: the juror works with nothing set (the server is
asked how it takes a schema), every reply is a valid vote or an invalid one with its raw
reply kept, no score is clamped, a pairwise juror whose orders disagree abstains, the cache
keys replies by the server and the format, every valid vote carries a probability or says
why not, Ctrl-C ends a run within 2 s, and aiojury's own CPU per call is under 1% of the
server's.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import jury
from jury import Vote, VoteStatus
from jury.adapters import JudgeRequest, Message
from jury.adapters._registry import resolve_model
from jury.engine._confidence import skewed

from .conftest import ALIAS, LocalServer

pytestmark = pytest.mark.timeout(600)

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "shopnest"
JUROR = f"openai-api/local/{ALIAS}"
#: Cases of the example whose checks pass, so that the jury is asked.
JUDGED = ["policy-return-01", "policy-shipping-01", "tool-status-01"]
METRICS = ("relevance", "correctness", "faithfulness", "helpfulness", "hallucinationFree")


@pytest.fixture
def jury_file(local_server: LocalServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("LOCAL_BASE_URL", local_server.url)
    monkeypatch.setenv("LOCAL_API_KEY", "x")
    monkeypatch.delenv("LOCAL_RESPONSE_FORMAT", raising=False)
    path = tmp_path / "jury.toml"
    path.write_text(
        f'[[juror]]\nmodel = "{JUROR}"\nlogprobs = true\nreason_length = 100\n', encoding="utf-8"
    )
    return path


@pytest.fixture
def pairwise_jury(jury_file: Path) -> Path:
    path = jury_file.with_name("pairwise.toml")
    path.write_text(f'[[juror]]\nmodel = "{JUROR}"\nreason_length = 80\n', encoding="utf-8")
    return path


def votes_of(run: jury.Run) -> list[Vote]:
    return [vote for verdict in run.verdicts for vote in verdict.votes]


def read(raw: str) -> Any:
    return json.loads(raw.strip().removeprefix("```json").removesuffix("```"), strict=False)


async def test_a_real_gate_loses_no_juror_clamps_nothing_and_says_every_missing_probability(
    jury_file: Path, tmp_path: Path
) -> None:
    run = await jury.run(
        EXAMPLE / "cases.jsonl",
        jury=str(jury_file),
        ids=JUDGED,
        out=str(tmp_path / "run"),
        cache_dir=str(tmp_path / "cache"),
    )
    assert run.exit_code in (0, 1)  # never 2: the juror works with nothing set
    votes = votes_of(run)
    assert len(votes) == len(JUDGED)
    for vote in votes:
        assert vote.status in (VoteStatus.VALID, VoteStatus.INVALID), vote.error
        assert vote.raw  # the reply, as the server sent it
        if vote.status is VoteStatus.INVALID:
            assert vote.error
            continue
        written = read(vote.raw)
        for metric in METRICS:
            # The score is the one the judge wrote, within the scale: nothing clamped.
            assert vote.scores[metric] == written[metric]
            assert 1 <= written[metric] <= 5
        # A probability, or a word on why there is none or why it is doubtful.
        assert vote.probability is not None or vote.probability_note is not None
    assert any(v.probability is not None for v in votes if v.status is VoteStatus.VALID)
    (server,) = run.manifest["servers"]
    assert server.startswith(f"{JUROR}: llama-cpp-python 0.3.36 (found by GET /openapi.json)")
    assert "takes the schema as json_object + schema; 1 slot" in server


async def test_the_cache_keys_replies_by_the_server_and_the_format(
    jury_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    options: dict[str, Any] = {
        "jury": str(jury_file),
        "ids": JUDGED[:1],
        "cache_dir": str(tmp_path / "cache"),
    }
    first = await jury.run(EXAMPLE / "cases.jsonl", out=str(tmp_path / "a"), **options)
    again = await jury.run(EXAMPLE / "cases.jsonl", out=str(tmp_path / "b"), **options)
    (vote,), (cached,) = votes_of(first), votes_of(again)
    assert vote.calls.cache_hits == 0
    assert cached.calls.cache_hits >= 1
    assert cached.calls.attempts == 0  # no call: every reply came from the cache
    assert cached.raw == vote.raw
    # Another format is another request: not served from the first one's replies.
    monkeypatch.setenv("LOCAL_RESPONSE_FORMAT", "json_object")
    other = await jury.run(EXAMPLE / "cases.jsonl", out=str(tmp_path / "c"), **options)
    assert votes_of(other)[0].calls.cache_hits == 0


async def test_pairwise_asks_both_orders_keeps_both_replies_and_abstains_on_a_swap(
    pairwise_jury: Path, tmp_path: Path
) -> None:
    run = await jury.run(
        EXAMPLE / "pairwise.jsonl",
        jury=str(pairwise_jury),
        rubric="pairwise-preference",
        limit=2,
        out=str(tmp_path / "run"),
        no_cache=True,
    )
    assert run.exit_code != 2
    for vote in votes_of(run):
        assert vote.status is not VoteStatus.UNAVAILABLE
        if vote.status is VoteStatus.INVALID:
            continue
        assert sorted(vote.details["replies"]) == ["AB", "BA"]  # both orders' replies kept
        winners = {order: read(raw)["winner"] for order, raw in vote.details["replies"].items()}
        if vote.status is VoteStatus.ABSTAINED:
            assert vote.reason.startswith("position bias")
        else:
            # Agreeing orders name the same answer: "1" with A first is "2" with B first.
            assert (winners["AB"], winners["BA"]) in {("1", "2"), ("2", "1"), ("tie", "tie")}


async def test_the_server_reports_its_distribution_before_its_grammar(
    jury_file: Path,
) -> None:
    # At temperature 0 a server picks the most likely token that its grammar allows; the
    # log-probabilities it reports rank a token the grammar forbade above the one it took:
    # they are the model's distribution before the grammar, not the one sampled from.
    model = resolve_model(JUROR)
    schema = {
        "type": "object",
        "properties": {
            "relevance": {"type": "integer", "minimum": 1, "maximum": 5},
            "reason": {"type": "string"},
        },
        "required": ["relevance", "reason"],
        "additionalProperties": False,
    }
    request = JudgeRequest(
        system="You are a judge. Reply with JSON.",
        messages=(Message("user", "Question: Where is ORD-101? Answer: It shipped. Judge it."),),
        schema=schema,
        max_tokens=60,
        temperature=0.0,
        logprobs=True,
        text_limit=40,
    )
    try:
        await model.prepare()
        reply = await model.complete(request)
    finally:
        await model.aclose()
    assert reply.logprobs
    assert "".join(token.token for token in reply.logprobs) == reply.text
    assert skewed(reply.logprobs)


def test_ctrl_c_ends_a_run_on_the_real_server_within_two_seconds(
    jury_file: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    command = [sys.executable, "-m", "jury", "run", str(EXAMPLE / "cases.jsonl")]
    command += ["--jury", str(jury_file), "--out", str(run), "--no-cache", "--progress", "none"]
    process = subprocess.Popen(
        command,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # As a terminal delivers it: a background job's children inherit SIGINT ignored.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # noqa: PLW1509
    )
    try:
        deadline = time.monotonic() + 120
        # A judge call is under way once the first case reached the jury.
        while not (run / "verdicts.jsonl").exists() or not (run / "verdicts.jsonl").stat().st_size:
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=10)
        took = time.monotonic() - sent
    finally:
        process.kill()
    assert process.returncode == 130
    assert took < 2.0
    assert "--resume" in err
