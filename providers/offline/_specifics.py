"""Specifics compared by value: the numbers, dates, amounts, durations, quantities, times,
IDs, codes, e-mail and web addresses of a text, each read with what it measures, so that the
same fact written otherwise is the same ("$30", "30 dollars", "USD 30"; "14 days", "two
weeks"; "2025-03-14", "March 14, 2025", "the 14th of March") and another value of the same
kind is a contradiction ("14 days" where the golden answer says "30 days").

What is read, in this order (a span read as one kind is not read again as another):

- e-mail addresses, web addresses (with a scheme, ``www.``, or a domain and a path: compared
  without scheme, ``www.`` and trailing slash), IDs (``ORD-102``: compared with others of the
  same prefix) and model codes (``X200``: a capital, then digits);
- dates: ``2025-03-14``, ``March 14, 2025``, ``Mar. 14th``, ``14 March 2025``, ``the 14th of
  March``, ``3/14/2025`` (figures with slashes are read both ways, month or day first, where
  both are dates); a date without its year is the same as one with it on that day;
- times of day: ``9 am``, ``6:30 p.m.``, ``10:15``;
- amounts of money: a currency sign or code before or after the number (``$``, ``€``, ``£``,
  ``¥``, ``USD``, ``EUR``, ``GBP``...) or a currency word after it (dollars, euros, yen); "$"
  and "dollars" are the same as any dollar's code; two currencies are two amounts;
- percentages (``15%``, ``15 percent``, ``15 per cent``);
- durations, converted to days: seconds to years, a fortnight 14 days, a month 28 to 31 days
  and a year 365 to 366 (so "a month" is the same as "30 days": a judgement call, as people
  say "within a month" of a 30-day window, but not "14 days"); business or working days are
  their own kind, never converted to calendar days, and so is a time before "ago" ("delivered
  20 days ago" is compared with other times past, not with "within 2 hours");
- quantities with a unit, converted within their measure (kg, g, lb, oz; km, m, cm, mile, ft,
  inch; l, ml, gallon; kB to TB; and units compared as written: mAh, Wh, W, V...), the same
  within 1.5% when written in different units ("2 km" is not "2 miles");
- counts: a whole number before a noun in lower case ("3 items", "5 user seats": compared
  with counts of the same noun; "in 2012 ShopNest opened", "2.3 fixed it" count nothing);
- other numbers in figures, alone ("the card ending in 1111", "founded in 2012"; a list's
  "1." is none).

Numbers are figures (``1,200``, ``4.50``) or, before a unit, a noun or a currency, words up to
the thousands ("three", "twenty-five", "two hundred"); "a" and "an" are one before a unit ("a
month", "an hour"), never before a noun. A range ("3 to 5 business days", "3-5 days") gives
each end the unit.

*Contradiction*: of one kind (and unit, for a count or an ID's prefix), the golden answer gives
a value the answer does not give, and the answer gives one the golden answer does not ("within
14 days" for "within 30 days"). An answer that gives every value of the golden answer
contradicts none, whatever else it adds ("delivered 20 days ago, within the 30-day window").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from jury import Case
from jury.adapters import Rating
from jury.checks import EMAIL

from ._words import ID, STOP, norm, present, stem

__all__ = [
    "Specific",
    "carried",
    "conflict",
    "contradicted",
    "is_number",
    "said_in",
    "specifics",
    "values",
]

_ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen".split()
)
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_WORD_VALUE = {w: float(i) for i, w in enumerate(_ONES)} | {
    w: float(20 + 10 * i) for i, w in enumerate(_TENS)
}
_NUMBER_WORD = (
    rf"(?:(?:{'|'.join(_TENS)})(?:[- ](?:{'|'.join(_ONES[1:10])}))?|{'|'.join(_ONES)})"
    r"(?:\s+(?:hundred|thousand))?"
)
_DIGITS = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_NUMBER = rf"(?:{_DIGITS}|{_NUMBER_WORD}\b)"
_RANGE = rf"(?P<num>{_NUMBER})(?:\s*(?:-|–|to|or|and)\s*(?P<num2>{_NUMBER}))?"

#: Units of time in days (low, high): a month is 28 to 31 days, a year 365 to 366.
_TIME = {
    "second": (1 / 86400,) * 2,
    "sec": (1 / 86400,) * 2,
    "minute": (1 / 1440,) * 2,
    "min": (1 / 1440,) * 2,
    "hour": (1 / 24,) * 2,
    "hr": (1 / 24,) * 2,
    "day": (1.0, 1.0),
    "night": (1.0, 1.0),
    "week": (7.0, 7.0),
    "fortnight": (14.0, 14.0),
    "month": (28.0, 31.0),
    "year": (365.0, 366.0),
    "yr": (365.0, 366.0),
}
#: Units of a measure, in the measure's base unit.
_MEASURES = {
    "mass": {"kg": 1000, "kilogram": 1000, "g": 1, "gram": 1, "mg": 0.001, "lb": 453.592,
             "lbs": 453.592, "oz": 28.3495, "ounce": 28.3495, "tonne": 1e6},
    "length": {"km": 1000, "kilometre": 1000, "kilometer": 1000, "m": 1, "metre": 1, "meter": 1,
               "cm": 0.01, "centimetre": 0.01, "centimeter": 0.01, "mm": 0.001,
               "millimetre": 0.001, "millimeter": 0.001, "mile": 1609.344, "mi": 1609.344,
               "ft": 0.3048, "foot": 0.3048, "feet": 0.3048, "inch": 0.0254, "yard": 0.9144},
    "volume": {"l": 1000, "litre": 1000, "liter": 1000, "ml": 1, "millilitre": 1,
               "milliliter": 1, "gallon": 3785.41},
    "data": {"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12, "kilobyte": 1e3, "megabyte": 1e6,
             "gigabyte": 1e9, "terabyte": 1e12},
}  # fmt: skip
#: Units compared as written, without conversion.
_PLAIN_UNITS = frozenset("mah wh kwh w kw v hz khz mhz ghz mp dpi fps rpm".split())
_UNIT_OF = {
    u: (measure, factor) for measure, units in _MEASURES.items() for u, factor in units.items()
}

_CURRENCY_SIGN = {"$": "$", "€": "EUR", "£": "GBP", "¥": "JPY", "us$": "USD"}
_CURRENCY_CODES = "usd eur gbp jpy cad aud nzd chf inr cny sek nok dkk sgd hkd".split()
_CURRENCY_WORD = {"dollar": "$", "buck": "$", "euro": "EUR", "yen": "JPY", "rupee": "INR"}
_DOLLARS = frozenset({"$", "USD", "CAD", "AUD", "NZD", "SGD", "HKD"})

_MONTHS = (
    "january february march april may june july august september october november december"
).split()
_MONTH = (
    rf"(?P<month>{'|'.join(_MONTHS)}|(?:jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?)"
    r"(?![a-z])"
)
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+(?P<year>\d{4}))?"
_DATES = tuple(
    re.compile(pattern, re.I)
    for pattern in (
        r"\b(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})\b",
        rf"\b{_MONTH}\s+{_DAY}\b{_YEAR}",
        rf"\b(?:the\s+)?{_DAY}(?:\s+of)?\s+{_MONTH}{_YEAR}",
        r"\b(?P<a>\d{1,2})/(?P<b>\d{1,2})/(?P<year>\d{4}|\d{2})\b",
    )
)
_CLOCK = re.compile(
    r"\b(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<ap>[ap]\.m\.|[ap]m\b)"
    r"|\b(?P<h24>\d{1,2}):(?P<m24>\d{2})\b",
    re.I,
)
_URL = re.compile(
    r"\b(?:https?://|www\.)[^\s<>\"')]+|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}/[^\s<>\"')]*",
    re.I,
)
_CODE = re.compile(r"\b[A-Z][A-Za-z]?\d+[A-Za-z0-9]*\b")
_MONEY = re.compile(
    rf"(?:(?P<sign>us\$|[$€£¥])\s?|\b(?P<code>{'|'.join(_CURRENCY_CODES)})\s?)"
    rf"(?P<amount>{_DIGITS})(?:\s+(?P<scale>thousand|million))?"
    rf"|(?P<amount2>{_DIGITS}|\b{_NUMBER_WORD})\s*(?:(?P<code2>{'|'.join(_CURRENCY_CODES)})\b"
    rf"|(?P<word>{'|'.join(_CURRENCY_WORD)})s?\b)",
    re.I,
)
_QUANTITY = re.compile(
    rf"(?:(?<![\w.,]){_RANGE}|\b(?P<one>an?|one|half\s+an?)\b)(?:\s*-\s*|\s+)?(?P<unit>%|"
    r"percent\b|per\s+cent\b|(?:business|working|work|calendar)[- ]days?\b|[a-z]+\b)",
    re.I,
)
#: Words after a number that count nothing: "2012 and", "one thousand".
_NOT_NOUNS = STOP | {"hundred", "thousand", "million", "billion"}
_BARE = re.compile(rf"(?<![\w.,])(?:{_DIGITS})(?![\w])")
_LIST_MARKER = re.compile(r"(?m)^\s*\d{1,2}[.)]\s")

Day = tuple[int, int | None, int | None]  # month, day, year (None: not given)


@dataclass(frozen=True)
class Specific:
    """One specific: what it measures (`dimension`: two of one dimension are the same value
    or a contradiction), its value (a range, for "a month"), key or days, and its text."""

    dimension: str
    text: str
    low: float = 0.0
    high: float = 0.0
    #: What an ID, code, e-mail or web address is compared by; an amount's currency.
    key: str = ""
    #: The days a date can be (figures with slashes read both ways).
    days: frozenset[Day] = frozenset()
    #: The unit as written (a range within one unit is exact; across units, within 1.5%).
    unit: str = ""

    def same(self, other: Specific) -> bool:
        if self.dimension != other.dimension:
            return False
        if self.days or other.days:
            return any(_same_day(a, b) for a in self.days for b in other.days)
        if self.dimension == "money":
            if not _same_currency(self.key, other.key):
                return False
        elif self.key or other.key:
            return self.key == other.key
        slack = 0.0 if self.unit == other.unit else 0.015
        tiny = 1e-9
        return (
            self.low <= other.high * (1 + slack) + tiny
            and other.low <= self.high * (1 + slack) + tiny
        )


def _same_day(a: Day, b: Day) -> bool:
    return all(x == y or x is None or y is None for x, y in zip(a, b, strict=True))


def _same_currency(a: str, b: str) -> bool:
    return a == b or ("$" in (a, b) and {a, b} <= _DOLLARS)


def _number(text: str) -> float:
    text = text.strip().lower()
    if text[0].isdigit():
        return float(text.replace(",", "").rstrip("%"))
    value = 0.0
    for word in re.split(r"[- ]+", text):
        if word in ("hundred", "thousand"):
            value = max(value, 1.0) * (100 if word == "hundred" else 1000)
        else:
            value += _WORD_VALUE[word]
    return value


def _unit(word: str) -> str:
    """A unit word, lower case, without its plural: "Days" -> "day", "inches" -> "inch"."""
    word = re.sub(r"[- ]+", " ", word.lower())
    if word.endswith("ches"):
        return word[:-2]
    if word.endswith("s") and len(word) > 2 and word != "lbs":
        return word[:-1]
    return word


def _masked(text: str, spans: list[tuple[int, int]]) -> str:
    out = list(text)
    for start, end in spans:
        out[start:end] = " " * (end - start)
    return "".join(out)


def _entities(text: str, spans: list[tuple[int, int]]) -> Iterator[Specific]:
    for m in EMAIL.finditer(text):
        spans.append(m.span())
        yield Specific("email", m.group(), key=m.group().lower())
    for m in _URL.finditer(_masked(text, spans)):
        spans.append(m.span())
        written = m.group().rstrip(".,;:!?")
        key = re.sub(r"^(?:https?://)?(?:www\.)?", "", written.lower()).rstrip("/")
        yield Specific("url", written, key=key)
    for m in ID.finditer(_masked(text, spans)):
        spans.append(m.span())
        prefix = re.sub(r"[^A-Za-z].*", "", m.group()).lower()
        yield Specific(f"id {prefix}", m.group(), key=re.sub(r"[-_]", "", m.group().upper()))
    for m in _CODE.finditer(_masked(text, spans)):
        spans.append(m.span())
        yield Specific("code", m.group(), key=m.group().upper())


def _dates(text: str, spans: list[tuple[int, int]]) -> Iterator[Specific]:
    abbreviations = [name[:3] for name in _MONTHS]
    for pattern in _DATES:
        for m in pattern.finditer(_masked(text, spans)):
            found = m.groupdict()
            year = int(found["year"]) if found.get("year") else None
            if year is not None and year < 100:
                year += 2000
            if "a" in found:
                a, b = int(found["a"]), int(found["b"])
                days: set[Day] = {(a, b, year), (b, a, year)}
            else:
                month = found["month"].lower()
                number = int(month) if month.isdigit() else abbreviations.index(month[:3]) + 1
                days = {(number, int(found["day"]), year)}
            valid = frozenset(d for d in days if 1 <= d[0] <= 12 and 1 <= (d[1] or 1) <= 31)
            if valid:
                spans.append(m.span())
                yield Specific("date", m.group(), days=valid)


def _clock(text: str, spans: list[tuple[int, int]]) -> Iterator[Specific]:
    for m in _CLOCK.finditer(_masked(text, spans)):
        hour = int(m.group("h") or m.group("h24"))
        minute = int(m.group("m") or m.group("m24") or 0)
        if m.group("ap"):
            hour = hour % 12 + (12 if m.group("ap").lower().startswith("p") else 0)
        if hour < 24 and minute < 60:
            spans.append(m.span())
            value = float(hour * 60 + minute)
            yield Specific("time of day", m.group(), value, value)


def _money(text: str, spans: list[tuple[int, int]]) -> Iterator[Specific]:
    for m in _MONEY.finditer(_masked(text, spans)):
        if m.group("amount"):
            value = _number(m.group("amount"))
            value *= {"thousand": 1e3, "million": 1e6}.get((m.group("scale") or "").lower(), 1)
            sign, code = m.group("sign"), m.group("code")
            currency = _CURRENCY_SIGN[sign.lower()] if sign else code.upper()
        else:
            value = _number(m.group("amount2"))
            code, word = m.group("code2"), m.group("word")
            currency = code.upper() if code else _CURRENCY_WORD[word.lower()]
        spans.append(m.span())
        yield Specific("money", m.group(), value, value, key=currency)


def _quantities(text: str, spans: list[tuple[int, int]]) -> Iterator[Specific]:
    masked = _masked(text, spans)
    for m in _QUANTITY.finditer(masked):
        unit = _unit(m.group("unit"))
        found = _measured(unit)
        if m.group("one"):
            if found is None:
                continue  # "a discount": no count
            values = [0.5 if m.group("one").lower().startswith("half") else 1.0]
        else:
            values = [_number(m.group("num"))]
            if m.group("num2"):
                values.append(_number(m.group("num2")))
        written = m.group("unit")
        if found is None and (
            unit in _NOT_NOUNS
            or not unit.isalpha()
            or written[0].isupper()
            or any(value != int(value) for value in values)
        ):
            continue  # no unit: "in 2012 and", "in 2012 ShopNest", "2.3 fixed" (read below)
        dimension, low, high = found or (f"count {stem(unit)}", 1.0, 1.0)
        if dimension == "duration" and re.match(r"\s+ago\b", masked[m.end() :], re.I):
            dimension = "time ago"  # "delivered 20 days ago" is no delay ("within 2 hours")
        spans.append(m.span())
        for value in values:
            yield Specific(dimension, m.group(), value * low, value * high, unit=unit)


def _measured(unit: str) -> tuple[str, float, float] | None:
    """The measure a unit belongs to, and its size in the measure's base unit (low, high)."""
    if unit in ("%", "percent", "per cent"):
        return "percent", 1.0, 1.0
    if unit in ("business day", "working day", "work day"):
        return "business days", 1.0, 1.0
    unit = unit.removeprefix("calendar ")
    if unit in _TIME:
        low, high = _TIME[unit]
        return "duration", low, high
    if unit in _UNIT_OF:
        measure, factor = _UNIT_OF[unit]
        return measure, factor, factor
    if unit in _PLAIN_UNITS:
        return unit, 1.0, 1.0
    return None


