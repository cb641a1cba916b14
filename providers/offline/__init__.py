"""Offline reference jurors: deterministic, documented heuristics. Not LLM judges.

They let `jury run` do its whole job on a machine with no keys and no network, and give
tests and benchmarks judges whose every score can be explained. Each reads the case that
travels with the request (never the rendered prompt) and measures its answers; the rubric
that travels with it writes the reply from those measures (`Rubric.reference_reply`), so that
a juror knows no rubric kind, schema or prompt. Every output labels them *offline*.

Three jurors, three methods, so that they disagree where the methods disagree:

``offline/reference``
    Compares the answer with the golden answer: content-word F1 (light stemming, stop
    words removed), whether the two take the same side of a yes/no question, and whether the
    answer contradicts one of its specifics (below).
``offline/evidence``
    Checks that what the answer asserts is supported by what the agent saw: every number,
    ID, amount, date, address and name in the answer must occur in the retrieved context,
    the tool calls or the question (or the same value written otherwise: "30 dollars" for
    "$30"), and its content words should too. It does not read a long golden answer: it
    catches a wrong number only when the evidence holds the right one.
``offline/facts``
    Checks that the answer carries the golden answer's key facts (numbers, IDs, amounts,
    the yes/no side, the words that carry its meaning; a specific counts as carried in other
    words: "two weeks" for "14 days") and contradicts none of them (below).

*A contradicted specific fails the panel.* Where the golden answer gives a number, date,
amount (money, a quantity with its unit, a percentage, a duration), time of day, ID, model
code, e-mail or web address, and the answer gives another of the same kind in its place
("within 14 days" against "within 30 days", "$45" against "$30", "ORD-103" against "ORD-102",
"help@..." against "support@..."), both jurors that read the golden answer (reference and
facts) give correctness 1 and name the two values: the median of the three fails, whatever the
evidence juror finds. Values are compared as values, so the same fact written otherwise is
no contradiction: "$30", "30 dollars", "USD 30"; "14 days", "two weeks"; "24 hours", "one day";
"2025-03-14", "March 14, 2025", "the 14th of March". A judgement call: "a month" is 28 to 31
days, so it holds "30 days" (people say "within a month" of a 30-day window) but not "14
days". An answer that gives every value of the golden answer contradicts none, whatever it
adds. What is read and how is in `_specifics`'s docstring. A name put where the golden answer
has another ("Lyon" for "Paris", "Munich" for "Berlin", "John Smith" for "Maria Lopez") is
caught where the words around it agree (see "Short and exact answers"); a verb that opens an
instruction ("Email support@...", "Write to...") is no name. An answer that gives every
specific of the golden answer is on topic (relevance 4 at least), whatever words the question
used ("How fast do refunds arrive?", "within 5 business days").

All three judge a short golden answer ("4", "Paris", "30 days") as a whole (see "Short and
exact answers" below): an answer that gives it, after normalising case, punctuation and
articles and with numbers compared as numbers ("4.0", "four"), is correct and on topic; one
that gives another number, or puts another name where the golden answer has one ("Lyon is the
capital of France" against "Paris is..."), is wrong; a bare "No." to a yes/no question is
judged by its side. A name swap is caught in any golden answer, where the words around it
agree. Where the case gives no evidence at all (no context, no tool call), faithfulness and
hallucination-free are 4, "nothing it asserts can be checked": a number the golden answer
does not give is not counted as invented when there was nothing to find it in.

All three treat an expected refusal (``expect_refusal``, or an expected behaviour that says
"refuse" or "out of scope") the same way: a refusal is correct, and a refusal without a
redirect (a contact, an address, a place to go) is only half helpful. Refusals, redirects and
e-mail addresses are recognised by the vocabulary the checks use (`jury.checks`), so that a
juror and the refusal check never disagree on what a refusal is.

What a rubric can ask of them (the `ReferenceJudge` interface):

``rate``
    The answer's 1-5 scores, by aspect name: relevance, correctness, faithfulness,
    helpfulness and hallucination-free, from the juror's method; an aspect of another name
    (accuracy, grounding, tone...) takes the score its name points to, else the mean. An
    aspect named for toxicity ("toxicityFree") is rated by the blocklist's terms alone, the
    same for all three: 1 for a critical term, 2 high, 4 medium, 5 none.
``meets``
    Whether the answer meets a criterion: yes when the lowest of its measured scores is at
    least 4 (a score it could not measure, correctness with no golden answer, is left out and
    named; with none measured, it cannot tell). The criterion's words are not read: the
    answer's quality as a whole decides.
``states``
    Whether the answer states a statement (a point): one statement-matching method for all
    three jurors. The answer is cut into sentences (and pairs of adjacent sentences); for
    each, the share of the statement's content words it contains is measured (words such as
    "states" or "says" that only frame the statement are left out), and the statement's
    specifics (IDs, amounts, numbers, addresses, dates) must all be in it (perhaps written
    otherwise: "$30" as "30 dollars"). The best such span
    decides: "no" when it lacks a specific, or when it says the opposite (of its clauses that
    share a word with the statement, one is negated — "not", "no longer", "outside",
    "closed"... — exactly when the statement is not); otherwise "yes" when it holds at least
    60% of the words (the span, copied from the answer, is the quote, so a quote always
    occurs), "cant_tell" from 40%, "no" below.
``prefer``
    Which of two answers is better: each is scored with the juror's method, and the one with
    the higher correctness (then the higher sum of its measured scores) wins; equal answers
    are a tie. With no golden answer, correctness is not compared: the measured scores decide.
``about``
    The same juror measuring another case: one turn of a conversation, judged as if the
    conversation ended there (a rubric with ``scope = "turn"``). In a conversation, what the
    user said in earlier turns counts as evidence, as the tool results do.

A rubric kind that writes no reference reply cannot be judged by these jurors: their votes
are unavailable, with the reason.

This module is the juror and the `ReferenceJudge` it hands the rubric; what they measure with
lives beside it: `_words` (content words, specifics, a text's yes/no side), `_specifics`
(numbers, dates, amounts, durations, IDs and addresses compared by value, and a contradicted
one), `_exact` (short and exact answers, swapped names), `_methods` (the three methods' scores)
and `_statements` (``states``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from types import FunctionType

from jury import Case, ConfigError
from jury.adapters import (
    InvalidRequestError,
    Judgement,
    JudgeModel,
    JudgeReply,
    JudgeRequest,
    Preference,
    Rating,
)
from jury.checks import find_blocked

from ._methods import METHODS, Signals
from ._statements import check_statement

__all__ = ["METHODS", "Measures", "OfflineJuror", "check_statement", "create"]


# Which signal answers a metric, by the metric's name; unknown names get the mean.
_SIGNAL_FOR = (
    (re.compile(r"halluc", re.I), "hallucinationFree"),
    (re.compile(r"faith|ground|support", re.I), "faithfulness"),
    (re.compile(r"relev|topic", re.I), "relevance"),
    (re.compile(r"correct|accura|right", re.I), "correctness"),
    (re.compile(r"help|useful|complete|clar", re.I), "helpfulness"),
)


def _signal(name: str, signals: Signals) -> Rating:
    for pattern, key in _SIGNAL_FOR:
        if pattern.search(name):
            return signals[key]
    # A score it could not measure (correctness with no golden answer) is a stand-in, not a
    # measure: the mean is of the measured ones, and with none the aspect is not measured.
    measured = [s.value for s in signals.values() if s.measured]
    if not measured:
        return Rating(3, "none of its scores could be measured", measured=False)
    return Rating(round(sum(measured) / len(measured)), "the mean of its measured scores")


def _unmeasured(signals: Signals) -> str:
    """What a juror could not measure, and why, for a reason ("" when it measured all)."""
    names = [name for name, s in signals.items() if not s.measured]
    if not names:
        return ""
    return f" ({', '.join(names)} not measured: {signals[names[0]].why})"


_TOXIC = re.compile(r"toxic|offensi|profan|abus", re.I)
#: The blocklist's severity levels on the 1-5 scale (5: no term found).
_SEVERITY = {"critical": 1, "high": 2, "medium": 4}


def _toxicity(text: str) -> Rating:
    """Freedom from toxicity, by the blocklist's terms alone: a paraphrase is not caught."""
    found = find_blocked(text)
    if found is None:
        return Rating(5, "no blocklisted term (a blocklist misses a paraphrased insult)")
    level, term = found
    return Rating(_SEVERITY[level], f"a {level}-severity blocklisted term: {term}")


