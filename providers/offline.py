"""Offline reference jurors: deterministic, documented heuristics. Not LLM judges.

They let `jury run` do its whole job on a machine with no keys and no network, and give
tests and benchmarks judges whose every score can be explained. Each reads the case that
travels with the request (never the rendered prompt) and scores the rubric's own reply schema,
explaining each score in its reason. Every output labels them *offline*.

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

All three treat an expected refusal (``expect_refusal``, or an expected behaviour that says
"refuse" or "out of scope") the same way: a refusal is correct, and a refusal without a
redirect (a contact, an address, a place to go) is only half helpful.

Points rubrics (one statement per short ID, the statement in the schema's description): all
three jurors use one statement-matching method. The answer is cut into sentences (and pairs
of adjacent sentences); for each, the share of the statement's content words it contains is
measured (words such as "states" or "says" that only frame the statement are left out), and
the statement's specifics (IDs, amounts, numbers, addresses, dates) must all be in it. The
best such span decides: "no" when it lacks a specific, or when it says the opposite (of its
clauses that share a word with the statement, one is negated — "not", "no longer",
"outside", "closed"... — exactly when the statement is not); otherwise "yes" when it holds at
least 60% of the words (the span, copied from the answer, is the quote, so a quote always
occurs), "cant_tell" from 40%, "no" below.

Pairwise rubrics: each juror scores both answers with its own method and prefers the one with
the higher correctness (then the higher sum of its scores); equal answers are a tie where the
rubric allows one, else it names the answer shown first, so its two orders disagree and it
abstains: it cannot tell them apart.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import Any

from jury.adapters import (
    Case,
    ConfigError,
    InvalidRequestError,
    JudgeModel,
    JudgeReply,
    JudgeRequest,
)

__all__ = ["METHODS", "OfflineJuror", "create"]

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
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
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
_REFUSAL = re.compile(
    r"can(?:no|')t help|cannot help|can only help|outside (?:my|our|the) scope|not able to "
    r"(?:help|assist)|unable to (?:help|assist)|not something i can|i'm not set up to|"
    r"beyond what i (?:can )?handle|i can(?:no|')t (?:answer|recommend|provide|assist)",
    re.I,
)
_REDIRECT = re.compile(
    r"\b(?:contact|reach out|email|call|visit|support|help ?cent(?:er|re)|documentation)\b|@|"
    r"https?://",
    re.I,
)
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
    for pattern in (_ID, _AMOUNT, _EMAIL, _URL, _DATE):
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


@dataclass(frozen=True, slots=True)
class _Score:
    value: int
    why: str


Signals = dict[str, _Score]


def _evidence_text(case: Case) -> str:
    parts = [case.question, *case.trace.context]
    parts.extend(
        value if isinstance(value, str) else json.dumps(value)
        for call in case.trace.tool_calls
        for value in (call.arguments, call.result)
        if value is not None
    )
    return "\n".join(parts)


def _relevance(case: Case, answer: str, refusing: bool) -> _Score:
    if _expects_refusal(case):
        if refusing:
            return _Score(5, "declines a question outside its scope, as expected")
        return _Score(2, "answers a question it was expected to decline")
    asked = _content(case.question) | {_norm(i) for i in _ID.findall(case.question)}
    if not asked:
        return _Score(3, "the question has no content words to compare")
    covered = asked & (_content(answer) | {_norm(i) for i in _ID.findall(answer)})
    share = len(covered) / len(asked)
    # Answers rephrase questions; a third of the question's words is already on topic.
    score = _Score(
        _level(min(1.0, share * 1.6)), f"covers {len(covered)} of {len(asked)} question terms"
    )
    ids = {_norm(i) for i in _ID.findall(case.question)}
    if ids and ids <= covered and score.value < 4:
        return _Score(4, f"speaks to {', '.join(sorted(ids)).upper()}, the subject of the question")
    if _YES_NO_QUESTION.match(case.question) and _polarity(answer) != 0 and score.value < 4:
        return _Score(4, "answers the yes/no question with a clear side")
    return score


def _refusal_scores(case: Case, answer: str, refusing: bool) -> Signals | None:
    """Scores for cases where a refusal is expected or given; None when neither."""
    expected = _expects_refusal(case)
    if not expected and not refusing:
        return None
    relevance = _relevance(case, answer, refusing)
    if expected and refusing:
        redirect = bool(_REDIRECT.search(answer))
        return {
            "relevance": relevance,
            "correctness": _Score(5, "refuses, as the expected behaviour asks"),
            "helpfulness": _Score(5, "refuses and tells the user where to go instead")
            if redirect
            else _Score(2, "refuses without a redirect: the user is left with nowhere to go"),
        }
    if expected:
        return {
            "relevance": relevance,
            "correctness": _Score(1, "answers where the expected behaviour is to refuse"),
            "helpfulness": _Score(2, "does not redirect the user"),
        }
    return {
        "relevance": _Score(2, "declines a question it was expected to answer"),
        "correctness": _Score(1, "refuses a question that has a golden answer"),
        "helpfulness": _Score(1, "leaves the user without an answer"),
    }


def _grounding(case: Case, answer: str, extra: str = "") -> tuple[_Score, _Score]:
    """Faithfulness and hallucination-free, from claims and words found in the evidence.

    A refusal asserts nothing about the evidence, so only its specifics (numbers, IDs,
    names...) are checked, not its wording.
    """
    evidence = _evidence_text(case) + "\n" + extra
    unsupported = sorted(c for c in _claims(answer) if not _present(c, evidence))
    words = _content(answer)
    known = _content(evidence)
    supported = len(words & known) / len(words) if words else 1.0
    if _REFUSAL.search(answer):
        supported = 1.0
    faithful = max(1, _level(supported) - len(unsupported))
    if unsupported:
        listed = ", ".join(unsupported[:4])
        halluc = _Score(
            max(1, 4 - len(unsupported)), f"asserts {listed}, found nowhere in the evidence"
        )
    elif supported < 0.6:
        halluc = _Score(3, f"only {supported:.0%} of its content words appear in the evidence")
    else:
        halluc = _Score(5, "asserts nothing the evidence does not contain")
    why = f"{supported:.0%} of its content words appear in the evidence"
    if unsupported:
        why += f"; unsupported: {', '.join(unsupported[:4])}"
    return _Score(faithful, why), halluc


def _contradiction(case: Case, answer: str) -> bool:
    gold = case.golden_answer or ""
    return _polarity(gold) * _polarity(answer) < 0


def _reference(case: Case, answer: str) -> Signals:
    gold = case.golden_answer or ""
    refusing = bool(_REFUSAL.search(answer))
    scores: Signals = {}
    if gold:
        a, g = _content(answer), _content(gold)
        overlap = len(a & g)
        f1 = 2 * overlap / (len(a) + len(g)) if a and g else 0.0
        if _contradiction(case, answer):
            scores["correctness"] = _Score(2, "takes the opposite side to the golden answer")
        else:
            # Paraphrases share about half their content words; 0.6 F1 is a close match.
            scores["correctness"] = _Score(
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
        scores["helpfulness"] = _Score(
            max(1, min(5, scores["correctness"].value + (0 if len(a) >= 4 else -1))), why
        )
    else:
        scores["correctness"] = _Score(3, "no golden answer to compare with")
        scores["helpfulness"] = _Score(3, "no golden answer to compare with")
    scores["relevance"] = _relevance(case, answer, refusing)
    scores["faithfulness"], scores["hallucinationFree"] = _grounding(case, answer, gold)
    scores.update(_refusal_scores(case, answer, refusing) or {})
    return scores


def _evidence(case: Case, answer: str) -> Signals:
    refusing = bool(_REFUSAL.search(answer))
    faithful, halluc = _grounding(case, answer)
    scores: Signals = {"faithfulness": faithful, "hallucinationFree": halluc}
    scores["relevance"] = _relevance(case, answer, refusing)
    # Without a reference, an answer is as correct as it is grounded.
    scores["correctness"] = _Score(
        min(faithful.value, halluc.value), "judged by its grounding in the evidence"
    )
    length = len(_content(answer))
    scores["helpfulness"] = _Score(
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
    refusing = bool(_REFUSAL.search(answer))
    scores: Signals = {}
    key_claims = _claims(gold) - _claims(case.question)
    key_words = _content(gold) - _content(case.question)
    if gold:
        found_claims = {c for c in key_claims if _present(c, answer)}
        found_words = key_words & _content(answer)
        total = len(key_claims) * 2 + len(key_words)
        recall = (len(found_claims) * 2 + len(found_words)) / total if total else 1.0
        missing = sorted(key_claims - found_claims)
        if _contradiction(case, answer):
            scores["correctness"] = _Score(1, "contradicts the golden answer's yes/no")
        else:
            why = f"carries {recall:.0%} of the golden answer's key facts"
            if missing:
                why += f"; missing {', '.join(missing[:4])}"
            scores["correctness"] = _Score(_level(min(1.0, recall / 0.7)), why)
        scores["helpfulness"] = _Score(
            _level(min(1.0, recall / 0.6)), f"key-fact recall {recall:.0%}"
        )
    else:
        scores["correctness"] = _Score(3, "no golden answer to compare with")
        scores["helpfulness"] = _Score(3, "no golden answer to compare with")
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


def _signal(name: str, signals: Signals) -> _Score:
    for pattern, key in _SIGNAL_FOR:
        if pattern.search(name):
            return signals[key]
    mean = round(sum(s.value for s in signals.values()) / len(signals))
    return _Score(mean, "the mean of its scores")


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
    for pattern in (_ID, _AMOUNT, _EMAIL, _URL, _DATE, _NUMBER):
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


def check_statement(statement: str, answer: str) -> tuple[str, str | None, str]:
    """Whether `answer` states `statement`: the verdict, the quote for a yes, and why."""
    wanted = _words(statement)
    specifics = _specifics(statement)
    best: tuple[bool, float, str] | None = None
    for span in _spans(answer):
        has_all = all(_present(s, span) for s in specifics)
        share = len(wanted & _content(span)) / len(wanted) if wanted else 0.0
        if best is None or (has_all, share) > best[:2]:
            best = (has_all, share, span)
    if best is None:
        return "no", None, "the answer is empty"
    has_all, share, span = best
    if not has_all:
        missing = sorted(s for s in specifics if not _present(s, span))
        return "no", None, f"no sentence of the answer mentions {', '.join(missing)}"
    if share >= 0.4 and _opposite(statement, span):
        return "no", None, "the closest sentence says the opposite"
    if share >= 0.6:
        return "yes", span, f"{share:.0%} of its words are in the quoted words"
    if share >= 0.4:
        return "cant_tell", None, f"only {share:.0%} of its words are in any sentence"
    return "no", None, f"at most {share:.0%} of its words are in any sentence"


def _scale(value: int, low: int, high: int) -> int:
    """Put a 1-5 score on the rubric's own integer scale."""
    return round(low + (value - 1) * (high - low) / 4)


