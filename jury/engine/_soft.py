"""Soft confidence: the probability of a juror's verdict, not just the verdict.

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
import operator
from collections.abc import Mapping, Sequence
from typing import Any

from .._errors import InvalidReply
from .._verdict import Ballot, Verdict
from ..adapters._request import TokenLogprob
from ..adapters._rubric import Prompt, Rubric
from ..cases._case import Case
from ..decide._learned import value_key
from ._spans import Path, Span, field_spans

__all__ = [
    "ABSTAINED",
    "Odds",
    "field_spans",
    "outcomes",
    "read_outcomes",
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


_TEXT = operator.attrgetter("token")
#: Where each token of a reply starts and ends in its text (two ascending lists).
Offsets = tuple[list[int], list[int]]


def token_offsets(tokens: Sequence[TokenLogprob]) -> Offsets:
    """Each token's start and end in the reply's text: found once a reply, so that a field's
    tokens are found by bisection rather than by a walk over every token for every field."""
    ends = list(itertools.accumulate(map(len, map(_TEXT, tokens))))
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
        if quoted:
            value: Any = literal
        elif literal.isascii() and literal.isdigit() and (literal[0] != "0" or len(literal) == 1):
            value = int(literal)  # what json.loads makes of it (a score), without the parser
        else:
            try:
                value = json.loads(literal)
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
    ballot: Ballot | None = None,
) -> list[tuple[Ballot, float]] | None:
    """The ballots the judge's reply might have been, each with its probability (summing to
    1), from the log-probabilities of its fields' values; None when none can be read.
    `ballot`: the rubric's read of `data`, when the caller has it (read here otherwise)."""
    read = read_outcomes(rubric, case, prompt, data, text, tokens, ballot, prune=False)
    return None if isinstance(read, str) else read


#: Below this share of its field's most likely value, an alternative is dropped when a reply
#: has too many combinations to read otherwise (five scores of five values each): what it
#: moves is under a thousandth of the field's mass, and the rest is renormalised.
_NEGLIGIBLE = 1e-3
#: Combinations read per prompt once negligible alternatives are dropped, at most: five
#: scores of five values each (3,125) fit.
_MOST_PRUNED = 4096


def read_outcomes(
    rubric: Rubric,
    case: Case,
    prompt: Prompt,
    data: Any,
    text: str,
    tokens: Sequence[TokenLogprob],
    ballot: Ballot | None = None,
    *,
    prune: bool = True,
) -> list[tuple[Ballot, float]] | str:
    """`outcomes`, or why there are none, in words a report can show. With `prune`, a reply
    with too many combinations of alternatives is read without its negligible ones.

    The tokens may spell more than the reply: a server that trims a markdown fence off the
    reply (llama.cpp's llama-server) keeps it in the tokens; the reply is then found inside
    them."""
    if not tokens:
        return "the reply came without log-probabilities"
    if not isinstance(data, Mapping):
        return "the reply is not a JSON object"
    spans = field_spans(text)
    if spans is None:
        return "the reply is not a JSON object"
    spelled = "".join(map(_TEXT, tokens))
    if spelled != text:
        at = spelled.find(text)
        if at < 0:
            return "the log-probabilities do not spell the reply"
        spans = {path: (start + at, end + at, q) for path, (start, end, q) in spans.items()}
        text = spelled
    choices: list[tuple[Path, list[tuple[Any, float]]]] = []
    read_any = False
    offsets = token_offsets(tokens)
    for path, span in spans.items():
        if _at(data, path) is _MISSING or not _closed(_schema_at(prompt.schema, path)):
            continue
        odds = value_odds(text, tokens, span, offsets)
        if odds is None:
            return "the log-probabilities do not cover the reply's values"
        read_any = True
        if len(odds) > 1:
            choices.append((path, list(odds.values())))
    if not read_any:
        return "the reply has no value of a few choices (a score, a flag) to weigh"
    combinations = math.prod(len(c) for _, c in choices)
    if combinations > _MOST:
        if not prune:
            return f"{combinations} combinations of alternative values: too many to read"
        choices = [(path, _likely(values)) for path, values in choices]
        choices = [(path, values) for path, values in choices if len(values) > 1]
        combinations = math.prod(len(c) for _, c in choices)
        if combinations > _MOST_PRUNED:
            return f"{combinations} likely combinations of alternative values: too many to read"
    base = rubric.read(case, prompt, data) if ballot is None else ballot
    if not choices:
        # The judge was sure of every value it wrote (the provider listed no alternative).
        return [(base, 1.0)]
    read = _variants(rubric, case, prompt, data, base, choices)
    total = sum(weight for _, weight in read)
    if total <= 0:
        return "no alternative the rubric accepts has any weight"
    return [(ballot, weight / total) for ballot, weight in read]