class Measures:
    """What one offline juror measures of one case's answers: a `ReferenceJudge`."""

    def __init__(self, method: str, case: Case) -> None:
        self.name = f"offline {method}"
        self._method = method
        self._score = METHODS[method]
        self._case = case

    def rate(self, text: str, aspects: Sequence[str]) -> Mapping[str, Rating]:
        signals = self._score(self._case, text)
        return {
            aspect: _toxicity(text) if _TOXIC.search(aspect) else _signal(aspect, signals)
            for aspect in aspects
        }

    def states(self, statement: str, text: str) -> Judgement:
        return check_statement(statement, text)

    def about(self, case: Case) -> Measures:
        return Measures(self._method, case)

    def meets(self, criterion: str, text: str) -> Judgement:
        # The criterion's words are not read: a heuristic cannot tell what an arbitrary
        # criterion asks, so the answer's quality as a whole decides.
        # A score it could not measure is left out rather than its stand-in failing the
        # answer (an answer with no golden answer is judged on the evidence); with nothing
        # measured, it cannot tell.
        signals = self._score(self._case, text)
        measured = [s.value for s in signals.values() if s.measured]
        if not measured:
            return Judgement("cant_tell", "none of its scores could be measured")
        lowest = min(measured)
        why = f"lowest of its measured scores is {lowest}{_unmeasured(signals)}"
        return Judgement("yes" if lowest >= 4 else "no", why)

    def prefer(self, first: str, second: str) -> Preference:
        rated = []
        for text in (first, second):
            signals = self._score(self._case, text)
            # Only what it measured: with no golden answer, correctness is not compared, and
            # the answers are ranked by the scores it could measure.
            measured = [s.value for s in signals.values() if s.measured]
            correct = signals["correctness"]
            rated.append((correct.value if correct.measured else 0, sum(measured), signals))
        (c1, t1, s1), (c2, t2, s2) = rated
        if s1["correctness"].measured:
            why = (
                f"answer 1: correctness {c1} ({s1['correctness'].why}), total {t1}; "
                f"answer 2: correctness {c2} ({s2['correctness'].why}), total {t2}"
            )
        else:
            why = (
                f"answer 1: total {t1} of its measured scores; answer 2: total {t2}"
                f"{_unmeasured(s1)}"
            )
        if (c1, t1) == (c2, t2):
            return Preference("tie", why)
        return Preference("1" if (c1, t1) > (c2, t2) else "2", why)


