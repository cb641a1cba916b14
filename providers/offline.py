"""Offline reference jurors: deterministic, documented heuristics. Not LLM judges.

They let `jury run` do its whole job on a machine with no keys and no network, and give
tests and benchmarks judges whose every score can be explained. Each reads the case that
travels with the request (never the rendered prompt) and measures its answers; the rubric
that travels with it writes the reply from those measures (`Rubric.reference_reply`), so that
a juror knows no rubric kind, schema or prompt. Every output labels them *offline*.

Three jurors, three methods, so that they disagree where the methods disagree:

``offline/reference``
    Compares the answer with the golden answer: content-word F1 (light stemming, stop
    words removed), and whether the two take the same side of a yes/no question.
``offline/evidence``
    Checks that what the answer asserts is supported by what the agent saw: every number,
    ID, amount, date, address and name in the answer must occur in the retrieved context,
    the tool calls or the question, and its content words should too.
``offline/facts``
    Checks that the answer carries the golden answer's key facts (numbers, IDs, amounts,
    the yes/no side, the words that carry its meaning) and contradicts none of them.

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
    Whether the answer meets a criterion: yes when the lowest of its scores is at least 4.
    The criterion's words are not read: the answer's quality as a whole decides.
``states``
    Whether the answer states a statement (a point): one statement-matching method for all
    three jurors. The answer is cut into sentences (and pairs of adjacent sentences); for
    each, the share of the statement's content words it contains is measured (words such as
    "states" or "says" that only frame the statement are left out), and the statement's
    specifics (IDs, amounts, numbers, addresses, dates) must all be in it. The best such span
    decides: "no" when it lacks a specific, or when it says the opposite (of its clauses that
    share a word with the statement, one is negated — "not", "no longer", "outside",
    "closed"... — exactly when the statement is not); otherwise "yes" when it holds at least
    60% of the words (the span, copied from the answer, is the quote, so a quote always
    occurs), "cant_tell" from 40%, "no" below.
``prefer``
    Which of two answers is better: each is scored with the juror's method, and the one with
    the higher correctness (then the higher sum of its scores) wins; equal answers are a tie.
``about``
    The same juror measuring another case: one turn of a conversation, judged as if the
    conversation ended there (a rubric with ``scope = "turn"``). In a conversation, what the
    user said in earlier turns counts as evidence, as the tool results do.

A rubric kind that writes no reference reply cannot be judged by these jurors: their votes
are unavailable, with the reason.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from difflib import SequenceMatcher
from functools import lru_cache
from itertools import pairwise

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
from jury.checks import EMAIL, find_blocked, find_redirect, find_refusal

__all__ = ["METHODS", "Measures", "OfflineJuror", "check_statement", "create"]

_STOP = frozenset(
    """a an the and or but if then so of to in on at by for with from as is are was were be
    been being it its this that these those i you your yours we our us he she they them their
    my me do does did done can could will would shall should may might must have has had not
    no yes there here what which who whom when where why how all any some each other than too
    very just also only about into over after before again further once more most such own
    same both few up down out off s t don hasn haven isn wasn weren won wouldn couldn shouldn
    ll ve re d m o y ma please thanks thank sorry hi hello""".split()
)

_TOKEN = re.compile(r"[a-z0-9$%]+(?:[-.'][a-z0-9]+)*")
_ID = re.compile(r"\b[A-Z]{2,}[-_]?\d+\b")
_AMOUNT = re.compile(r"[$€£]\s?\d+(?:[.,]\d+)?")
_NUMBER = re.compile(r"(?<![\w.$€£-])\d+(?:[.,]\d+)?%?(?![\w-]*\d)")
_URL = re.compile(r"\b(?:https?://)?[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}/[\w/.-]*", re.I)
_DATE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|"
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}\b",
    re.I,
)
_NAME = re.compile(r"(?<![.!?:]\s)(?<!^)(?<!\n)\b[A-Z][a-zA-Z]+(?:\s[A-Z][a-zA-Z]+)*")

_NEGATIVE = re.compile(
    r"^\s*no\b|\bnot\b|n't\b|\bcannot\b|\bno longer\b|\bclosed\b|\bexpired\b|\bpassed\b|"
    r"\btoo late\b|\boutside\b|\bunfortunately\b|\bineligible\b|\bdenied\b",
    re.I,
)
_POSITIVE = re.compile(r"^\s*yes\b|\bstill\b|\bwithin\b|\beligible\b|\bapproved\b", re.I)
_YES_NO_QUESTION = re.compile(
    r"\s*(?:can|could|is|are|was|were|has|have|had|do|does|did|will|would|should|may|am)\b", re.I
)
_EXPECTS_REFUSAL = re.compile(r"refus|out[- ]of[- ]scope|outside (?:its|the) scope", re.I)


def _stem(word: str) -> str:
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""), ("ly", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + keep
    return word


@lru_cache(maxsize=4096)
def _content(text: str) -> frozenset[str]:
    """The text's content words, stemmed, without stop words."""
    return frozenset(_stem(t) for t in _TOKEN.findall(text.lower()) if t not in _STOP)


