"""The *garbled* check: an answer a limit or an error spoiled (the seed article's "unusable
answer"), read in every assistant turn of a conversation. Four signs, each chosen so that an
ordinary answer never shows it:

- *truncated*: the text stops mid-sentence: its last character is one that announces more
  (``,`` ``;`` ``:`` ``(`` ``-`` ...), or its last word is one no sentence ends on ("the",
  "and", "of", "with"...), and the text does not end in a code block or a list of items.
- *repetition*: the same words over and over, as a model stuck in a loop writes them: a run
  of 1 to 12 words repeated back to back (a word 4 times, a longer run 3 times), or a run of
  12 words that comes back 3 times anywhere.
- *mojibake*: text decoded with the wrong encoding ("cafÃ©", "itâ€™s"), as ``ftfy`` detects
  it (its ``badness`` heuristic: sequences that real text does not produce), the replacement
  character U+FFFD, or control characters other than tab and line breaks.
- *markup*: an odd number of ````` fences, a bracket opened and never closed, or an HTML tag
  opened and never closed (or closed without being opened), outside code blocks.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from .._case import Case
from ._core import CheckFunction, Finding, clip, failed, not_applicable, passed
from ._settings import GarbledRule

__all__ = ["garbled", "signs_of_garbling"]

_ANNOUNCING = ",;:([{-–—/&"
_NO_SENTENCE_ENDS_ON = frozenset(
    "the a an and or but nor of to with from by as than if because while my your our their "
    "its his her whose such".split()
)
_WORD = re.compile(r"[\w'’]+")
_CODE_BLOCK = re.compile(r"```.*?```", re.DOTALL)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)\b[^<>]*?(/?)>")
#: HTML elements that close themselves.
_VOID = frozenset("br hr img input meta link area base col embed source track wbr".split())
_BRACKETS = {"(": ")", "[": "]", "{": "}"}


def _truncated(text: str) -> str | None:
    body = text.rstrip()
    if not body or body.endswith("```"):
        return None
    last_line = body.rsplit("\n", 1)[-1]
    if _LIST_ITEM.match(last_line) or last_line.lstrip().startswith(("|", "#", ">")):
        return None
    if body[-1] in _ANNOUNCING:
        return f"ends on {body[-1]!r}: {clip(last_line[-60:], 60)}"
    words = _WORD.findall(last_line.lower())
    if words and body[-1].isalnum() and words[-1] in _NO_SENTENCE_ENDS_ON:
        return f"ends on {words[-1]!r}: {clip(last_line[-60:], 60)}"
    return None


def _repetition(text: str) -> str | None:
    words = [w.lower() for w in _WORD.findall(text)]
    for size in range(1, 13):
        needed = 4 if size == 1 else 3
        for start in range(len(words) - size * needed + 1):
            block = words[start : start + size]
            run = 1
            while words[start + run * size : start + (run + 1) * size] == block:
                run += 1
            if run >= needed:
                return f"{' '.join(block)!r} {run} times in a row"
    grams = Counter(tuple(words[i : i + 12]) for i in range(len(words) - 11))
    if grams:
        gram, count = grams.most_common(1)[0]
        if count >= 3:
            return f"{' '.join(gram)!r} {count} times"
    return None


def _mojibake(text: str) -> str | None:
    if "\ufffd" in text:
        return "the replacement character U+FFFD"
    control = _CONTROL.search(text)
    if control:
        return f"control character U+{ord(control.group()):04X}"
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
    for opening, closing in _BRACKETS.items():
        if prose.count(opening) > prose.count(closing):
            return f"{opening!r} opened and never closed"
    stack: list[str] = []
    for match in _TAG.finditer(prose):
        closing, name, selfclosing = match.group(1), match.group(2).lower(), match.group(3)
        if selfclosing or name in _VOID:
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