def _likely(values: list[tuple[Any, float]]) -> list[tuple[Any, float]]:
    """A field's values without those under `_NEGLIGIBLE` of its most likely one."""
    top = max(weight for _, weight in values)
    return [(value, weight) for value, weight in values if weight >= top * _NEGLIGIBLE]


#: One combination of alternative values on its way: the ballot read so far (None once the
#: rubric's shortcut could not tell, so that the whole variant is read at the end), its
#: weight, and the values it set.
_Partial = tuple[Ballot | None, float, tuple[tuple[Path, Any], ...]]


def _variants(
    rubric: Rubric,
    case: Case,
    prompt: Prompt,
    data: Any,
    base: Ballot,
    choices: Sequence[tuple[Path, list[tuple[Any, float]]]],
) -> list[tuple[Ballot, float]]:
    """Every combination of the fields' alternative values that the rubric reads as valid,
    with its weight, in `itertools.product` order. A field is read alone where the rubric
    can (`Rubric.read_value`): the reply is not validated again for each alternative, and a
    value invalid in its field drops every combination with it at once. Elsewhere the whole
    variant is read, as it always was. The weights multiply in the same order either way."""
    level: list[_Partial] = [(base, 1.0, ())]
    for path, values in choices:
        grown: list[_Partial] = []
        for ballot, weight, set_ in level:
            for value, probability in values:
                found = ballot
                if ballot is not None:
                    try:
                        found = rubric.read_value(case, prompt, ballot, path, value)
                    except InvalidReply:
                        continue
                grown.append((found, weight * probability, (*set_, (path, value))))
        level = grown
    read: list[tuple[Ballot, float]] = []
    for shortcut, weight, set_ in level:
        if shortcut is not None:
            read.append((shortcut, weight))
            continue
        variant: Any = data
        for path, value in set_:
            variant = _replaced(variant, path, value)
        try:
            read.append((rubric.read(case, prompt, variant), weight))
        except InvalidReply:
            continue
    return read


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
    rows: list[tuple[float, Mapping[str, Any]]] = []
    if len(per_prompt) == 1 and type(rubric).combine is Rubric.combine:
        # One prompt, combined by the base class (which returns its one ballot): each
        # ballot is its own combination, and `combine` is not called for each.
        ((_, ballots),) = per_prompt
        if len(ballots) > _MOST_PRUNED:
            return {}, {}
        for ballot, weight in ballots:
            key = str(rubric.verdict_of(case, ballot.scores).value)
            odds[key] = odds.get(key, 0.0) + weight
            rows.append((weight, ballot.scores))
    else:
        lists = [[(p, ballot, weight) for ballot, weight in found] for p, found in per_prompt]
        if math.prod(len(ballots) for ballots in lists) > _MOST_PRUNED:
            return {}, {}
        for combination in itertools.product(*lists):
            weight = math.prod(w for _, _, w in combination)
            combined = rubric.combine(case, [(p, b) for p, b, _ in combination])
            if isinstance(combined, str):
                odds[ABSTAINED] = odds.get(ABSTAINED, 0.0) + weight
                continue
            key = str(rubric.verdict_of(case, combined.scores).value)
            odds[key] = odds.get(key, 0.0) + weight
            rows.append((weight, combined.scores))
    values = _metric_mass(rows)
    total = sum(odds.values())
    if total <= 0:
        return {}, {}
    return {key: value / total for key, value in sorted(odds.items())}, _normalised(values)


def _metric_mass(rows: Sequence[tuple[float, Mapping[str, Any]]]) -> dict[str, dict[str, float]]:
    """Each metric's mass on each of its values (as a fit spells them) over the combined
    ballots `rows` (weight, scores), added in the rows' order. A metric that has one value
    in every row (a field the judge was sure of) has all the mass on it: summed at once."""
    spelt_of: dict[tuple[type, Any], str] = {}

    def spelt(value: Any) -> str:
        # Each value spelt once, keyed by its type too: True, 1 and 1.0 are equal keys, and
        # spelt "true", "1" and "1".
        typed = (value.__class__, value)
        found = spelt_of.get(typed)
        if found is None:
            found = spelt_of[typed] = value_key(value)
        return found

    values: dict[str, dict[str, float]] = {}
    for name in dict.fromkeys(itertools.chain.from_iterable(s for _, s in rows)):
        column = [scores.get(name, _MISSING) for _, scores in rows]
        first = column[0]
        # One value (equal, and of one type: True == 1 == 1.0 are spelt apart), told by
        # built-ins rather than a loop here.
        if column.count(first) == len(column) and len(set(map(type, column))) == 1:
            values[name] = {spelt(first): sum(weight for weight, _ in rows)}
            continue
        metric: dict[str, float] = {}
        for (weight, _), value in zip(rows, column, strict=True):
            if value is not _MISSING:
                key = spelt(value)
                metric[key] = metric.get(key, 0.0) + weight
        values[name] = metric
    return values


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
