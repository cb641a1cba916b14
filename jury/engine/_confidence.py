"""How sure a juror was: its vote's probability from its samples' log-probabilities (or the
share of its samples), and what is wrong with it when its juror asked for log-probabilities
and they were missing or doubtful (`jury.Vote.probability_note`); and the reply's schema with
the scores first, for a juror that asks so."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._verdict import Vote, VoteStatus
from ..adapters._request import TokenLogprob
from ._soft import ABSTAINED, Odds, sample_share, sample_values

__all__ = ["confident", "mean_odds", "probability_note", "scores_first", "skewed"]


def mean_odds(odds: Sequence[Mapping[str, float]]) -> dict[str, float]:
    if len(odds) == 1:  # one sample (the usual): its own, exactly what the sum over 1 gives
        return dict(sorted(odds[0].items()))
    keys = sorted({key for o in odds for key in o})
    return {k: sum(o.get(k, 0.0) for o in odds) / len(odds) for k in keys}


def confident(vote: Vote, odds: Sequence[Odds | None], samples: int) -> Vote:
    """The vote with the probability of its verdict: the mean of its samples' distributions
    read from log-probabilities when every sample has one, else the share of its samples
    (two or more) that reached each verdict."""
    if vote.status is not VoteStatus.VALID or vote.verdict is None:
        return vote
    if len(odds) == samples and all(o is not None for o in odds):
        mean = mean_odds([o[0] for o in odds if o is not None])
        names = sorted({name for o in odds if o is not None for name in o[1]})
        values = {n: mean_odds([o[1].get(n, {}) for o in odds if o is not None]) for n in names}
        source = "logprobs"
    elif len(vote.samples) > 1:
        mean, source = sample_share([b.verdict for b in vote.samples]), "samples"
        values = sample_values(vote.samples)
    else:
        return vote
    return vote.model_copy(
        update={
            "probability": mean.get(str(vote.verdict.value), 0.0),
            "distribution": mean,
            "value_distribution": values or None,
            "probability_from": source,
        }
    )


def skewed(tokens: Sequence[TokenLogprob]) -> bool:
    """Whether a greedy (temperature 0) reply took a token that its own log-probabilities
    rank below another: then they are not the distribution the reply was drawn from (a
    server that applies a grammar after them, as llama-cpp-python's does)."""
    return any(any(logprob > token.logprob + 1e-6 for _, logprob in token.top) for token in tokens)


def probability_note(vote: Vote, unread: str | None, skew: bool) -> str | None:
    """What is wrong with the probability of a valid vote whose juror asked for
    log-probabilities: missing (`unread`: why), or its own verdict less likely than another
    (`skew`: its replies took tokens their log-probabilities ranked below another)."""
    if vote.probability_from != "logprobs":
        why = unread or "its log-probabilities could not be read"
        if vote.probability is not None:
            return f"a probability from its samples, not its log-probabilities: {why}"
        return f"no probability: {why}"
    distribution = vote.distribution or {}
    own = vote.probability or 0.0
    above = {v: p for v, p in distribution.items() if p > own + 1e-9 and v != ABSTAINED}
    if not above:
        return None
    other, weight = max(above.items(), key=lambda item: item[1])
    why = (
        ": the server's log-probabilities are not those the reply was drawn from (at "
        "temperature 0 it took tokens they rank below another; a grammar applied after them)"
        if skew
        else ": each value it wrote was its most likely, but together they make a verdict "
        "it gave less weight than another"
    )
    return f"its verdict has probability {own:.2f}, below {other}'s {weight:.2f}{why}"


def scores_first(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with its free-text properties after the others (properties and ``required``
    both: the order a constrained decoder writes them in, and the call's cache key)."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return schema

    def text(name: str) -> bool:
        found = properties.get(name)
        return isinstance(found, dict) and found.get("type") == "string" and "enum" not in found

    order = sorted(properties, key=text)
    shaped = {**schema, "properties": {name: properties[name] for name in order}}
    if isinstance(schema.get("required"), list):
        shaped["required"] = sorted(schema["required"], key=text)
    return shaped
