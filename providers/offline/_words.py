"""The vocabulary the offline jurors measure answers with: content words (light stemming, stop
words removed), the specifics an answer asserts (IDs, amounts, numbers, e-mails, addresses,
dates, names), and the side of a yes/no a text takes."""

from __future__ import annotations

import re
from functools import lru_cache

from jury.checks import EMAIL

STOP = frozenset(
    """a an the and or but if then so of to in on at by for with from as is are was were be
    been being it its this that these those i you your yours we our us he she they them their
    my me do does did done can could will would shall should may might must have has had not
    no yes there here what which who whom when where why how all any some each other than too
    very just also only about into over after before again further once more most such own
    same both few up down out off s t don hasn haven isn wasn weren won wouldn couldn shouldn
    ll ve re d m o y ma please thanks thank sorry hi hello""".split()
)

TOKEN = re.compile(r"[a-z0-9$%]+(?:[-.'][a-z0-9]+)*")
ID = re.compile(r"\b[A-Z]{2,}[-_]?\d+\b")
AMOUNT = re.compile(r"[$€£]\s?\d+(?:[.,]\d+)?")
NUMBER = re.compile(r"(?<![\w.$€£-])\d+(?:[.,]\d+)?%?(?![\w-]*\d)")
URL = re.compile(r"\b(?:https?://)?[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}/[\w/.-]*", re.I)
DATE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|"
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}\b",
    re.I,
)
NAME = re.compile(r"(?<![.!?:]\s)(?<!^)(?<!\n)\b[A-Z][a-zA-Z]+(?:\s[A-Z][a-zA-Z]+)*")

NEGATIVE = re.compile(
    r"^\s*no\b|\bnot\b|n't\b|\bcannot\b|\bno longer\b|\bclosed\b|\bexpired\b|\bpassed\b|"
    r"\btoo late\b|\boutside\b|\bunfortunately\b|\bineligible\b|\bdenied\b",
    re.I,
)
POSITIVE = re.compile(r"^\s*yes\b|\bstill\b|\bwithin\b|\beligible\b|\bapproved\b", re.I)
YES_NO_QUESTION = re.compile(
    r"\s*(?:can|could|is|are|was|were|has|have|had|do|does|did|will|would|should|may|am)\b", re.I
)

#: Words that frame a statement ("States that...") rather than say what it states.
FRAMING = frozenset(
    """states state stated says say said mentions mention mentioned concludes conclude
    confirms confirm tells tell names name gives give answer answers customer user explains
    explain notes note promises promise declares declare reports report""".split()
)

#: Verbs that open an instruction ("Email support@...", "Write to..."): written with a capital
#: at a sentence's start, never a name.
INSTRUCTIONS = frozenset(
    """add ask book call cancel check choose click contact copy email enter fill find follow go
    log message open order pay pick press print reply return see select send sign start submit
    tap try type use visit wait write""".split()
)


def stem(word: str) -> str:
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""), ("ly", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + keep
    return word


@lru_cache(maxsize=4096)
def content(text: str) -> frozenset[str]:
    """The text's content words, stemmed, without stop words."""
    return frozenset(stem(t) for t in TOKEN.findall(text.lower()) if t not in STOP)


def norm(claim: str) -> str:
    return re.sub(r"\s+", "", claim.lower().rstrip(".,"))


@lru_cache(maxsize=4096)
def claims(text: str) -> frozenset[str]:
    """Checkable specifics: IDs, amounts, numbers, e-mails, addresses, dates and names."""
    found: set[str] = set()
    for pattern in (ID, AMOUNT, EMAIL, URL, DATE):
        found.update(norm(m) for m in pattern.findall(text))
    found.update(norm(m) for m in NUMBER.findall(text))
    for name in NAME.findall(text):
        if name not in ("I", "I'm") and not ID.fullmatch(name):
            found.add(norm(name))
    return frozenset(found)


def present(claim: str, haystack: str) -> bool:
    return claim in re.sub(r"\s+", "", haystack.lower())


def polarity(text: str) -> int:
    """+1 for a yes, -1 for a no, 0 when the text takes no side."""
    negative = len(NEGATIVE.findall(text))
    positive = len(POSITIVE.findall(text))
    if negative > positive:
        return -1
    if positive > negative:
        return 1
    return 0


def level(share: float) -> int:
    """A share in [0, 1] on the 1-5 scale: 1 below 0.2, then one level per 0.2."""
    return 1 + sum(share >= cut for cut in (0.2, 0.4, 0.6, 0.8))
