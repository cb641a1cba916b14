"""Local servers as jurors (issue 32): what a compatible juror learns from its server before
its first call, the schema it sends, and the probabilities it reads, against the fake
playing each server as the real one answers (`jury.testing._compatible`, each rule cited).
"""

from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from jury import Case, Juror, JurorUnusable, Jury, Panel, Verdict, VoteStatus
from jury.adapters import JudgeRequest, Message, family_of
from jury.adapters._registry import resolve_model
from jury.adapters._request import call_key
from jury.cli import main
from jury.engine._cache import SqliteCache
from jury.panel._warnings import panel_warnings
from jury.testing import Confident, FakeClock, FakeProviderServer, Fault, valid_reply
from served import ServerThread

MODEL = "smollm2-135m"
JUROR = f"openai-api/local/{MODEL}"
CASE = Case(
    id="c1",
    question="Can I return a lamp after 20 days?",
    golden_answer="Yes: returns are accepted within 30 days.",
    answer="Yes, within 30 days of delivery.",
)
SCORES = {
    "relevance": 5,
    "correctness": 5,
    "faithfulness": 5,
    "helpfulness": 5,
    "hallucinationFree": 5,
}


def point(monkeypatch: pytest.MonkeyPatch, server: FakeProviderServer) -> None:
    monkeypatch.setenv("LOCAL_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("LOCAL_API_KEY", "x")
    monkeypatch.delenv("LOCAL_RESPONSE_FORMAT", raising=False)


def chats(server: FakeProviderServer) -> list[Any]:
    return [r for r in server.requests if r.path.endswith("/chat/completions")]


async def judged(juror: Juror, case: Case = CASE, **jury: Any) -> Any:
    async with Jury(Panel(jurors=(juror,)), clock=FakeClock(), **jury) as j:
        verdict = await j.judge(case)
        return verdict, j.learned


@pytest.mark.parametrize(
    ("server_kind", "sent", "said"),
    [
        ("llama-cpp-python", "json_object", "llama-cpp-python 0.3.36 (found by GET /openapi.json)"),
        ("llama-server", "json_schema", "llama-server b6000-fake (found by GET /props)"),
        ("ollama", "json_schema", "Ollama 0.13.0 (found by GET /api/version)"),
        ("vllm", "json_schema", "vLLM (found by GET /v1/models)"),
    ],
)
async def test_a_local_juror_takes_the_schema_the_way_its_server_does(
    monkeypatch: pytest.MonkeyPatch, server_kind: str, sent: str, said: str
) -> None:
    async with FakeProviderServer(compatible=server_kind, models=[MODEL]) as server:
        point(monkeypatch, server)
        verdict, learned = await judged(Juror(model=JUROR))
    (vote,) = verdict.votes
    assert vote.status is VoteStatus.VALID  # nothing refused, no variable set
    (request,) = chats(server)
    assert request.body["response_format"]["type"] == sent
    assert learned[0].startswith(f"{JUROR}: {said}")
    if sent == "json_object":
        # llama-cpp-python's dialect: the schema beside the type, held by its grammar.
        assert request.body["response_format"]["schema"]["required"][0] == "reason"


async def test_the_users_response_format_outranks_what_the_server_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with FakeProviderServer(compatible="llama-server", models=[MODEL]) as server:
        point(monkeypatch, server)
        monkeypatch.setenv("LOCAL_RESPONSE_FORMAT", "json_object")
        _, learned = await judged(Juror(model=JUROR))
    assert chats(server)[0].body["response_format"] == {"type": "json_object"}
    assert f"{JUROR}: response format json_object, as LOCAL_RESPONSE_FORMAT says" in learned[1]


async def test_scores_are_sent_as_enums_and_free_text_is_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with FakeProviderServer(compatible="llama-server", models=[MODEL]) as server:
        point(monkeypatch, server)
        await judged(Juror(model=JUROR))
        await judged(Juror(model=JUROR, reason_length=100))
    default, bounded = (r.body["response_format"]["json_schema"]["schema"] for r in chats(server))
    relevance = default["properties"]["relevance"]
    assert relevance["enum"] == [1, 2, 3, 4, 5]
    assert "minimum" not in relevance
    assert "maximum" not in relevance
    assert default["properties"]["reason"]["maxLength"] == 600
    assert bounded["properties"]["reason"]["maxLength"] == 100


async def test_an_out_of_range_score_a_grammar_let_through_is_still_invalid(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # llama-cpp-python let ``relevance: 1289476922222222`` through (issue 32): the engine
    # checks the rubric's own bounds, whatever the server was sent.
    async with FakeProviderServer(compatible="llama-cpp-python", models=[MODEL]) as server:
        point(monkeypatch, server)
        server.script(MODEL, {"reason": "ok", **SCORES, "relevance": 1289476922222222})
        verdict, _ = await judged(Juror(model=JUROR))
    (vote,) = verdict.votes
    assert vote.status is VoteStatus.INVALID
    assert "1289476922222222" in (vote.raw or "")


def test_a_reason_length_is_refused_for_a_hosted_model() -> None:
    with pytest.raises(ValueError, match=r"reason_length is not held by openai/gpt-4\.1"):
        Juror(model="openai/gpt-4.1-2025-04-14", reason_length=100)
    with pytest.raises(ValueError, match=r"pinned: anthropic/claude-haiku-5-5: only a local"):
        Juror(model="anthropic/claude-haiku-5-5", pinned="sha256:abc")


async def test_scores_first_sends_the_reason_last_and_keys_the_call_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with FakeProviderServer(compatible="vllm", models=[MODEL]) as server:
        point(monkeypatch, server)
        verdict, _ = await judged(Juror(model=JUROR, scores_first=True))
    assert verdict.votes[0].status is VoteStatus.VALID
    schema = chats(server)[0].body["response_format"]["json_schema"]["schema"]
    assert list(schema["properties"])[-1] == "reason"
    assert schema["required"][-1] == "reason"
    model = resolve_model(JUROR)
    first = {"type": "object", "properties": {"reason": {}, "x": {}}, "required": ["reason", "x"]}
    last = {**first, "required": ["x", "reason"]}
    keys = {
        call_key(JUROR, JudgeRequest("s", (Message("user", "u"),), s), 0, endpoint=model.endpoint)
        for s in (first, last)
    }
    assert len(keys) == 2


async def test_a_one_slot_server_gets_one_call_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    cases = [CASE.model_copy(update={"id": f"c{i}"}) for i in range(4)]
    async with FakeProviderServer(
        compatible="llama-cpp-python", models=[MODEL], latency=0.05
    ) as server:
        point(monkeypatch, server)
        async with Jury(Panel(jurors=(Juror(model=JUROR),), concurrency=4)) as j:
            [v async for v in j.evaluate(cases)]
    starts = sorted(r.received for r in chats(server))
    # Each call starts once the one before it was answered (50 ms each).
    assert all(b - a >= 0.045 for a, b in itertools.pairwise(starts))


async def test_the_case_deadline_stops_while_its_call_waits_for_the_one_slot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Issue 32 on a busy machine: sixty cases queued at a one-slot server, 50 ms a call, a
    # case deadline of 2 s. Judging a case takes 50 ms; the queue, 3 s at the least, is not
    # judging.
    cases = [CASE.model_copy(update={"id": f"c{i}"}) for i in range(60)]
    async with FakeProviderServer(
        compatible="llama-cpp-python", models=[MODEL], latency=0.05
    ) as server:
        point(monkeypatch, server)
        panel = Panel(jurors=(Juror(model=JUROR),), concurrency=60, case_timeout=2.0)
        async with Jury(panel) as j:
            verdicts = [v async for v in j.evaluate(cases)]
    starts = sorted(r.received for r in chats(server))
    assert starts[-1] - starts[0] > 2.0  # the last case waited longer than its deadline
    assert [v.votes[0].status for v in verdicts] == [VoteStatus.VALID] * 60
    # The latency is the server's, not the queue's.
    assert max(v.votes[0].calls.latency_s for v in verdicts) < 2.0


async def test_a_case_still_runs_out_of_time_when_its_own_call_is_slow(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with FakeProviderServer(
        compatible="llama-cpp-python", models=[MODEL], latency=0.6
    ) as server:
        point(monkeypatch, server)
        panel = Panel(jurors=(Juror(model=JUROR),), case_timeout=0.3)
        async with Jury(panel) as j:
            verdict = await j.judge(CASE)
    (vote,) = verdict.votes
    assert vote.status is VoteStatus.UNAVAILABLE
    assert "ran out of time (0.3s)" in (vote.error or "")


async def test_a_server_that_says_its_slots_gets_that_many_calls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cases = [CASE.model_copy(update={"id": f"c{i}"}) for i in range(6)]
    async with FakeProviderServer(
        compatible="llama-server", models=[MODEL], latency=0.2, slots=3
    ) as server:
        point(monkeypatch, server)
        async with Jury(Panel(jurors=(Juror(model=JUROR),), concurrency=6)) as j:
            [v async for v in j.evaluate(cases)]
            (line,) = j.learned
    assert "3 slots" in line
    starts = sorted(r.received for r in chats(server))
    # Three at once, then the next three once those were answered.
    assert starts[2] - starts[0] < 0.15
    assert starts[3] - starts[0] >= 0.18


async def test_a_pinned_file_the_server_does_not_serve_stops_before_any_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with FakeProviderServer(compatible="ollama", models=[MODEL]) as server:
        point(monkeypatch, server)
        _, learned = await judged(Juror(model=JUROR))
        digest = learned[0].split("model file ")[1].split(" ")[0]
        assert digest.startswith("sha256:")
        verdict, _ = await judged(Juror(model=JUROR, pinned=digest))
        assert verdict.votes[0].status is VoteStatus.VALID
        server.requests.clear()
        with pytest.raises(JurorUnusable, match="the jury file pins sha256:0000"):
            await judged(Juror(model=JUROR, pinned="sha256:0000"))
    assert chats(server) == []


async def test_a_cached_reply_is_not_served_for_another_server_at_the_same_address(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The bug of issue 31 again, between two local servers: llama-server answered, then
    # llama-cpp-python took its port. Their replies are keyed by what each said it is.
    cache = SqliteCache(tmp_path)
    async with FakeProviderServer(compatible="llama-server", models=[MODEL], mark=False) as first:
        port = int(first.url.rsplit(":", 1)[1])
        point(monkeypatch, first)
        await judged(Juror(model=JUROR), cache=cache)
        await judged(Juror(model=JUROR), cache=cache)
        assert len(chats(first)) == 1  # the second run is served by the cache
    async with FakeProviderServer(
        compatible="llama-cpp-python", models=[MODEL], mark=False, port=port
    ) as second:
        point(monkeypatch, second)
        verdict, _ = await judged(Juror(model=JUROR), cache=cache)
    assert len(chats(second)) == 1
    assert verdict.votes[0].calls.cache_hits == 0
    cache.close()


async def test_a_model_runtime_bills_nothing_and_is_priced_zero_from_its_first_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Issue 32: a fresh call showed "?" and the same from the cache "$0.0000". A server that
    # says it is a runtime (here llama-server, by GET /props) is priced $0 on every call; an
    # unrecognised compatible service stays unknown (test_provider_runs.py).
    async with FakeProviderServer(compatible="llama-server", models=[MODEL], mark=False) as server:
        point(monkeypatch, server)
        verdict, _ = await judged(Juror(model=JUROR))
    (vote,) = verdict.votes
    assert vote.status is VoteStatus.VALID
    assert vote.calls.cost == 0.0


async def test_a_raw_line_break_in_the_reason_is_read_as_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = '{"reason": "first line\nsecond line", ' + json.dumps(SCORES)[1:]
    async with FakeProviderServer(compatible="llama-cpp-python", models=[MODEL]) as server:
        point(monkeypatch, server)
        server.script(MODEL, text)
        verdict, _ = await judged(Juror(model=JUROR))
    (vote,) = verdict.votes
    assert vote.status is VoteStatus.VALID
    assert vote.reason == "first line\nsecond line"


async def test_a_fence_trimmed_off_the_reply_but_not_its_tokens_still_gives_a_probability(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reply = json.dumps({"reason": "fine", **SCORES})
    async with FakeProviderServer(compatible="llama-server", models=[MODEL]) as server:
        point(monkeypatch, server)
        server.script(MODEL, f"```json\n{reply}\n```")
        verdict, _ = await judged(Juror(model=JUROR, logprobs=True))
    body = chats(server)[0]
    assert body.status == 200
    (vote,) = verdict.votes
    assert vote.raw == reply  # the server trimmed the fence off the content
    assert vote.probability is not None
    assert vote.probability_note is None


async def test_five_uncertain_scores_still_give_a_probability(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 5 x 5 alternatives: 3,125 combinations, as SmolLM2 gave on 2026-12-04.
    odds = {m: {"5": 0.4, "4": 0.3, "3": 0.2, "2": 0.06, "1": 0.04} for m in SCORES}
    async with FakeProviderServer(compatible="llama-server", models=[MODEL]) as server:
        point(monkeypatch, server)
        server.script(MODEL, Confident({"reason": "ok", **SCORES}, odds))
        verdict, _ = await judged(Juror(model=JUROR, logprobs=True))
    (vote,) = verdict.votes
    # PASS needs every score at 4 or 5: 0.7 ** 5 under the judge's own odds.
    assert vote.probability == pytest.approx(0.7**5)
    # Each 5 was the likeliest value, yet FAIL is the likelier verdict: said, and why.
    assert vote.probability_note is not None
    assert vote.probability_note.startswith("its verdict has probability 0.17, below FAIL's")
    assert "each value it wrote was its most likely" in vote.probability_note


async def test_a_probability_below_another_verdicts_is_flagged_and_explained(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # At temperature 0 the judge wrote 5 where its log-probabilities rank 1 first: they are
    # not the distribution it was drawn from (llama-cpp-python reports the distribution
    # before its grammar: see tests/local_server).
    odds = {"relevance": {"5": 0.3, "1": 0.7}}
    async with FakeProviderServer(compatible="llama-cpp-python", models=[MODEL]) as server:
        point(monkeypatch, server)
        server.script(MODEL, Confident({"reason": "ok", **SCORES}, odds))
        verdict, _ = await judged(Juror(model=JUROR, logprobs=True))
    (vote,) = verdict.votes
    assert vote.verdict is Verdict.PASS
    assert vote.probability == pytest.approx(0.3)
    assert vote.probability_note is not None
    assert vote.probability_note.startswith("its verdict has probability 0.30, below FAIL's 0.70")
    assert "not those the reply was drawn from" in vote.probability_note


def test_a_server_that_sends_no_log_probabilities_is_said_in_every_report(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    thread = ServerThread(compatible="llama-server", models=[MODEL])
    try:
        point(monkeypatch, thread.server)
        # A server that ignores ``logprobs`` (Ollama before 0.12.11) answers without them.
        thread.server.script(MODEL, _without_logprobs)
        jury_file = tmp_path / "jury.toml"
        jury_file.write_text(f'[[juror]]\nmodel = "{JUROR}"\nlogprobs = true\n')
        cases = tmp_path / "cases.jsonl"
        cases.write_text(CASE.model_dump_json(exclude_defaults=True) + "\n")
        run = tmp_path / "run"
        code = main(["run", str(cases), "--jury", str(jury_file), "--out", str(run), "--no-cache"])
    finally:
        thread.stop()
    assert code in (0, 1)
    out = capsys.readouterr().out
    line = f"{JUROR}: logprobs = true, but 1 of 1 valid vote(s) have no probability"
    assert line in out
    assert "no probability: the server sent no log-probabilities x1" in out
    summary = json.loads((run / "summary.json").read_text())
    notes = summary["jurors"][JUROR]["probability_notes"]
    assert notes == {"no probability: the server sent no log-probabilities": 1}
    assert line in (run / "report.html").read_text()
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["servers"][0].startswith(f"{JUROR}: llama-server")


def _without_logprobs(request: Any) -> dict[str, Any]:
    request.body.pop("logprobs", None)
    request.body.pop("top_logprobs", None)
    return valid_reply(request.schema)


def test_a_local_servers_family_is_named_by_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LOCAL_FAMILY", raising=False)
    assert family_of(JUROR) == "huggingface"  # SmolLM's makers, from its name
    monkeypatch.setenv("LOCAL_FAMILY", "Meta")
    assert family_of(JUROR) == "meta"
    assert family_of("ollama/qwen3:8b") == "qwen"


def test_the_grammar_shape_leaves_a_wide_range_and_a_fixed_string_alone() -> None:
    from jury.providers._grammar import MAX_ENUM, grammar_schema

    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "score": {"type": "integer", "minimum": 0, "maximum": MAX_ENUM},
            "winner": {"type": "string", "enum": ["1", "2"]},
        },
    }
    shaped = grammar_schema(schema, 50)
    assert shaped["properties"]["score"] == schema["properties"]["score"]
    assert shaped["properties"]["winner"] == schema["properties"]["winner"]


def test_a_local_juror_is_warned_to_pin_its_file_unless_it_is_pinned() -> None:
    unpinned = panel_warnings(Panel(jurors=(Juror(model=JUROR),)))
    assert unpinned == [
        f"{JUROR}: local/{MODEL} is only what its server calls a model file, which it can "
        'serve another under; pin the file with `pinned = "..."` on the juror (`jury doctor` '
        "shows what the server reports)"
    ]
    assert panel_warnings(Panel(jurors=(Juror(model=JUROR, pinned="sha256:ab"),))) == []


async def test_a_local_servers_calls_cost_nothing_and_a_hosted_ones_are_unknown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with FakeProviderServer(compatible="vllm", models=[MODEL], mark=False) as server:
        point(monkeypatch, server)
        verdict, _ = await judged(Juror(model=JUROR))
        assert verdict.votes[0].calls.cost == 0.0
        monkeypatch.setenv("LOCAL_BASE_URL", "https://api.example.com/v1")
        hosted = resolve_model(JUROR)
        assert hosted.price(_reply()) is None


def _reply() -> Any:
    from jury.adapters import JudgeReply, Usage

    return JudgeReply(text="{}", model=MODEL, usage=Usage(10, 10))


async def test_calls_that_overflow_a_shared_context_stop_the_run_with_both_ways_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # llama-server's slots share one context: four 1,450-token prompts overflow 4,096 tokens
    # ("Context size has been exceeded.", HTTP 500, as it answered on 2026-12-04).
    async with FakeProviderServer(compatible="llama-server", models=[MODEL], slots=4) as server:
        point(monkeypatch, server)
        server.inject(Fault.http(500, message="Context size has been exceeded."), times=None)
        with pytest.raises(JurorUnusable) as stopped:
            await judged(Juror(model=JUROR))
    assert "HTTP 500: Context size has been exceeded." in str(stopped.value)
    assert "llama-server -c" in stopped.value.fix
    assert '[providers."openai-api/local"] concurrency = 1' in stopped.value.fix


async def test_a_discovery_cut_by_a_deadline_is_the_deadline_not_a_silent_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # aiohttp can raise its own connection error for a cancellation that lands while it
    # connects: taken for a server that said nothing, the first call then went out in the
    # default dialect, was refused, and stopped the run (seen once under load in the suite).
    import aiohttp

    from jury.providers import _servers

    async def swallowing(*_: object) -> None:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            raise aiohttp.ClientConnectionError("connection cancelled") from None

    monkeypatch.setattr(_servers, "_ask", swallowing)
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.05):
            await _servers.discover("http://127.0.0.1:9/v1", MODEL, {})
