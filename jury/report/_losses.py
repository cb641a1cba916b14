"""What a run's judges lost: the kinds of error a juror met (`JudgeError`, `error_kind`) and
the cases decided without a family of the panel (`FamilyLoss`); counted by
`jury.report._summary.Tally`, said by `jury.report._judge_errors`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .._verdict import Vote, VoteStatus

__all__ = ["LOST", "FamilyLoss", "JudgeError", "error_kind", "record_error"]


@dataclass(slots=True)
class JudgeError:
    """One kind of error a juror met in a run (`kind`: "HTTP 404", "timeout", "invalid
    reply"...): its first words, the case where it was first seen, and how many votes had it."""

    kind: str
    first: str
    case_id: str
    count: int = 1


@dataclass(slots=True)
class FamilyLoss:
    """Cases the panel decided without any valid vote of one of its families: how many, and
    which of that family's jurors failed them (unavailable or invalid: an abstention is a
    juror that could not measure, not a loss)."""

    cases: int = 0
    jurors: list[str] = field(default_factory=list)


#: The votes that count as a juror lost on a case (an abstention is the juror's own call).
LOST = (VoteStatus.UNAVAILABLE, VoteStatus.INVALID)
#: The first words kept of an error: enough to tell it, short enough for a terminal line.
_FIRST_WORDS = 300


def record_error(errors: dict[str, JudgeError], vote: Vote, case_id: str) -> None:
    """Count a lost vote's error under its kind, keeping the first of each kind."""
    kind = error_kind(vote)
    found = errors.get(kind)
    if found is None:
        text = " ".join((vote.error or vote.reason or "").split())
        errors[kind] = JudgeError(kind, text[:_FIRST_WORDS], case_id)
    else:
        found.count += 1


_HTTP = re.compile(r"\bHTTP (\d{3})\b")
#: Words of an error that say what kind it is, in the order they are tried.
_KINDS = (
    (re.compile(r"no reply within|timed? ?out|TimeoutError", re.I), "timeout"),
    (re.compile(r"connect|connection|unreachable|resolve", re.I), "connection"),
    (re.compile(r"^budget:"), "budget"),
    (re.compile(r"\bbatch", re.I), "batch"),
)


def error_kind(vote: Vote) -> str:
    """What kind of error a lost vote met: "invalid reply" for an invalid one; for an
    unavailable one its HTTP status ("HTTP 404"), else "timeout", "connection", "budget",
    "batch", else the exception's name the error starts with, else "error"."""
    if vote.status is VoteStatus.INVALID:
        return "invalid reply"
    text = vote.error or ""
    found = _HTTP.search(text)
    if found is not None:
        return f"HTTP {found[1]}"
    for pattern, kind in _KINDS:
        if pattern.search(text):
            return kind
    head = text.partition(":")[0].strip()
    return head if head.isidentifier() else "error"