def _numbers(text: str, spans: list[tuple[int, int]]) -> Iterator[Specific]:
    bare = _LIST_MARKER.sub(lambda m: " " * len(m.group()), _masked(text, spans))
    for m in _BARE.finditer(bare):
        value = _number(m.group())
        yield Specific("number", m.group(), value, value)


_ANY_NUMBER = re.compile(rf"{_BARE.pattern}|\b(?:{_NUMBER_WORD}|hundred|thousand)\b", re.I)


@lru_cache(maxsize=4096)
def values(text: str) -> frozenset[float]:
    """Every number a text gives, as a number, whatever it counts: figures (an ID's left out:
    ORD-102) and number words ("eight", "twenty-five", "a thousand")."""
    return frozenset(_number(m.group()) for m in _ANY_NUMBER.finditer(ID.sub(" ", text)))


_IS_NUMBER = re.compile(rf"(?:{_DIGITS})%?|{_NUMBER_WORD}|hundred|thousand", re.I)


def is_number(word: str) -> bool:
    """Whether a word is a number, in figures ("1,200", "15%") or in words."""
    return _IS_NUMBER.fullmatch(word) is not None


@lru_cache(maxsize=4096)
def specifics(text: str) -> tuple[Specific, ...]:
    """The specifics `text` gives, each once, in the order of the module's docstring."""
    spans: list[tuple[int, int]] = []
    found: list[Specific] = []
    for read in (_entities, _dates, _clock, _money, _quantities, _numbers):
        found.extend(read(text, spans))
    return tuple(found)


