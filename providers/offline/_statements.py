"""Whether an answer states a statement (a rubric's point): one statement-matching method for
all three offline jurors (see `jury.providers.offline`, ``states``)."""

from __future__ import annotations

import re
from itertools import pairwise

from jury.adapters import Judgement
from jury.checks import EMAIL

from ._specifics import said_in
from ._words import (
    AMOUNT,
    DATE,
    FRAMING,
    ID,
    NEGATIVE,
    NUMBER,
    STOP,
    TOKEN,
    URL,
    content,
    norm,
    stem,
)

__all__ = ["check_statement"]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def _words(text: str) -> frozenset[str]:
    """Content words, stemmed, leaving out stop words and the words that frame a statement."""
    return frozenset(
        stem(t) for t in TOKEN.findall(text.lower()) if t not in STOP and t not in FRAMING
    )


def _specifics(text: str) -> frozenset[str]:
    found: set[str] = set()
    for pattern in (ID, AMOUNT, EMAIL, URL, DATE, NUMBER):
        found.update(norm(m) for m in pattern.findall(text))
    return frozenset(found)


def _spans(answer: str) -> list[str]:
    """Sentences of the answer and pairs of adjacent ones, each copied from the answer."""
    bounds = [0, *(m.end() for m in _SENTENCE_END.finditer(answer)), len(answer)]
    sentences = list(pairwise(bounds))
    spans = [answer[a:b] for a, b in sentences]
    spans += [answer[a:d] for (a, _), (_, d) in pairwise(sentences)]
    return [span.strip() for span in spans if span.strip()]


_CLAUSE = re.compile(r"[,;:]|\s(?:and|but|so|which)\s", re.I)


def _negated(text: str) -> bool:
    return bool(NEGATIVE.search(text))


def _opposite(statement: str, span: str) -> bool:
    """Whether the span says the opposite: of its clauses that share a word with the
    statement, any is negated exactly when the statement is not ("ORD-101 has been delivered"
    against "shipped and has not been delivered yet")."""
    words = _words(statement)
    clauses = [c for c in _CLAUSE.split(span) if words & content(c)]
    return _negated(statement) != any(_negated(c) for c in clauses)


def check_statement(statement: str, answer: str) -> Judgement:
    """Whether `answer` states `statement`: the verdict, why, and the quote for a yes."""
    wanted = _words(statement)
    specifics = _specifics(statement)
    best: tuple[bool, float, str] | None = None
    for span in _spans(answer):
        has_all = all(said_in(s, statement, span) for s in specifics)
        share = len(wanted & content(span)) / len(wanted) if wanted else 0.0
        if best is None or (has_all, share) > best[:2]:
            best = (has_all, share, span)
    if best is None:
        return Judgement("no", "the answer is empty")
    has_all, share, span = best
    if not has_all:
        missing = sorted(s for s in specifics if not said_in(s, statement, span))
        return Judgement("no", f"no sentence of the answer mentions {', '.join(missing)}")
    if share >= 0.4 and _opposite(statement, span):
        return Judgement("no", "the closest sentence says the opposite")
    if share >= 0.6:
        return Judgement("yes", f"{share:.0%} of its words are in the quoted words", span)
    if share >= 0.4:
        return Judgement("cant_tell", f"only {share:.0%} of its words are in any sentence")
    return Judgement("no", f"at most {share:.0%} of its words are in any sentence")