def _norm(claim: str) -> str:
    return re.sub(r"\s+", "", claim.lower().rstrip(".,"))


@lru_cache(maxsize=4096)
def _claims(text: str) -> frozenset[str]:
    """Checkable specifics: IDs, amounts, numbers, e-mails, addresses, dates and names."""
    found: set[str] = set()
    for pattern in (_ID, _AMOUNT, EMAIL, _URL, _DATE):
        found.update(_norm(m) for m in pattern.findall(text))
    found.update(_norm(m) for m in _NUMBER.findall(text))
    for name in _NAME.findall(text):
        if name not in ("I", "I'm") and not _ID.fullmatch(name):
            found.add(_norm(name))
    return frozenset(found)


def _present(claim: str, haystack: str) -> bool:
    return claim in re.sub(r"\s+", "", haystack.lower())


def _polarity(text: str) -> int:
    """+1 for a yes, -1 for a no, 0 when the text takes no side."""
    negative = len(_NEGATIVE.findall(text))
    positive = len(_POSITIVE.findall(text))
    if negative > positive:
        return -1
    if positive > negative:
        return 1
    return 0


def _level(share: float) -> int:
    """A share in [0, 1] on the 1-5 scale: 1 below 0.2, then one level per 0.2."""
    return 1 + sum(share >= cut for cut in (0.2, 0.4, 0.6, 0.8))


def _expects_refusal(case: Case) -> bool:
    if case.expect_refusal is not None:
        return case.expect_refusal
    return bool(_EXPECTS_REFUSAL.search(case.expected_behaviour or ""))


def _refuses(case: Case, answer: str) -> bool:
    """Whether the answer refuses, by the refusal check's own rule (`jury.checks`): where no
    refusal is expected, a phrase a helpful answer also uses ("please contact") is none."""
    return find_refusal(answer, expected=_expects_refusal(case)) is not None


Signals = dict[str, Rating]


def _evidence_text(case: Case) -> str:
    # What the user said in a conversation is evidence too: the date they asked for.
    said = [t.content for t in case.history if t.role == "user"]
    parts = [case.question, *said, *case.trace.context]
    parts.extend(
        value if isinstance(value, str) else json.dumps(value)
        for call in case.trace.tool_calls
        for value in (call.arguments, call.result)
        if value is not None
    )
    return "\n".join(parts)


# --- Short and exact answers -----------------------------------------------------------------
# A golden answer of a few words ("4", "Paris", "30 days") is matched as a whole: after
# normalising (case, punctuation, articles), with numbers compared as numbers ("4" = "4.0" =
# "four"), and with a name the answer puts where the golden answer has another ("Lyon" for
# "Paris") read as a contradiction, wherever the words around it agree.

#: Golden answers of at most this many words are matched as a whole, against answers of at
#: most `_SHORT_ANSWER` words (a longer answer is judged by its words, as any other).
_SHORT_GOLD = 6
_SHORT_ANSWER = 16
_ARTICLES = frozenset({"a", "an", "the"})
_NUMBER_WORDS = {
    word: value
    for value, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
} | {
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
    "hundred": 100,
    "thousand": 1000,
}
_DIGITS = re.compile(
    r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w])|(?<![\w.])\d+(?:\.\d+)?(?![\w])"
)
_WORD = re.compile(r"[A-Za-z0-9$%]+(?:[-.'][A-Za-z0-9]+)*")


