"""The probabilities a vote's soft confidence reads are pinned: the reader made cheaper
(polish21: a rubric's `read_value` shortcut, fewer parses) gives, on a few hundred seeded
replies of every built-in rubric kind, exactly the ballots, weights and distributions the
reader of 20b9350 gave (`soft_before`, kept beside this file), not numbers written here."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
import soft_before

from jury import Case, load_rubric
from jury.adapters import InvalidReply, Rubric, TokenLogprob
from jury.engine._soft import outcomes, soft_odds
from jury.testing._logprobs import tokens_of

CASE = Case(
    id="c",
    question="q?",
    answer="a.",
    answer_b="b.",
    golden_answer="a.",
    context=["e"],
    points=({"id": "p1", "says": "x"}, {"id": "p2", "says": "y", "need": "penalty"}),
)
#: What a judge might have written in a field besides its value, in and out of the schema.
NUMBERS = ["1", "2", "3", "4", "5", "0", "6", "9", "4.5", "true", "null", '"4"']
WINNERS = ['"1"', '"2"', '"tie"', '"3"', "1", "null"]
FLAGS = ["true", "false", "null", "1", '"true"']
VERDICTS = ['"yes"', '"no"', '"cant_tell"', '"maybe"']


def odds_of(rng: random.Random, written: str, others: list[str]) -> dict[str, float]:
    """Up to five values with random probabilities, the written one among them (mostly)."""
    chosen = rng.sample(others, k=rng.randint(1, min(5, len(others))))
    if written not in chosen and rng.random() < 0.9:
        chosen[0] = written
    weights = [rng.random() + 0.01 for _ in chosen]
    total = sum(weights) * (1 + rng.random() * 0.2)  # some mass left to values not listed
    # The fake's odds spell a string's letters without its quotes.
    return {value.strip('"'): w / total for value, w in zip(chosen, weights, strict=True)}


#: A field's values as the fake spells them, with their probabilities.
Odds = dict[str, dict[str, float]]


def reply_of(rng: random.Random, rubric: Rubric, key: str) -> tuple[dict[str, Any], Odds]:
    """A valid reply to the rubric's prompt `key`, and the odds of some of its fields."""
    if rubric.kind == "scale":
        metrics = [m.name for m in rubric.metrics(CASE)]
        reply: dict[str, Any] = {"reason": "fine"}
        low, high = rubric.low, rubric.high  # type: ignore[attr-defined]
        reply.update({name: rng.randint(low, high) for name in metrics})
        varied = rng.sample(metrics, k=rng.randint(1, min(3, len(metrics))))
        return reply, {n: odds_of(rng, str(reply[n]), NUMBERS) for n in varied}
    if rubric.kind == "criterion":
        reply = {"reason": "fine", "pass": rng.random() < 0.5}
        return reply, {"pass": odds_of(rng, json.dumps(reply["pass"]), FLAGS)}
    if rubric.kind == "pairwise":
        reply = {"reason": "fine", "winner": rng.choice(["1", "2", "tie"])}
        return reply, {"winner": odds_of(rng, f'"{reply["winner"]}"', WINNERS)}
    verdicts = {p: rng.choice(["yes", "no", "cant_tell"]) for p in ("1", "2")}
    reply = {
        "points": {p: {"verdict": v, "quotes": [], "reason": "r"} for p, v in verdicts.items()}
    }
    return reply, {"verdict": odds_of(rng, f'"{verdicts["1"]}"', VERDICTS)}