class OfflineJuror(JudgeModel):
    """One deterministic reference juror: its measures, written up by the rubric."""

    offline = True
    family = "offline"

    def price(self, reply: JudgeReply) -> float:
        return 0.0  # no model is called

    def __init__(self, method: str) -> None:
        if method not in METHODS:
            raise ConfigError(f"unknown offline juror {method!r} (known: {', '.join(METHODS)})")
        self.method = method
        self.name = f"offline/{method}"

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        case, rubric = request.case, request.rubric
        if case is None or rubric is None:
            raise InvalidRequestError(f"{self.name} needs the case and the rubric with the request")
        prompt = next((p for p in rubric.prompts(case) if p.key == request.prompt), None)
        if prompt is None:
            raise InvalidRequestError(
                f"{self.name}: the {rubric.name} rubric asks no prompt {request.prompt!r}"
            )
        try:
            reply = rubric.reference_reply(case, prompt, Measures(self.method, case))
        except (NotImplementedError, ValueError) as exc:
            raise InvalidRequestError(
                f"{self.name} cannot judge with the {rubric.name} rubric: {exc}"
            ) from None
        return JudgeReply(text=json.dumps(reply), model=self.name)


def create(spec: str) -> OfflineJuror:
    return OfflineJuror(spec.partition("/")[2])


# Each public name says where to import it from (jury.providers.offline.X), not the private
# module that defines it: reprs, tracebacks and the API reference read the same door.
for _name in __all__:
    if isinstance(_value := globals()[_name], type | FunctionType):
        _value.__module__ = __name__
del _name, _value
