"""The *garbled* check: an answer a limit or an error spoiled (the seed article's "unusable
answer"), read in every assistant turn of a conversation. Four signs, each chosen so that an
ordinary answer never shows it:

- *truncated*: the text stops mid-sentence: its last character is one that announces more
  (``,`` ``;`` ``:`` ``(`` ``-`` ...), or its last word is one no sentence ends on ("the",
  "and", "of", "because"...), and the text does not end in a code block or a list of items
  and holds no line of code.
  A text of fewer than five words is a short answer ("A", "Yes, Paris"), never a cut one.
- *repetition*: the same words over and over, as a model stuck in a loop writes them: a run
  of 1 to 60 words repeated back to back (a word 4 times, a longer run 3 times), or a
  sentence of eight words or more said 4 times anywhere.
- *mojibake*: text decoded with the wrong encoding ("cafÃ©", "itâ€™s"), as ``ftfy`` detects
  it (its ``badness`` heuristic: sequences that real text does not produce), the replacement
  character U+FFFD, or control characters other than tab and line breaks.
- *markup*: an odd number of ````` fences, a bracket opened and never closed (in prose: not
  in a text with lines of code), or an HTML tag opened and never closed (or closed without
  being opened), outside code blocks; other names in angle brackets (``vector<int>``) are
  not markup.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from ..cases._case import Case
from ._core import CheckFunction, Finding, clip, failed, not_applicable, passed
from ._settings import GarbledRule

__all__ = ["garbled", "signs_of_garbling"]

_ANNOUNCING = ",:([{-–—/&"
_NO_SENTENCE_ENDS_ON = frozenset(
    "the a an and or but nor of than because while my your our their its his her whose".split()
)
#: Fewer words than this make a short answer, never a truncated one.
_SHORT = 5
_WORD = re.compile(r"[\w'’]+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
#: The longest run of words looked for repeated back to back (a paragraph said again).
_LONGEST_RUN = 60
_CODE_BLOCK = re.compile(r"```.*?```", re.DOTALL)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)\b[^<>]*?(/?)>")
#: HTML elements that must be closed: other names in angle brackets are code (``vector<int>``,
#: ``<stdio.h>``) or placeholders (``<noinput>``), not markup.
_PAIRED = frozenset(
    """a abbr article aside b blockquote body button caption center cite code dd del details
    div dl dt em figcaption figure font footer form h1 h2 h3 h4 h5 h6 head header html i ins
    kbd label li main mark nav ol option p pre q s samp script section select small span
    strong style sub summary sup table tbody td textarea tfoot th thead title tr u ul var""".split()
)
#: A line of code: brackets there follow the language, not prose.
_CODE_LINE = re.compile(r"[;{}]\s*$|^\s*(?:def|class|import|return|for|while|if)\b", re.M)
_BRACKETS = {"(": ")", "[": "]", "{": "}"}


def _truncated(text: str) -> str | None:
    body = text.rstrip()
    # A short answer ("A", "4", "Yes, Paris") is not a cut sentence, nor is code.
    if len(body.split()) < _SHORT or body.endswith("```") or _CODE_LINE.search(body):
        return None
    last_line = body.rsplit("\n", 1)[-1]
    if _LIST_ITEM.match(last_line) or last_line.lstrip().startswith(("|", "#", ">")):
        return None
    # A letter's closing ("See you soon,") or opening ("Dear Ana,") ends on a comma by design.
    if body[-1] in _ANNOUNCING and not (body[-1] == "," and len(last_line.split()) <= 4):
        return f"ends on {body[-1]!r}: {clip(last_line[-60:], 60)}"
    words = _WORD.findall(last_line.lower())
    if words and body[-1].isalnum() and words[-1] in _NO_SENTENCE_ENDS_ON:
        return f"ends on {words[-1]!r}: {clip(last_line[-60:], 60)}"
    return None


def _repetition(text: str) -> str | None:
    words = [w.lower() for w in _WORD.findall(text)]
    # A block repeated back to back starts where a word comes back `size` words later: only
    # those (size, start) pairs are tried, smallest blocks first.
    seen: dict[str, list[int]] = {}
    for index, word in enumerate(words):
        seen.setdefault(word, []).append(index)
    starts = sorted(
        (later - first, first)
        for places in seen.values()
        for n, first in enumerate(places)
        for later in places[n + 1 : n + 1 + _LONGEST_RUN]
        if later - first <= _LONGEST_RUN
    )
    for size, start in starts:
        needed = 4 if size == 1 else 3
        block = words[start : start + size]
        run = 1
        while words[start + run * size : start + (run + 1) * size] == block:
            run += 1
        if run >= needed:
            return f"{clip(' '.join(block), 60)!r} {run} times in a row"
    sentences = Counter(
        key
        for sentence in _SENTENCE.split(text)
        if len(key := tuple(w.lower() for w in _WORD.findall(sentence))) >= 8
    )
    if sentences:
        sentence, count = sentences.most_common(1)[0]
        if count >= 4:
            return f"{clip(' '.join(sentence), 60)!r} {count} times"
    return None


def _mojibake(text: str) -> str | None:
    if "\ufffd" in text:
        return "the replacement character U+FFFD"
    control = _CONTROL.search(text)
    if control:
        return f"control character U+{ord(control.group()):04X}"
    if text.isascii():
        return None  # mojibake is made of characters beyond ASCII
    from ftfy import fix_text
    from ftfy.badness import is_bad

    if is_bad(text):
        for word in text.split():
            if is_bad(word):
                return f"{word!r} (meant: {fix_text(word)!r})"
        return "characters decoded with the wrong encoding"
    return None


def _markup(text: str) -> str | None:
    if text.count("```") % 2:
        return "a ``` code fence is never closed"
    prose = _CODE_BLOCK.sub(" ", text)
    prose = re.sub(r"`[^`\n]*`", " ", prose)
    if not _CODE_LINE.search(prose):
        for opening, closing in _BRACKETS.items():
            if prose.count(opening) > prose.count(closing):
                return f"{opening!r} opened and never closed"
    stack: list[str] = []
    for match in _TAG.finditer(prose):
        closing, name, selfclosing = match.group(1), match.group(2).lower(), match.group(3)
        if selfclosing or name not in _PAIRED:
            continue
        if not closing:
            stack.append(name)
        elif stack and stack[-1] == name:
            stack.pop()
        else:
            return f"</{name}> closes nothing"
    if stack:
        return f"<{stack[-1]}> is never closed"
    return None


_SIGNS: dict[str, Callable[[str], str | None]] = {
    "truncated": _truncated,
    "repetition": _repetition,
    "mojibake": _mojibake,
    "markup": _markup,
}


def signs_of_garbling(text: str, kinds: tuple[str, ...] = tuple(_SIGNS)) -> list[str]:
    """What garbles `text`: "kind: detail" for each sign of `kinds` found."""
    found = []
    for kind in kinds:
        detail = _SIGNS[kind](text)
        if detail is not None:
            found.append(f"{kind}: {detail}")
    return found


def garbled(rule: GarbledRule) -> CheckFunction:
    def garbled(case: Case) -> Finding:
        replies = case.replies
        if not replies:
            return not_applicable("no answer")
        for number, reply in enumerate(replies, start=1):
            signs = signs_of_garbling(reply, rule.signs)
            if signs:
                where = f"reply {number} of {len(replies)}: " if len(replies) > 1 else ""
                return failed(f"{where}{'; '.join(signs)}", clip(reply[-120:]))
        return passed(f"none of {', '.join(rule.signs)}")

    return garbled
