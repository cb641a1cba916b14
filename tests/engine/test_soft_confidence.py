"""A vote's probability (issue 21, item 3), read by the vote layer: from the verdict tokens'
log-probabilities where the reply carries them, else from the share of the juror's samples;
kept by the call cache and the call key, and asked for by the jury file's ``logprobs``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from conftest import case, scores, scripted
from jury import Juror, Jury, Panel, load_panel
from jury.adapters import Endpoint, JudgeReply, JudgeRequest, Message, TokenLogprob, Usage
from jury.adapters._request import call_key
from jury.engine._cache import SqliteCache
from jury.engine._soft import field_spans, value_odds
from jury.testing import ScriptedModel


def tokens(*pieces: str | tuple[str, dict[str, float]]) -> tuple[TokenLogprob, ...]:
    """Tokens of a reply: text alone is near certain; (text, odds) is a token with its
    alternatives (the text itself among them)."""
    out = []
    for piece in pieces:
        if isinstance(piece, str):
            out.append(TokenLogprob(piece, -0.0001, ((piece, -0.0001),)))
        else:
            text, odds = piece
            top = tuple((t, math.log(p)) for t, p in odds.items())
            out.append(TokenLogprob(text, math.log(odds[text]), top))
    return tuple(out)


def test_the_value_of_a_field_is_found_in_the_reply_text() -> None:
    text = '{"reason": "a \\"quoted\\" word", "pass": true, "winner": "1"}'
    spans = field_spans(text)
    assert spans is not None
    start, end, quoted = spans[("pass",)]
    assert text[start:end] == "true"
    assert not quoted
    start, end, quoted = spans[("winner",)]
    assert text[start:end] == "1"
    assert quoted
    assert field_spans("not json") is None


def test_a_token_that_spans_the_quotes_gives_alternatives_without_them() -> None:
    text = '{"winner": "1"}'
    found = value_odds(
        text,
        tokens('{"', "winner", '":', (' "1"', {' "1"': 0.7, ' "2"': 0.2, " {": 0.1}), "}"),
        field_spans(text)[("winner",)],  # type: ignore[index]
    )
    assert found is not None
    assert {k: round(p, 4) for k, (_, p) in found.items()} == {"1": 0.7, "2": 0.2}


def test_tokens_that_do_not_spell_the_text_give_nothing() -> None:
    text = '{"pass": true}'
    assert value_odds(text, tokens('{"pass": false}'), field_spans(text)[("pass",)]) is None  # type: ignore[index]


def confident_scale(request: JudgeRequest) -> JudgeReply:
    """A five-metric reply whose correctness is 4 with probability 0.6, 3 with 0.4."""
    reply = scores(5, correctness=4)
    text = json.dumps(reply)
    head, _, tail = text.partition('"correctness": 4')
    pieces: list[str | tuple[str, dict[str, float]]] = [head, '"correctness":']
    pieces += [(" 4", {" 4": 0.6, " 3": 0.4}), tail]
    return JudgeReply(
        text=text, model="scripted/judge", usage=Usage(1, 1), logprobs=tokens(*pieces)
    )


async def test_a_scale_vote_carries_the_probability_of_its_verdict_through_the_threshold() -> None:
    model = ScriptedModel(confident_scale)
    panel = Panel(jurors=(Juror(model=model, logprobs=True),), rubric="five-metric")
    async with Jury(panel) as jury:
        verdict = await jury.judge(case())
    vote = verdict.votes[0]
    # Every metric passes at 4 or more: a 3 for correctness (0.4) fails the case.
    assert vote.verdict is not None
    assert vote.verdict.value == "PASS"
    assert vote.probability == pytest.approx(0.6)
    assert vote.distribution == pytest.approx({"PASS": 0.6, "FAIL": 0.4})
    assert model.requests[0].logprobs is True


async def test_without_logprobs_the_share_of_samples_is_the_probability() -> None:
    replies = [scores(5), scores(5), scores(2), scores(5)]
    model = scripted(replies, cycle=False)
    panel = Panel(jurors=(Juror(model=model, samples=4),), rubric="five-metric")
    async with Jury(panel) as jury:
        verdict = await jury.judge(case())
    vote = verdict.votes[0]
    assert vote.probability == pytest.approx(0.75)
    assert vote.distribution == pytest.approx({"PASS": 0.75, "FAIL": 0.25})
    assert vote.probability_from == "samples"


async def test_a_single_sample_without_logprobs_has_no_probability() -> None:
    panel = Panel(jurors=(Juror(model=scripted([scores(5)])),), rubric="five-metric")
    async with Jury(panel) as jury:
        vote = (await jury.judge(case())).votes[0]
    assert vote.probability is None
    assert vote.distribution is None


async def test_a_cached_reply_keeps_its_log_probabilities(tmp_path: Path) -> None:
    reply = JudgeReply(
        text='{"pass": true}',
        model="m",
        logprobs=tokens('{"pass":', (" true", {" true": 0.8, " false": 0.2}), "}"),
    )
    request = JudgeRequest("s", (Message("user", "u"),), {}, logprobs=True)
    with SqliteCache(tmp_path) as cache:
        await cache.put("k", "m", request, reply)
        assert await cache.get("k") == reply


def test_asking_for_logprobs_is_another_call_in_the_cache() -> None:
    # A reply cached without log-probabilities must not answer a call that asks for them.
    plain = JudgeRequest("s", (Message("user", "u"),), {})
    asking = JudgeRequest("s", (Message("user", "u"),), {}, logprobs=True)
    at = Endpoint("http://127.0.0.1:1/v1")
    assert call_key("m", plain, 0, endpoint=at) != call_key("m", asking, 0, endpoint=at)


def test_the_jury_file_asks_a_juror_for_logprobs(tmp_path: Path) -> None:
    jury_file = tmp_path / "jury.toml"
    jury_file.write_text(
        'rubric = "five-metric"\n'
        '[[jurors]]\nmodel = "openai/gpt-4.1-mini-2025-04-14"\nlogprobs = true\n'
        '[[jurors]]\nmodel = "google/gemini-3.5-flash-lite"\n'
    )
    panel = load_panel(jury_file)
    assert [j.logprobs for j in panel.jurors] == [True, False]
