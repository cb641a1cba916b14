"""`jury/engine/_soft.py` as it was at 20b9350, before its reads were made cheaper (polish21),
kept below this note as it was (its relative imports made absolute) so that
`test_soft_pinned.py` can compare the new reader against it, probability for probability.
Not imported by the package.

Soft confidence: the probability of a juror's verdict, not just the verdict.

Where the provider gave the reply's token log-probabilities (`JudgeReply.logprobs`), the
value of each field of the structured reply (``"pass": true``, ``"winner": "1"``, a score) is
found in the reply text, the tokens that spell it are summed (log-probabilities add along a
sequence), and the alternatives the provider listed at its first token give the other values
the judge might have written. Each alternative reply is read by the rubric itself, so the
distribution is over what the rubric makes of it (a pairwise "1" in the B-first order is B),
then over the verdict the rubric decides, through `Rubric.combine` for rubrics that ask more
than one prompt (both pairwise orders: an alternative pair whose orders disagree abstains).

An alternative is exact for a value of one token (the usual case: ``true``, ``4``, ``"1"``);
for a longer value the rest of its tokens are taken as the judge wrote them. Alternatives the
rubric refuses (out of the schema) are dropped and the rest renormalised: under strict
structured outputs the provider could not have sampled them. Fields inside arrays (per-point
answers) are not read; a reply with nothing readable gives no distribution.

Where there are no log-probabilities, a juror sampled several times (``samples = N``) gives
the share of its samples that reached each verdict (Wang et al.'s self-consistency).
"""

from __future__ import annotations

import bisect
import itertools
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from jury._errors import InvalidReply
from jury._verdict import Ballot, Verdict
from jury.adapters._request import TokenLogprob
from jury.adapters._rubric import Prompt, Rubric
from jury.cases._case import Case
from jury.decide._learned import value_key

__all__ = [
    "ABSTAINED",
    "Odds",
    "field_spans",
    "outcomes",
    "sample_share",
    "sample_values",
    "soft_odds",
    "token_offsets",
    "value_odds",
    "verdict_odds",
]

#: The key of the mass of alternative replies that make the juror abstain.
ABSTAINED = "abstained"
#: Combinations of alternative values read per prompt, at most (fields x alternatives).
_MOST = 256
_WHITE = " \t\n\r"
_DECODER = json.JSONDecoder()


#: Where a field's value is in the reply text: (start, end, is_string), the span inside the
#: quotes for a string.
Span = tuple[int, int, bool]
#: A field by its keys from the top of the reply ("points", "p1", "verdict").
Path = tuple[str, ...]


def field_spans(text: str) -> dict[Path, Span] | None:
    """Where each field's value is in a JSON object's text, objects inside it included
    (a points rubric's per-point answers), by path. None when the text is not one JSON
    object."""
    spans: dict[Path, Span] = {}
    at = len(text) - len(text.lstrip(_WHITE))
    try:
        _object(text, at, (), spans)
    except (ValueError, TypeError, IndexError):
        return None
    return spans


def _object(text: str, at: int, path: Path, spans: dict[Path, Span]) -> int:
    """Read the object at `at` (its fields' spans into `spans`); the index after it."""
    if text[at] != "{":
        raise ValueError("not an object")
    at += 1
    while True:
        while text[at] in _WHITE + ",":
            at += 1
        if text[at] == "}":
            return at + 1
        key, at = _DECODER.raw_decode(text, at)
        if not isinstance(key, str):
            raise TypeError("a key is not a string")
        while text[at] in _WHITE:
            at += 1
        if text[at] != ":":
            raise ValueError("no colon")
        at += 1
        while text[at] in _WHITE:
            at += 1
        if text[at] == "{":
            at = _object(text, at, (*path, key), spans)
            continue
        _, end = _DECODER.raw_decode(text, at)
        quoted = text[at] == '"'
        spans[(*path, key)] = (at + 1, end - 1, True) if quoted else (at, end, False)
        at = end


