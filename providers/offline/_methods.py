"""The three offline methods (reference, evidence, facts): each measures an answer to a case
as 1-5 scores by aspect (relevance, correctness, faithfulness, helpfulness,
hallucination-free), with why."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from jury import Case
from jury.adapters import Rating
from jury.checks import find_redirect, find_refusal

from ._exact import contradiction, short_answer
from ._specifics import carried, conflict, said_in
from ._words import ID, YES_NO_QUESTION, claims, content, level, norm, polarity

__all__ = ["METHODS", "Signals"]

_EXPECTS_REFUSAL = re.compile(r"refus|out[- ]of[- ]scope|outside (?:its|the) scope", re.I)


def expects_refusal(case: Case) -> bool:
    if case.expect_refusal is not None:
        return case.expect_refusal
    return bool(_EXPECTS_REFUSAL.search(case.expected_behaviour or ""))


def refuses(case: Case, answer: str) -> bool:
    """Whether the answer refuses, by the refusal check's own rule (`jury.checks`): where no
    refusal is expected, a phrase a helpful answer also uses ("please contact") is none."""
    return find_refusal(answer, expected=expects_refusal(case)) is not None


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


def _has_evidence(case: Case) -> bool:
    return bool(case.trace.context or case.trace.tool_calls or case.trace.retrieved_sources)


def _relevance(case: Case, answer: str, refusing: bool) -> Rating:
    if expects_refusal(case):
        if refusing:
            return Rating(5, "declines a question outside its scope, as expected")
        return Rating(2, "answers a question it was expected to decline")
    exact = short_answer(case, answer)
    if exact is not None and exact.value == 5:
        return Rating(5, "gives the golden answer to what was asked")
    asked = content(case.question) | {norm(i) for i in ID.findall(case.question)}
    if not asked:
        return Rating(3, "the question has no content words to compare")
    covered = asked & (content(answer) | {norm(i) for i in ID.findall(answer)})
    share = len(covered) / len(asked)
    # Answers rephrase questions; a third of the question's words is already on topic.
    score = Rating(
        level(min(1.0, share * 1.6)), f"covers {len(covered)} of {len(asked)} question terms"
    )
    ids = {norm(i) for i in ID.findall(case.question)}
    if ids and ids <= covered and score.value < 4:
        return Rating(4, f"speaks to {', '.join(sorted(ids)).upper()}, the subject of the question")
    if YES_NO_QUESTION.match(case.question) and polarity(answer) != 0 and score.value < 4:
        return Rating(4, "answers the yes/no question with a clear side")
    given = carried(case.golden_answer or "", answer)
    if given and score.value < 4:
        # "How fast do refunds arrive?" answered "within 5 business days": the golden
        # answer's own specifics are on topic, whatever words the question used.
        return Rating(4, f"gives the golden answer's {', '.join(given[:3])}")
    return score


def _refusal_scores(case: Case, answer: str, refusing: bool) -> Signals | None:
    """Scores for cases where a refusal is expected or given; None when neither."""
    expected = expects_refusal(case)
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
        "correctness": Rating(
            1,
            "refuses a question that has a golden answer"
            if case.golden_answer
            else "refuses a question it was expected to answer",
        ),
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
    unsupported = sorted(c for c in claims(answer) if not said_in(c, answer, evidence))
    words = content(answer)
    known = content(evidence)
    supported = len(words & known) / len(words) if words else 1.0
    refusing = refuses(case, answer)
    # A refusal asserts nothing of the evidence: only its specifics are checked, as above.
    blind = not _has_evidence(case) and not refusing
    if blind:
        unsupported = [c for c in unsupported if not re.fullmatch(r"\d{1,4}(?:[.,]\d+)?%?", c)]
    if blind or refusing:
        supported = 1.0
    faithful = max(1, level(supported) - len(unsupported))
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
    if blind and not case.golden_answer and unsupported:
        # Nothing at all to hold its specifics against (no evidence, no golden answer: an
        # AlpacaEval output): "Brin", "CEO" are not shown false by being found nowhere.
        why = "no evidence and no golden answer to check its words against"
        return Rating(faithful, why, measured=False), Rating(halluc.value, why, measured=False)
    return Rating(faithful, why), halluc


def _decided(case: Case, answer: str, opposite: Rating) -> Rating | None:
    """Correctness where a rule decides it against the golden answer: a short answer matched
    as a whole, the opposite side of a yes/no (`opposite`), or a number, date, amount or ID it
    contradicts (`._specifics`); None where its words must."""
    exact = short_answer(case, answer)
    if exact is not None:
        return exact
    if contradiction(case, answer):
        return opposite
    return conflict(case, answer)


def _reference(case: Case, answer: str) -> Signals:
    gold = case.golden_answer or ""
    refusing = refuses(case, answer)
    scores: Signals = {}
    if gold:
        a, g = content(answer), content(gold)
        overlap = len(a & g)
        f1 = 2 * overlap / (len(a) + len(g)) if a and g else 0.0
        opposite = Rating(2, "takes the opposite side to the golden answer")
        # Paraphrases share about half their content words; 0.6 F1 is a close match.
        scores["correctness"] = _decided(case, answer, opposite) or Rating(
            level(min(1.0, f1 / 0.6)), f"content-word F1 {f1:.2f} with the golden answer"
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
    refusing = refuses(case, answer)
    faithful, halluc = _grounding(case, answer)
    scores: Signals = {"faithfulness": faithful, "hallucinationFree": halluc}
    scores["relevance"] = _relevance(case, answer, refusing)
    # Without a reference, an answer is as correct as it is grounded; where the agent saw
    # nothing, a short golden answer is all there is to judge it by.
    exact = None if _has_evidence(case) else short_answer(case, answer)
    scores["correctness"] = exact or Rating(
        min(faithful.value, halluc.value),
        "judged by its grounding in the evidence",
        # Where its grounding could not be measured (no evidence, no golden answer, names
        # it cannot check), neither can its correctness, which is judged by that grounding.
        measured=faithful.measured and halluc.measured,
    )
    if not scores["correctness"].measured:
        scores["correctness"] = Rating(
            3, "no evidence and no golden answer to measure it against", measured=False
        )
    length = len(content(answer))
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
    refusing = refuses(case, answer)
    scores: Signals = {}
    key_claims = claims(gold) - claims(case.question)
    key_words = content(gold) - content(case.question)
    if gold:
        found_claims = {c for c in key_claims if said_in(c, gold, answer)}
        found_words = key_words & content(answer)
        total = len(key_claims) * 2 + len(key_words)
        recall = (len(found_claims) * 2 + len(found_words)) / total if total else 1.0
        missing = sorted(key_claims - found_claims)
        opposite = Rating(1, "contradicts the golden answer's yes/no")
        why = f"carries {recall:.0%} of the golden answer's key facts"
        if missing:
            why += f"; missing {', '.join(missing[:4])}"
        scores["correctness"] = _decided(case, answer, opposite) or Rating(
            level(min(1.0, recall / 0.7)), why
        )
        scores["helpfulness"] = Rating(
            level(min(1.0, recall / 0.6)), f"key-fact recall {recall:.0%}"
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