def _words_of(text: str) -> list[str]:
    """The text's words, lower-cased, without punctuation or articles (SQuAD's normalising)."""
    return [t for t in _TOKEN.findall(text.lower()) if t not in _ARTICLES]


def _values(text: str) -> frozenset[float]:
    """The numbers a text gives, as numbers: digits (IDs such as ORD-102 left out) and the
    number words up to a thousand."""
    bare = _ID.sub(" ", text)
    found = {float(m.replace(",", "")) for m in _DIGITS.findall(bare)}
    found.update(
        float(_NUMBER_WORDS[w]) for w in _TOKEN.findall(bare.lower()) if w in _NUMBER_WORDS
    )
    return frozenset(found)


def _number(value: float) -> str:
    return f"{value:g}"


def _name_like(text: str, texts: str) -> set[str]:
    """Stems of the words written with a capital in `text` that are never written in lower
    case in `texts` (the texts compared): names, not words that open a sentence."""
    return {
        _stem(w.lower())
        for w in _WORD.findall(text)
        if w[0].isupper()
        and w.lower() not in _STOP
        and w.lower() not in _FRAMING
        and not re.search(rf"(?<![\w-]){re.escape(w.lower())}(?![\w-])", texts)
    }


def _key_sequence(text: str, asked: frozenset[str]) -> list[tuple[str, str]]:
    """(stem, word) of the text's content words that the question does not already give."""
    out = []
    for word in _WORD.findall(text):
        lower = word.lower()
        if lower in _STOP or _stem(lower) in asked:
            continue
        out.append((_stem(lower), word))
    return out


def _swapped_name(case: Case, answer: str) -> Rating | None:
    """A name the answer puts where the golden answer has another: correctness 1."""
    gold = case.golden_answer or ""
    asked = _content(case.question)
    texts = "\n".join((case.question, gold, answer))
    names_gold, names_answer = _name_like(gold, texts), _name_like(answer, texts)
    if not names_gold or not names_answer:
        return None
    g, a = _key_sequence(gold, asked), _key_sequence(answer, asked)
    stems_g, stems_a = [s for s, _ in g], [s for s, _ in a]
    matcher = SequenceMatcher(a=stems_g, b=stems_a, autojunk=False)
    for op, g0, g1, a0, a1 in matcher.get_opcodes():
        if op != "replace":
            continue
        ours, theirs = stems_a[a0:a1], stems_g[g0:g1]
        if (
            set(ours) <= names_answer
            and set(theirs) <= names_gold
            and not set(ours) & set(stems_g)
            and not set(theirs) & set(stems_a)
        ):
            said = " ".join(w for _, w in a[a0:a1])
            meant = " ".join(w for _, w in g[g0:g1])
            return Rating(1, f"names {said} where the golden answer names {meant}")
    return None


def _short_answer(case: Case, answer: str) -> Rating | None:
    """Correctness of an answer to a question whose golden answer is a few words: 5 when it
    gives them (normalised, numbers as numbers), 1 when it gives another number or another
    name; None when the golden answer is not short or the answer is long."""
    gold = case.golden_answer or ""
    words_gold, words_answer = _words_of(gold), _words_of(answer)
    swapped = _swapped_name(case, answer)
    if swapped is not None:
        return swapped
    side = _polarity(gold)
    if _YES_NO_QUESTION.match(case.question) and side and len(words_answer) <= 3:
        # "No." or "Not yet." to a yes/no question: the side is the answer.
        if _polarity(answer) == side:
            return Rating(5, "takes the golden answer's side of the yes/no question")
        return None
    if not words_gold or len(words_gold) > _SHORT_GOLD or len(words_answer) > _SHORT_ANSWER:
        return None
    if _contradiction(case, answer):
        return None  # the yes/no side decides, as for any answer
    # The numbers the golden answer adds to the question ("Apollo 11" is the question's).
    wanted, given = _values(gold) - _values(case.question), _values(answer)
    if wanted and given and not wanted & given:
        return Rating(
            1,
            f"gives {', '.join(map(_number, sorted(given)))} where the golden answer gives "
            f"{', '.join(map(_number, sorted(wanted)))}",
        )
    size = len(words_gold)
    if any(words_answer[i : i + size] == words_gold for i in range(len(words_answer))):
        return Rating(5, "gives the golden answer (normalised)")
    # "Paris" for "Paris is the capital of France": what the golden answer adds to the
    # question, and with "4.0" for "4" or "thirty" for "30", the same numbers.
    added = _content(gold) - _content(case.question)
    missing = {w for w in added if not (wanted and _numeric(w))} - _content(answer)
    if added and not missing and wanted <= given:
        return Rating(5, "gives what the golden answer gives (numbers compared as numbers)")
    return None


