"""A field's tokens are found by bisection over offsets found once a reply
(`jury.engine._soft.token_offsets`): the values read must be those a walk over every token
reads, for every field, whatever the tokens' lengths (empty ones included)."""

from __future__ import annotations

import math

from jury.adapters import TokenLogprob
from jury.engine._soft import field_spans, token_offsets, value_odds


def _tokens() -> tuple[TokenLogprob, ...]:
    pieces = [
        '{"',
        "score",
        '":',
        "",
        " 4",
        "",
        ', "pass',
        '": ',
        "tr",
        "ue",
        ', "w": "',
        "1",
        '"}',
    ]
    sure = -0.0001
    out = [TokenLogprob(p, sure, ((p, sure),)) for p in pieces]
    out[4] = TokenLogprob(" 4", math.log(0.6), ((" 4", math.log(0.6)), (" 5", math.log(0.4))))
    return tuple(out)


def test_every_field_reads_the_same_values_with_offsets_found_once() -> None:
    tokens = _tokens()
    text = "".join(t.token for t in tokens)
    spans = field_spans(text)
    assert spans is not None
    assert len(spans) == 3
    offsets = token_offsets(tokens)
    for span in spans.values():
        assert value_odds(text, tokens, span, offsets) == value_odds(text, tokens, span)
    found = value_odds(text, tokens, spans[("score",)], offsets)
    assert found is not None
    assert {k: round(p, 4) for k, (_, p) in found.items()} == {"4": 0.6, "5": 0.4}
    found = value_odds(text, tokens, spans[("pass",)], offsets)
    assert found is not None
    assert list(found) == ["true"]


def test_the_offsets_name_each_tokens_start_and_end() -> None:
    tokens = _tokens()
    starts, ends = token_offsets(tokens)
    text = "".join(t.token for t in tokens)
    assert [text[a:b] for a, b in zip(starts, ends, strict=True)] == [t.token for t in tokens]
