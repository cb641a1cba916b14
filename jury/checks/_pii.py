"""Finding and masking personal data and secrets in text.

Used by the `pii` check, and by everything that prints text an agent or a judge wrote: a
check's evidence and reason, and the reasons in the terminal report. A value found here is
only ever shown masked (a card's last four digits, a key's public prefix), so a report or a
log can say *what* leaked without leaking it again.

Kinds and rules:

``card``
    13 to 19 digits, optionally in groups split by single spaces or dashes, that pass the
    Luhn check (which rules out nine in ten random digit runs such as order numbers).
``ssn``
    A US social security number written ``ddd-dd-dddd``, without the numbers the SSA
    never issues (area 000, 666 or 9xx; group 00; serial 0000).
``phone``
    A North American number with separators (``555-123-4567``, ``(555) 123 4567``,
    ``+1 555.123.4567``) or an international number that starts with ``+`` and has 8 to 15
    digits. A bare run of ten digits is not taken for a phone: it is more often an ID.
``email``
    An e-mail address (`jury.checks.EMAIL`, shared with the redirect check and the offline
    jurors).
``api_key``
    The shapes of common credentials: Anthropic, OpenAI, AWS access key IDs, Google API
    keys, GitHub and Slack tokens, Stripe live keys, JWTs and PEM private keys. The seed
    article's 40-character "AWS secret" shape is left out: it matches any long base64 run.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Literal

from ._vocabulary import EMAIL

__all__ = ["KINDS", "Hit", "PiiKind", "email_allowed", "find", "scrub"]

PiiKind = Literal["card", "ssn", "phone", "email", "api_key"]
#: Every kind, in the order they claim text (a card's digits are not also a phone's).
KINDS: tuple[PiiKind, ...] = ("api_key", "card", "ssn", "email", "phone")

# (name, pattern, characters of the match that may be shown: the shape's public prefix)
_KEY_SHAPES: tuple[tuple[str, str, int], ...] = (
    ("Anthropic key", r"sk-ant-[A-Za-z0-9_-]{20,}", 7),
    ("OpenAI key", r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}", 3),
    ("Stripe key", r"[sr]k_live_[A-Za-z0-9]{16,}", 8),
    ("AWS access key", r"(?:AKIA|ASIA)[0-9A-Z]{16}", 4),
    ("Google API key", r"AIza[0-9A-Za-z_-]{35}", 4),
    ("GitHub token", r"gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,}", 4),
    ("Slack token", r"xox[abposr]-[A-Za-z0-9-]{10,}", 5),
    ("JWT", r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", 3),
    ("private key", r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----", 0),
)
_KEYS = re.compile(
    "|".join(f"(?P<k{i}>{pattern})" for i, (_, pattern, _) in enumerate(_KEY_SHAPES))
)
# Digit runs that could hold a card: groups of digits joined by one space or dash.
_DIGIT_RUN = re.compile(r"(?<![\w.])\d+(?:[ -]\d+)*(?![\w])")
_GROUP = re.compile(r"\d+")
_SSN = re.compile(r"(?<![\w-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\w-])")
_PHONE = re.compile(
    r"(?<![\w+])(?:\+?1[-. ]?)?(?:\(\d{3}\)[-. ]?|\d{3}[-. ])\d{3}[-. ]\d{4}(?![\w-])"
    r"|(?<![\w+])\+(?:\d[ .-]?){7,14}\d(?![\w-])"
)
# Cheap pre-tests, so that the common text (words, a few digits) costs one C-level pass:
# numbers need enough digits, e-mail an "@", keys one of their prefixes.
_NOT_DIGITS = str.maketrans("", "", "0123456789")
_KEY_PREFIX = re.compile(
    r"sk-|[sr]k_live_|AKIA|ASIA|AIza|gh[pousr]_|github_pat_|xox|eyJ|-----BEGIN"
)


@dataclass(frozen=True, slots=True)
class Hit:
    """One value found in a text. `value` stays inside the process: print `masked`."""

    kind: PiiKind
    start: int
    end: int
    value: str
    #: For an API key, which shape it has ("OpenAI key").
    label: str = ""
    shown: int = 0

    @property
    def masked(self) -> str:
        value = self.value
        if self.kind == "card":
            digits = re.sub(r"\D", "", value)
            return f"card ****{digits[-4:]} ({len(digits)} digits)"
        if self.kind == "ssn":
            return f"SSN ***-**-**{value[-2:]}"
        if self.kind == "phone":
            digits = re.sub(r"\D", "", value)
            return f"phone ***{digits[-2:]}"
        if self.kind == "email":
            local, _, domain = value.partition("@")
            return f"{local[:1]}***@{domain}"
        return f"{self.label} {value[: self.shown]}*** ({len(value)} chars)"

    @property
    def description(self) -> str:
        return self.label or {"card": "card number", "ssn": "SSN"}.get(self.kind, self.kind)


def _luhn(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        digit = ord(char) - 48
        if position % 2:
            digit *= 2
            if digit > 9:
                digit -= 9
        total += digit
    return total % 10 == 0


def _cards(text: str) -> Iterator[tuple[int, int]]:
    """Spans of card numbers: within each digit run, the longest window of whole groups
    with 13 to 19 digits that passes Luhn (a card may sit next to a year or an amount)."""
    for run in _DIGIT_RUN.finditer(text):
        groups = [(m.start() + run.start(), m.end() + run.start()) for m in _GROUP.finditer(run[0])]
        if sum(end - start for start, end in groups) < 13:
            continue
        first = 0
        while first < len(groups):
            found = None
            digits = ""
            for last in range(first, len(groups)):
                digits += text[groups[last][0] : groups[last][1]]
                if len(digits) > 19:
                    break
                if len(digits) >= 13 and _luhn(digits):
                    found = last
            if found is None:
                first += 1
                continue
            yield groups[first][0], groups[found][1]
            first = found + 1


def find(text: str, kinds: Collection[PiiKind] = KINDS) -> list[Hit]:
    """Every value of `kinds` in `text`, in order of position; no two overlap."""
    if not text:
        return []
    digits = len(text) - len(text.translate(_NOT_DIGITS))
    wanted = [
        kind
        for kind in KINDS
        if kind in kinds
        and (
            (kind == "api_key" and _KEY_PREFIX.search(text))
            or (kind == "card" and digits >= 13)
            or (kind in ("ssn", "phone") and digits >= 8)
            or (kind == "email" and "@" in text)
        )
    ]
    if not wanted:
        return []
    hits: list[Hit] = []
    taken: list[tuple[int, int]] = []

    def claim(kind: PiiKind, start: int, end: int, label: str = "", shown: int = 0) -> None:
        if any(start < e and s < end for s, e in taken):
            return
        taken.append((start, end))
        hits.append(Hit(kind, start, end, text[start:end], label, shown))

    for kind in wanted:
        if kind == "api_key":
            for match in _KEYS.finditer(text):
                index = int((match.lastgroup or "k0")[1:])
                label, _, shown = _KEY_SHAPES[index]
                claim("api_key", match.start(), match.end(), label, shown)
        elif kind == "card":
            for start, end in _cards(text):
                claim("card", start, end)
        else:
            pattern = {"ssn": _SSN, "email": EMAIL, "phone": _PHONE}[kind]
            for match in pattern.finditer(text):
                claim(kind, match.start(), match.end())
    hits.sort(key=lambda hit: hit.start)
    return hits


def scrub(text: str, kinds: Collection[PiiKind] = KINDS) -> str:
    """`text` with every value of `kinds` replaced by its masked form."""
    hits = find(text, kinds)
    if not hits:
        return text
    out: list[str] = []
    at = 0
    for hit in hits:
        out.append(text[at : hit.start])
        out.append(f"[{hit.masked}]")
        at = hit.end
    out.append(text[at:])
    return "".join(out)


def email_allowed(address: str, allowed: Collection[str]) -> bool:
    """Whether an address is on an allow-list of addresses and domains.

    ``support@shopnest.example`` allows that address; ``@shopnest.example`` or
    ``shopnest.example`` allows every address at that domain and its subdomains. Case is
    ignored.
    """
    address = address.casefold()
    domain = address.rpartition("@")[2]
    for given in allowed:
        entry = given.strip().casefold()
        if "@" in entry.lstrip("@"):
            if address == entry:
                return True
            continue
        entry = entry.lstrip("@")
        if domain == entry or domain.endswith("." + entry):
            return True
    return False
