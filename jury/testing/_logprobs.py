"""Token log-probabilities, as the fake server makes them up.

A reply's text is cut into tokens the way a BPE tokenizer roughly does (leading spaces kept
on the token, a word, a number or a short quoted value such as ``"1"`` one token, any other
character its own), so that the reader in the engine meets tokens that straddle a value's
quotes as it does with the real tokenizers. Every token is near certain, except the first
token of a field the script gave odds for (`Confident`): it gets the odds of the value the
reply wrote, and the other values of the odds are listed as its alternatives, best first.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Confident", "Token", "tokens_of"]

_TOKEN = re.compile(r'\s*(?:[A-Za-z]+|\d+|"[^"\\]{1,3}"(?=\s*[,}])|.)', re.S)
#: The log-probability of a token the script says nothing about: near certain.
_SURE = -0.0001


class Confident(dict[str, Any]):
    """A scripted reply with the judge's odds for some of its fields' values::

        server.script(model, Confident({"reason": "ok", "pass": True},
                                       {"pass": {"true": 0.8, "false": 0.2}}))

    `odds` maps a field to its values as the reply spells them (JSON text; a string's
    letters without the quotes) and their probabilities; the value the reply wrote must be
    among them. Served with log-probabilities only to a request that asks for them."""

    def __init__(self, reply: Mapping[str, Any], odds: Mapping[str, Mapping[str, float]]) -> None:
        super().__init__(reply)
        self.odds = {key: dict(values) for key, values in odds.items()}


@dataclass(frozen=True, slots=True)
class Token:
    """One token: its text, log-probability, and its alternatives (best first, itself
    among them)."""

    text: str
    logprob: float
    top: tuple[tuple[str, float], ...]


def tokens_of(text: str, odds: Mapping[str, Mapping[str, float]] | None, top: int) -> list[Token]:
    """`text` as tokens with log-probabilities and up to `top` alternatives each."""
    pieces = [m.group(0) for m in _TOKEN.finditer(text)]
    firsts = _value_tokens(text, pieces, odds or {})
    tokens = []
    for index, piece in enumerate(pieces):
        found = firsts.get(index)
        if found is None:
            tokens.append(Token(piece, _SURE, ((piece, _SURE),)[:top]))
            continue
        before, written, after, values = found
        ranked = sorted(values.items(), key=lambda item: -item[1])
        choices = tuple((before + value + after, math.log(p)) for value, p in ranked if p > 0)
        chosen = math.log(values[written]) if values.get(written) else _SURE
        tokens.append(Token(piece, chosen, choices[:top]))
    return tokens


def _value_tokens(
    text: str, pieces: list[str], odds: Mapping[str, Mapping[str, float]]
) -> dict[int, tuple[str, str, str, Mapping[str, float]]]:
    """For each field with odds, the index of the first token of its value, and what that
    token holds before and after the value (a space, a quote)."""
    starts, at = [], 0
    for piece in pieces:
        starts.append(at)
        at += len(piece)
    found: dict[int, tuple[str, str, str, Mapping[str, float]]] = {}
    for key, values in odds.items():
        match = re.search(rf'"{re.escape(key)}"\s*:\s*("?)([^",}}\s]+)', text)
        if match is None:
            continue
        start, end = match.span(2)
        index = max(i for i, s in enumerate(starts) if s <= start)
        piece_end = starts[index] + len(pieces[index])
        if piece_end < end:
            continue  # a value of several tokens: the fake scripts one-token values only
        before = text[starts[index] : start]
        after = text[end:piece_end]
        found[index] = (before, match.group(2), after, values)
    return found