def contradicted(gold: str, answer: str) -> tuple[Specific, Specific] | None:
    """A value of the golden answer the answer does not give, and the answer's value of the
    same kind that the golden answer does not give; None when there is none."""
    theirs, ours = specifics(gold), specifics(answer)
    for wanted in theirs:
        if any(wanted.same(given) for given in ours):
            continue
        for given in ours:
            if given.dimension == wanted.dimension and not any(given.same(g) for g in theirs):
                return wanted, given
    return None


def carried(gold: str, answer: str) -> list[str]:
    """The golden answer's specifics, as it writes them, when the answer gives every one of
    them (in its own words or not); an empty list when it leaves one out, or there is none."""
    theirs, ours = specifics(gold), specifics(answer)
    if not all(any(wanted.same(given) for given in ours) for wanted in theirs):
        return []
    return [wanted.text for wanted in theirs]


def said_in(claim: str, text: str, where: str) -> bool:
    """Whether `claim`, a specific `text` gives (`jury.providers.offline._words.claims`), is
    said in `where`: word for word, or as a specific of the same value written otherwise."""
    if present(claim, where) or (is_number(claim) and _number(claim) in values(where)):
        return True  # "8" said as "eight"
    theirs = specifics(where)
    return any(
        any(mine.same(t) for t in theirs)
        for mine in specifics(text)
        if _holds(norm(mine.text), claim) or _holds(mine.text.lower(), claim)
    )


def _holds(text: str, claim: str) -> bool:
    """Whether `claim` is in `text`, not inside a longer number or word ("3" is not in "30")."""
    at = text.find(claim)
    while at >= 0:
        end = at + len(claim)
        if not (at and text[at - 1].isalnum()) and not (end < len(text) and text[end].isalnum()):
            return True
        at = text.find(claim, at + 1)
    return False


def conflict(case: Case, answer: str) -> Rating | None:
    """Correctness 1 when the answer contradicts a specific of the golden answer."""
    found = contradicted(case.golden_answer or "", answer)
    if found is None:
        return None
    wanted, given = found
    return Rating(1, f"gives {given.text} where the golden answer gives {wanted.text}")