@pytest.mark.parametrize(
    "name", ["five-metric", "toxicity", "grounded-answer", "pairwise-preference", "shopnest-points"]
)
def test_the_cheaper_reader_gives_exactly_the_probabilities_the_old_one_gave(name: str) -> None:
    rubric = load_rubric(name)
    rng = random.Random(name)
    prompts = rubric.prompts(CASE)
    read_some = 0
    for _ in range(150):
        new: list[Any] = []
        old: list[Any] = []
        for prompt in prompts:
            reply, odds = reply_of(rng, rubric, prompt.key)
            text = json.dumps(reply, separators=(",", ":") if rng.random() < 0.5 else None)
            tokens = tuple(TokenLogprob(t.text, t.logprob, t.top) for t in tokens_of(text, odds, 5))
            data = json.loads(text)
            after = outcomes(rubric, CASE, prompt, data, text, tokens)
            before = soft_before.outcomes(rubric, CASE, prompt, data, text, tokens)
            assert after == before  # the same ballots, in the same order, of the same weights
            if after is not None:
                new.append((prompt, after))
                old.append((prompt, before))
        if len(new) == len(prompts):
            read_some += 1
            assert soft_odds(rubric, CASE, new) == soft_before.soft_odds(rubric, CASE, old)
    assert read_some > 100  # most replies were read: the comparison is not of two Nones


def test_a_scale_reply_with_an_abstained_metric_is_read_as_before() -> None:
    rubric = load_rubric("five-metric")
    (prompt,) = rubric.prompts(CASE)
    reply = {
        "reason": "no golden answer",
        "relevance": 4,
        "correctness": None,
        "faithfulness": 3,
        "helpfulness": 5,
        "hallucinationFree": 2,
        "not_measured": ["correctness"],
    }
    text = json.dumps(reply)
    odds = {"relevance": {"4": 0.5, "2": 0.3, "7": 0.1}, "faithfulness": {"3": 0.6, "4": 0.4}}
    tokens = tuple(TokenLogprob(t.text, t.logprob, t.top) for t in tokens_of(text, odds, 5))
    after = outcomes(rubric, CASE, prompt, reply, text, tokens)
    assert after is not None
    assert after == soft_before.outcomes(rubric, CASE, prompt, reply, text, tokens)
    assert all("correctness" not in ballot.scores for ballot, _ in after)
    pinned = soft_before.soft_odds(rubric, CASE, [(prompt, after)])
    assert soft_odds(rubric, CASE, [(prompt, after)]) == pinned


def test_the_scale_rubrics_shortcut_reads_a_value_as_reading_the_whole_reply_does() -> None:
    rubric = load_rubric("five-metric")
    (prompt,) = rubric.prompts(CASE)
    data = {"reason": "fine", **{m.name: 4 for m in rubric.metrics(CASE)}}
    base = rubric.read(CASE, prompt, data)
    for value in [1, 3, 5, 0, 6, 4.0, 4.5, True, False, "4", None, [4], {"v": 4}]:
        try:
            whole: Any = rubric.read(CASE, prompt, {**data, "correctness": value})
        except InvalidReply:
            whole = InvalidReply
        try:
            alone: Any = rubric.read_value(CASE, prompt, base, ("correctness",), value)
        except InvalidReply:
            alone = InvalidReply
        # None: the shortcut leaves the value to `read` (a null may be an abstention).
        assert alone in (whole, None), value
        assert (alone is None) == (value is None)


def test_a_scale_reply_is_not_validated_again_for_each_alternative(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rubric = load_rubric("five-metric")
    (prompt,) = rubric.prompts(CASE)
    reply = {"reason": "fine", **{m.name: 4 for m in rubric.metrics(CASE)}}
    text = json.dumps(reply)
    odds = {"correctness": {"4": 0.5, "5": 0.3, "3": 0.2}, "relevance": {"4": 0.6, "2": 0.4}}
    tokens = tuple(TokenLogprob(t.text, t.logprob, t.top) for t in tokens_of(text, odds, 5))
    base = rubric.read(CASE, prompt, reply)
    reads: list[Any] = []
    whole = rubric.read

    def counted(*args: Any) -> Any:
        reads.append(args)
        return whole(*args)

    monkeypatch.setattr(rubric, "read", counted)
    found = outcomes(rubric, CASE, prompt, reply, text, tokens, base)
    assert found is not None
    assert len(found) == 6  # every combination of the two fields' values, each read
    assert reads == []
