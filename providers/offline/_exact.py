"""Short and exact answers: a golden answer of a few words ("4", "Paris", "30 days") matched
as a whole, and a name the answer puts where the golden answer has another."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from jury import Case
from jury.adapters import Rating

from ._specifics import carried, conflict, is_number, values
from ._words import FRAMING, INSTRUCTIONS, STOP, TOKEN, YES_NO_QUESTION, content, polarity, stem

# A golden answer of a few words ("4", "Paris", "30 days") is matched as a whole: after
# normalising (case, punctuation, articles), with numbers compared as numbers ("4" = "4.0" =
# "four"), and with a name the answer puts where the golden answer has another ("Lyon" for
# "Paris") read as a contradiction, wherever the words around it agree.

#: Golden answers of at most this many words are matched as a whole, against answers of at
#: most `_SHORT_ANSWER` words (a longer answer is judged by its words, as any other).
_SHORT_GOLD = 6
_SHORT_ANSWER = 16
_ARTICLES = frozenset({"a", "an", "the"})
_WORD = re.compile(r"[A-Za-z0-9$%]+(?:[-.'][A-Za-z0-9]+)*")


def _words_of(text: str) -> list[str]:
    """The text's words, lower-cased, without punctuation or articles (SQuAD's normalising)."""
    return [t for t in TOKEN.findall(text.lower()) if t not in _ARTICLES]


def _number(value: float) -> str:
    return f"{value:g}"


def _name_like(text: str, texts: str) -> set[str]:
    """Stems of the words written with a capital in `text` that are never written in lower
    case in `texts` (the texts compared): names, not words that open a sentence."""
    return {
        stem(w.lower())
        for w in _WORD.findall(text)
        if w[0].isupper()
        and w.lower() not in STOP
        and w.lower() not in FRAMING
        and w.lower() not in INSTRUCTIONS
        and not re.search(rf"(?<![\w-]){re.escape(w.lower())}(?![\w-])", texts)
    }


def _key_sequence(text: str, asked: frozenset[str]) -> list[tuple[str, str]]:
    """(stem, word) of the text's content words that the question does not already give."""
    out = []
    for word in _WORD.findall(text):
        lower = word.lower()
        if lower in STOP or stem(lower) in asked:
            continue
        out.append((stem(lower), word))
    return out


def _swapped_name(case: Case, answer: str) -> Rating | None:
    """A name the answer puts where the golden answer has another: correctness 1."""
    gold = case.golden_answer or ""
    asked = content(case.question)
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


def short_answer(case: Case, answer: str) -> Rating | None:
    """Correctness of an answer to a question whose golden answer is a few words: 5 when it
    gives them (normalised, numbers as numbers), 1 when it gives another number or another
    name; None when the golden answer is not short or the answer is long."""
    gold = case.golden_answer or ""
    words_gold, words_answer = _words_of(gold), _words_of(answer)
    swapped = _swapped_name(case, answer)
    if swapped is not None:
        return swapped
    side = polarity(gold)
    if YES_NO_QUESTION.match(case.question) and side and len(words_answer) <= 3:
        # "No." or "Not yet." to a yes/no question: the side is the answer.
        if polarity(answer) == side:
            return Rating(5, "takes the golden answer's side of the yes/no question")
        return None
    if not words_gold or len(words_gold) > _SHORT_GOLD or len(words_answer) > _SHORT_ANSWER:
        return None
    if contradiction(case, answer):
        return None  # the yes/no side decides, as for any answer
    clash = conflict(case, answer)
    if clash is not None:
        return clash  # "14 days" for "30 days", "$5.99" for "$4.99"
    # The numbers the golden answer adds to the question ("Apollo 11" is the question's), as
    # numbers of any kind ("five apples" for "4"), unless it gives them all in other words
    # ("one day" for "24 hours").
    wanted, given = values(gold) - values(case.question), values(answer)
    if wanted and given and not wanted & given and not carried(gold, answer):
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
    added = content(gold) - content(case.question)
    missing = {w for w in added if not (wanted and is_number(w))} - content(answer)
    if added and not missing and wanted <= given:
        return Rating(5, "gives what the golden answer gives (numbers compared as numbers)")
    return None


def contradiction(case: Case, answer: str) -> bool:
    gold = case.golden_answer or ""
    return polarity(gold) * polarity(answer) < 0