#: Where each token of a reply starts and ends in its text (two ascending lists).
Offsets = tuple[list[int], list[int]]


def token_offsets(tokens: Sequence[TokenLogprob]) -> Offsets:
    """Each token's start and end in the reply's text: found once a reply, so that a field's
    tokens are found by bisection rather than by a walk over every token for every field."""
    ends = list(itertools.accumulate(len(token.token) for token in tokens))
    return [0, *ends[:-1]], ends


def value_odds(
    text: str, tokens: Sequence[TokenLogprob], span: Span, offsets: Offsets | None = None
) -> dict[str, tuple[Any, float]] | None:
    """The values the judge might have written in `span`, as ``literal -> (value,
    probability)`` (not normalised), the written one included. None when the tokens do not
    spell the text or cover the span. `offsets`: `token_offsets(tokens)`, given when several
    fields of one reply are read."""
    start, end, quoted = span
    starts, ends = offsets or token_offsets(tokens)
    if not ends or ends[-1] != len(text) or end <= start:
        return None
    # The tokens that cover the span: from the first that ends after its start to the last
    # that starts before its end (both lists ascend).
    first, last = bisect.bisect_right(ends, start), bisect.bisect_left(starts, end) - 1
    if first > last:
        return None
    rest = sum(tokens[i].logprob for i in range(first + 1, last + 1))
    odds: dict[str, tuple[Any, float]] = {}

    def add(literal: str, logprob: float) -> None:
        try:
            value = literal if quoted else json.loads(literal)
        except ValueError:
            return
        if quoted and ('"' in literal or "\\" in literal):
            return
        known = odds.get(literal)
        odds[literal] = (value, (known[1] if known else 0.0) + math.exp(logprob))

    add(text[start:end], tokens[first].logprob + rest)
    a, b = starts[first], ends[first]
    before = text[a:start]
    after = text[end:b] if first == last else ""
    tail = "" if first == last else text[b:end]
    for alternative, logprob in tokens[first].top:
        if alternative == tokens[first].token or not alternative.startswith(before):
            continue
        core = alternative[len(before) :]
        if after:
            if not core.endswith(after):
                continue
            core = core[: len(core) - len(after)]
        if core:
            add(core + tail, logprob + rest)
    return odds


def outcomes(
    rubric: Rubric,
    case: Case,
    prompt: Prompt,
    data: Any,
    text: str,
    tokens: Sequence[TokenLogprob],
) -> list[tuple[Ballot, float]] | None:
    """The ballots the judge's reply might have been, each with its probability (summing to
    1), from the log-probabilities of its fields' values; None when none can be read."""
    spans = field_spans(text)
    if spans is None or not isinstance(data, Mapping) or not tokens:
        return None
    choices: list[tuple[Path, list[tuple[Any, float]]]] = []
    read_any = False
    offsets = token_offsets(tokens)
    for path, span in spans.items():
        if _at(data, path) is _MISSING or not _closed(_schema_at(prompt.schema, path)):
            continue
        odds = value_odds(text, tokens, span, offsets)
        if odds is None:
            return None  # the tokens do not spell the reply: nothing can be read
        read_any = True
        if len(odds) > 1:
            choices.append((path, list(odds.values())))
    if not read_any:
        return None  # no value of a few choices: nothing a verdict's probability rests on
    if math.prod(len(c) for _, c in choices) > _MOST:
        return None  # too many combinations to read each: no distribution rather than a cut one
    if not choices:
        # The judge was sure of every value it wrote (the provider listed no alternative).
        return [(rubric.read(case, prompt, data), 1.0)]
    read: list[tuple[Ballot, float]] = []
    for combination in itertools.product(*(c for _, c in choices)):
        variant: Any = data
        weight = 1.0
        for (path, _), (value, probability) in zip(choices, combination, strict=True):
            variant = _replaced(variant, path, value)
            weight *= probability
        try:
            read.append((rubric.read(case, prompt, variant), weight))
        except InvalidReply:
            continue
    total = sum(weight for _, weight in read)
    if total <= 0:
        return None
    return [(ballot, weight / total) for ballot, weight in read]