def _numeric(word: str) -> bool:
    return word in _NUMBER_WORDS or bool(re.fullmatch(r"\d[\d,]*(?:\.\d+)?%?", word))


def _has_evidence(case: Case) -> bool:
    return bool(case.trace.context or case.trace.tool_calls or case.trace.retrieved_sources)


def _relevance(case: Case, answer: str, refusing: bool) -> Rating:
    if _expects_refusal(case):
        if refusing:
            return Rating(5, "declines a question outside its scope, as expected")
        return Rating(2, "answers a question it was expected to decline")
    exact = _short_answer(case, answer)
    if exact is not None and exact.value == 5:
        return Rating(5, "gives the golden answer to what was asked")
    asked = _content(case.question) | {_norm(i) for i in _ID.findall(case.question)}
    if not asked:
        return Rating(3, "the question has no content words to compare")
    covered = asked & (_content(answer) | {_norm(i) for i in _ID.findall(answer)})
    share = len(covered) / len(asked)
    # Answers rephrase questions; a third of the question's words is already on topic.
    score = Rating(
        _level(min(1.0, share * 1.6)), f"covers {len(covered)} of {len(asked)} question terms"
    )
    ids = {_norm(i) for i in _ID.findall(case.question)}
    if ids and ids <= covered and score.value < 4:
        return Rating(4, f"speaks to {', '.join(sorted(ids)).upper()}, the subject of the question")
    if _YES_NO_QUESTION.match(case.question) and _polarity(answer) != 0 and score.value < 4:
        return Rating(4, "answers the yes/no question with a clear side")
    return score


def _refusal_scores(case: Case, answer: str, refusing: bool) -> Signals | None:
    """Scores for cases where a refusal is expected or given; None when neither."""
    expected = _expects_refusal(case)
    if not expected and not refusing:
        return None
    relevance = _relevance(case, answer, refusing)
    if expected and refusing:
        redirect = find_redirect(answer) is not None
        return {
            "relevance": relevance,
            "correctness": Rating(5, "refuses, as the expected behaviour asks"),
            "helpfulness": Rating(5, "refuses and tells the user where to go instead")
            if redirect
            else Rating(2, "refuses without a redirect: the user is left with nowhere to go"),
        }
    if expected:
        return {
            "relevance": relevance,
            "correctness": Rating(1, "answers where the expected behaviour is to refuse"),
            "helpfulness": Rating(2, "does not redirect the user"),
        }
    return {
        "relevance": Rating(2, "declines a question it was expected to answer"),
        "correctness": Rating(1, "refuses a question that has a golden answer"),
        "helpfulness": Rating(1, "leaves the user without an answer"),
    }


def _grounding(case: Case, answer: str, extra: str = "") -> tuple[Rating, Rating]:
    """Faithfulness and hallucination-free, from claims and words found in the evidence.

    A refusal asserts nothing about the evidence, so only its specifics (numbers, IDs,
    names...) are checked, not its wording. Where the case gives no evidence at all (no
    context, no tool call, no source), there is nothing to measure its words against, nor a
    count or a year (a number of at most four digits): those are not held against it; its
    other specifics (IDs, amounts, addresses, names, long numbers) still are.
    """
    evidence = _evidence_text(case) + "\n" + extra
    unsupported = sorted(c for c in _claims(answer) if not _present(c, evidence))
    words = _content(answer)
    known = _content(evidence)
    supported = len(words & known) / len(words) if words else 1.0
    refusing = _refuses(case, answer)
    # A refusal asserts nothing of the evidence: only its specifics are checked, as above.
    blind = not _has_evidence(case) and not refusing
    if blind:
        unsupported = [c for c in unsupported if not re.fullmatch(r"\d{1,4}(?:[.,]\d+)?%?", c)]
    if blind or refusing:
        supported = 1.0
    faithful = max(1, _level(supported) - len(unsupported))
    if unsupported:
        listed = ", ".join(unsupported[:4])
        halluc = Rating(
            max(1, 4 - len(unsupported)), f"asserts {listed}, found nowhere in the evidence"
        )
    elif supported < 0.6:
        halluc = Rating(3, f"only {supported:.0%} of its content words appear in the evidence")
    elif blind:
        halluc = Rating(4, "no evidence was given (no context, no tool call) to check it against")
    else:
        halluc = Rating(5, "asserts nothing the evidence does not contain")
    why = f"{supported:.0%} of its content words appear in the evidence"
    if blind:
        why = "no evidence was given (no context, no tool call): its words are not checked"
    if unsupported:
        why += f"; unsupported: {', '.join(unsupported[:4])}"
    faithful = min(faithful, 4) if blind else faithful
    return Rating(faithful, why), halluc