class OfflineJuror(JudgeModel):
    """One deterministic reference juror: integer scales, criteria, points and pairwise."""

    offline = True
    family = "offline"

    def price(self, reply: JudgeReply) -> float:
        return 0.0  # no model is called

    def __init__(self, method: str) -> None:
        if method not in METHODS:
            raise ConfigError(f"unknown offline juror {method!r} (known: {', '.join(METHODS)})")
        self.method = method
        self.name = f"offline/{method}"
        self._score = METHODS[method]

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        case = request.case
        if case is None:
            raise InvalidRequestError(f"{self.name} needs the case with the request")
        properties: Mapping[str, Any] = request.schema.get("properties", {})
        # The rubric kind is read from the reply schema's shape: points (one object per
        # statement under "points") and pairwise (a "winner" to choose) are not scales.
        points = properties.get("points")
        if isinstance(points, Mapping) and isinstance(points.get("properties"), Mapping):
            return self._points(case, points["properties"])
        winner = properties.get("winner")
        if isinstance(winner, Mapping) and isinstance(winner.get("enum"), list):
            return self._pairwise(request, case, winner["enum"])
        answer = case.answer or ""
        signals = self._score(case, answer)
        reply: dict[str, Any] = {}
        reasons: list[str] = []
        for key, spec in properties.items():
            kind = spec.get("type") if isinstance(spec, Mapping) else None
            if key == "reason" or kind == "string":
                continue
            score = _signal(key, signals)
            if kind == "integer":
                value = _scale(
                    score.value, int(spec.get("minimum", 1)), int(spec.get("maximum", 5))
                )
                reply[key] = value
                reasons.append(f"{key} {value}: {score.why}")
            elif kind == "boolean":
                overall = min(s.value for s in signals.values())
                reply[key] = overall >= 4
                reasons.append(
                    f"{key} {reply[key]}: lowest of its scores is {overall} ({score.why})"
                )
            else:
                raise InvalidRequestError(
                    f"{self.name} cannot fill a {kind or 'structured'} field ({key}); "
                    "offline jurors score integer scales and pass/fail criteria"
                )
        text = json.dumps({"reason": f"[offline {self.method}] " + "; ".join(reasons), **reply})
        return JudgeReply(text=text, model=self.name)

    def _points(self, case: Case, statements: Mapping[str, Any]) -> JudgeReply:
        answer = case.answer or ""
        reply: dict[str, Any] = {}
        for short, spec in statements.items():
            statement = spec.get("description", "") if isinstance(spec, Mapping) else ""
            verdict, quote, why = check_statement(str(statement), answer)
            reply[short] = {
                "verdict": verdict,
                "quotes": [quote] if quote else [],
                "reason": f"[offline {self.method}] {why}",
            }
        return JudgeReply(text=json.dumps({"points": reply}), model=self.name)

    def _pairwise(self, request: JudgeRequest, case: Case, choices: list[Any]) -> JudgeReply:
        # Which answer is shown first: the pairwise rubric's "BA" prompt shows B first.
        shown = [case.answer or "", case.answer_b or ""]
        if request.prompt == "BA":
            shown.reverse()
        rated = []
        for text in shown:
            signals = self._score(case, text)
            rated.append(
                (signals["correctness"].value, sum(s.value for s in signals.values()), signals)
            )
        (c1, t1, s1), (c2, t2, s2) = rated
        if (c1, t1) > (c2, t2):
            winner = "1"
        elif (c2, t2) > (c1, t1):
            winner = "2"
        else:
            winner = "tie" if "tie" in choices else "1"
        reason = (
            f"[offline {self.method}] answer 1: correctness {c1} ({s1['correctness'].why}), "
            f"total {t1}; answer 2: correctness {c2} ({s2['correctness'].why}), total {t2}"
        )
        return JudgeReply(text=json.dumps({"reason": reason, "winner": winner}), model=self.name)


def create(spec: str) -> OfflineJuror:
    return OfflineJuror(spec.partition("/")[2])