_MISSING = object()


def _at(data: Any, path: Path) -> Any:
    for key in path:
        if not isinstance(data, Mapping) or key not in data:
            return _MISSING
        data = data[key]
    return data


def _replaced(data: Any, path: Path, value: Any) -> Any:
    """A copy of `data` with the field at `path` set to `value` (the rest shared)."""
    head, *rest = path
    copy = dict(data)
    copy[head] = _replaced(data[head], tuple(rest), value) if rest else value
    return copy


def _schema_at(schema: Any, path: Path) -> Any:
    for key in path:
        if not isinstance(schema, Mapping):
            return None
        schema = (schema.get("properties") or {}).get(key)
    return schema


def _closed(schema: Any) -> bool:
    """Whether a field takes one of a few values (a flag, a number, an enum), whose
    alternatives mean something; free text (the reason) does not."""
    if not isinstance(schema, Mapping):
        return False
    return "enum" in schema or schema.get("type") in ("boolean", "integer", "number")


def verdict_odds(
    rubric: Rubric, case: Case, per_prompt: Sequence[tuple[Prompt, list[tuple[Ballot, float]]]]
) -> dict[str, float]:
    """The distribution over the juror's verdict (and `ABSTAINED`) that the prompts' possible
    ballots give, combined by the rubric as the real ones are."""
    return soft_odds(rubric, case, per_prompt)[0]


#: A verdict's distribution, and each metric's over its values.
Odds = tuple[dict[str, float], dict[str, dict[str, float]]]


def soft_odds(
    rubric: Rubric, case: Case, per_prompt: Sequence[tuple[Prompt, list[tuple[Ballot, float]]]]
) -> Odds:
    """`verdict_odds`, and each metric's distribution over its values (as a fit spells
    them) from the same combined ballots: an alternative that abstains gives no metric a
    value, so each metric's is over the mass that gave it one (issue 21)."""
    odds: dict[str, float] = {}
    values: dict[str, dict[str, float]] = {}
    lists = [
        [(prompt, ballot, weight) for ballot, weight in ballots] for prompt, ballots in per_prompt
    ]
    if math.prod(len(ballots) for ballots in lists) > _MOST:
        return {}, {}
    for combination in itertools.product(*lists):
        weight = math.prod(w for _, _, w in combination)
        combined = rubric.combine(case, [(p, b) for p, b, _ in combination])
        if isinstance(combined, str):
            key = ABSTAINED
        else:
            key = str(rubric.verdict_of(case, combined.scores).value)
            for name, value in combined.scores.items():
                spelt = value_key(value)
                metric = values.setdefault(name, {})
                metric[spelt] = metric.get(spelt, 0.0) + weight
        odds[key] = odds.get(key, 0.0) + weight
    total = sum(odds.values())
    if total <= 0:
        return {}, {}
    return {key: value / total for key, value in sorted(odds.items())}, _normalised(values)


def _normalised(values: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
    out = {}
    for name, odds in sorted(values.items()):
        total = sum(odds.values())
        if total > 0:
            out[name] = {value: p / total for value, p in sorted(odds.items())}
    return out


def sample_values(ballots: Sequence[Ballot]) -> dict[str, dict[str, float]]:
    """The share of a juror's samples that gave each metric each value."""
    counted: dict[str, dict[str, float]] = {}
    for ballot in ballots:
        for name, value in ballot.scores.items():
            spelt = value_key(value)
            metric = counted.setdefault(name, {})
            metric[spelt] = metric.get(spelt, 0.0) + 1.0
    return _normalised(counted)


def sample_share(verdicts: Sequence[Verdict | None]) -> dict[str, float]:
    """The share of a juror's samples that reached each verdict."""
    counted: dict[str, float] = {}
    for verdict in verdicts:
        key = ABSTAINED if verdict is None else str(verdict.value)
        counted[key] = counted.get(key, 0.0) + 1.0
    return {key: n / len(verdicts) for key, n in sorted(counted.items())}