def _contradiction(case: Case, answer: str) -> bool:
    gold = case.golden_answer or ""
    return _polarity(gold) * _polarity(answer) < 0


def _reference(case: Case, answer: str) -> Signals:
    gold = case.golden_answer or ""
    refusing = _refuses(case, answer)
    scores: Signals = {}
    if gold:
        a, g = _content(answer), _content(gold)
        overlap = len(a & g)
        f1 = 2 * overlap / (len(a) + len(g)) if a and g else 0.0
        exact = _short_answer(case, answer)
        if exact is not None:
            scores["correctness"] = exact
        elif _contradiction(case, answer):
            scores["correctness"] = Rating(2, "takes the opposite side to the golden answer")
        else:
            # Paraphrases share about half their content words; 0.6 F1 is a close match.
            scores["correctness"] = Rating(
                _level(min(1.0, f1 / 0.6)), f"content-word F1 {f1:.2f} with the golden answer"
            )
        if scores["correctness"].value <= 2:
            why = "would mislead the user" if f1 >= 0.5 else "leaves out much of the golden answer"
        else:
            why = (
                "as complete as the golden answer"
                if f1 >= 0.5
                else "leaves out much of the golden answer"
            )
        scores["helpfulness"] = Rating(
            max(1, min(5, scores["correctness"].value + (0 if len(a) >= 4 else -1))), why
        )
    else:
        scores["correctness"] = Rating(3, "no golden answer to measure it against", measured=False)
        scores["helpfulness"] = Rating(3, "no golden answer to measure it against", measured=False)
    scores["relevance"] = _relevance(case, answer, refusing)
    scores["faithfulness"], scores["hallucinationFree"] = _grounding(case, answer, gold)
    scores.update(_refusal_scores(case, answer, refusing) or {})
    return scores


def _evidence(case: Case, answer: str) -> Signals:
    refusing = _refuses(case, answer)
    faithful, halluc = _grounding(case, answer)
    scores: Signals = {"faithfulness": faithful, "hallucinationFree": halluc}
    scores["relevance"] = _relevance(case, answer, refusing)
    # Without a reference, an answer is as correct as it is grounded; where the agent saw
    # nothing, a short golden answer is all there is to judge it by.
    exact = None if _has_evidence(case) else _short_answer(case, answer)
    scores["correctness"] = exact or Rating(
        min(faithful.value, halluc.value), "judged by its grounding in the evidence"
    )
    length = len(_content(answer))
    scores["helpfulness"] = Rating(
        min(
            5, max(1, (faithful.value + scores["relevance"].value) // 2 + (1 if length >= 6 else 0))
        ),
        f"{length} content words, grounded and on topic"
        if length >= 6
        else f"only {length} content words",
    )
    scores.update(_refusal_scores(case, answer, refusing) or {})
    return scores


def _facts(case: Case, answer: str) -> Signals:
    gold = case.golden_answer or ""
    refusing = _refuses(case, answer)
    scores: Signals = {}
    key_claims = _claims(gold) - _claims(case.question)
    key_words = _content(gold) - _content(case.question)
    if gold:
        found_claims = {c for c in key_claims if _present(c, answer)}
        found_words = key_words & _content(answer)
        total = len(key_claims) * 2 + len(key_words)
        recall = (len(found_claims) * 2 + len(found_words)) / total if total else 1.0
        missing = sorted(key_claims - found_claims)
        exact = _short_answer(case, answer)
        if exact is not None:
            scores["correctness"] = exact
        elif _contradiction(case, answer):
            scores["correctness"] = Rating(1, "contradicts the golden answer's yes/no")
        else:
            why = f"carries {recall:.0%} of the golden answer's key facts"
            if missing:
                why += f"; missing {', '.join(missing[:4])}"
            scores["correctness"] = Rating(_level(min(1.0, recall / 0.7)), why)
        scores["helpfulness"] = Rating(
            _level(min(1.0, recall / 0.6)), f"key-fact recall {recall:.0%}"
        )
    else:
        scores["correctness"] = Rating(3, "no golden answer to measure it against", measured=False)
        scores["helpfulness"] = Rating(3, "no golden answer to measure it against", measured=False)
    scores["relevance"] = _relevance(case, answer, refusing)
    faithful, halluc = _grounding(case, answer, gold)
    scores["faithfulness"], scores["hallucinationFree"] = faithful, halluc
    scores.update(_refusal_scores(case, answer, refusing) or {})
    return scores


METHODS: dict[str, Callable[[Case, str], Signals]] = {
    "reference": _reference,
    "evidence": _evidence,
    "facts": _facts,
}

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
    mean = round(sum(s.value for s in signals.values()) / len(signals))
    return Rating(mean, "the mean of its scores")


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


#: Words that frame a statement ("States that...") rather than say what it states.
_FRAMING = frozenset(
    """states state stated says say said mentions mention mentioned concludes conclude
    confirms confirm tells tell names name gives give answer answers customer user explains
    explain notes note promises promise declares declare reports report""".split()
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def _words(text: str) -> frozenset[str]:
    """Content words, stemmed, leaving out stop words and the words that frame a statement."""
    return frozenset(
        _stem(t) for t in _TOKEN.findall(text.lower()) if t not in _STOP and t not in _FRAMING
    )


def _specifics(text: str) -> frozenset[str]:
    found: set[str] = set()
    for pattern in (_ID, _AMOUNT, EMAIL, _URL, _DATE, _NUMBER):
        found.update(_norm(m) for m in pattern.findall(text))
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
    return bool(_NEGATIVE.search(text))


def _opposite(statement: str, span: str) -> bool:
    """Whether the span says the opposite: of its clauses that share a word with the
    statement, any is negated exactly when the statement is not ("ORD-101 has been delivered"
    against "shipped and has not been delivered yet")."""
    words = _words(statement)
    clauses = [c for c in _CLAUSE.split(span) if words & _content(c)]
    return _negated(statement) != any(_negated(c) for c in clauses)


def check_statement(statement: str, answer: str) -> Judgement:
    """Whether `answer` states `statement`: the verdict, why, and the quote for a yes."""
    wanted = _words(statement)
    specifics = _specifics(statement)
    best: tuple[bool, float, str] | None = None
    for span in _spans(answer):
        has_all = all(_present(s, span) for s in specifics)
        share = len(wanted & _content(span)) / len(wanted) if wanted else 0.0
        if best is None or (has_all, share) > best[:2]:
            best = (has_all, share, span)
    if best is None:
        return Judgement("no", "the answer is empty")
    has_all, share, span = best
    if not has_all:
        missing = sorted(s for s in specifics if not _present(s, span))
        return Judgement("no", f"no sentence of the answer mentions {', '.join(missing)}")
    if share >= 0.4 and _opposite(statement, span):
        return Judgement("no", "the closest sentence says the opposite")
    if share >= 0.6:
        return Judgement("yes", f"{share:.0%} of its words are in the quoted words", span)
    if share >= 0.4:
        return Judgement("cant_tell", f"only {share:.0%} of its words are in any sentence")
    return Judgement("no", f"at most {share:.0%} of its words are in any sentence")


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
        lowest = min(s.value for s in self._score(self._case, text).values())
        return Judgement("yes" if lowest >= 4 else "no", f"lowest of its scores is {lowest}")

    def prefer(self, first: str, second: str) -> Preference:
        rated = []
        for text in (first, second):
            signals = self._score(self._case, text)
            rated.append(
                (signals["correctness"].value, sum(s.value for s in signals.values()), signals)
            )
        (c1, t1, s1), (c2, t2, s2) = rated
        why = (
            f"answer 1: correctness {c1} ({s1['correctness'].why}), total {t1}; "
            f"answer 2: correctness {c2} ({s2['correctness'].why}), total {t2}"
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
