"""What every shape reader shares: the text a judge reads from a structured value, and a
builder that moves a record's keys to a case's fields and keeps what is left in metadata."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .._problems import spellings
from ._case import _TRACE_KEYS, Case
from ._turns import TurnsError, read_turns
from ._unseen import image_part, unseen

__all__ = [
    "ANSWER_KEYS",
    "KEPT",
    "ORIGINS",
    "QUESTION_KEYS",
    "UNAPPLIED",
    "Builder",
    "Record",
    "is_chat",
    "one_of",
    "typed",
]

Record = dict[str, Any]

# Keys of a mapping that hold the question or the answer, first found first used.
QUESTION_KEYS = ("question", "input", "query", "prompt", "user_input", "instruction", "text")
ANSWER_KEYS = ("answer", "output", "response", "completion", "text", "content", "result")
#: The key under which a read record carries the record's own key of each field it was read
#: from (taken off by `recognise`): an error then names the key the user wrote.
ORIGINS = "\x00origins"
#: The key of ORIGINS' table that lists the record's keys kept in metadata, for a notice.
KEPT = "\x00kept"
#: The key of ORIGINS' table that lists, one a line, the types of the record's assertions
#: that no check and no juror applies (a promptfoo ``javascript``), for a warning.
UNAPPLIED = "\x00unapplied"
# A case's fields, and the trace's that a case may give at its top (the seed article's).
_FIELDS = frozenset(spellings(Case)) | _TRACE_KEYS


def _content(message: Mapping[str, Any]) -> Any:
    content = message.get("content")
    if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}, ...]
        # A part that is not text is named where it was, as a turn's is (`_turns`): an image
        # by its number (kept for the case), audio by its kind (the judges cannot see it).
        texts = []
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, Mapping):
                text = part.get("text")
                kind = str(part.get("type", "content")).removesuffix("_url")
                if not isinstance(text, str):
                    # An image is kept for the case, numbered where it was (`_images`).
                    text = image_part(part) or unseen(kind)
                texts.append(text)
        return "\n".join(texts)
    return content


def is_chat(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(m, Mapping) and "role" in m for m in value)
    )


def _as_text(value: Any) -> Any:
    """A table or list a judge is to read, as JSON text (a case's text fields hold text)."""
    if isinstance(value, Mapping | list):
        return json.dumps(value, ensure_ascii=False, indent=2)
    return value


def _text(value: Any, keys: tuple[str, ...]) -> tuple[Any, bool]:
    """The text a judge reads from a structured value, and whether anything was left out."""
    if is_chat(value):
        # Of a question, the user's last message; of an answer, the assistant's.
        roles = ("assistant", "ai") if keys is ANSWER_KEYS else ("user", "human")
        said = [m for m in value if m.get("role") in roles]
        last = said[-1] if said else value[-1]
        return _content(last), len(value) > 1
    if isinstance(value, Mapping):
        if len(value) == 1:
            inner, lost = _text(next(iter(value.values())), keys)
            # {"question": "..."} is its text; {"temp": 21} is said whole, its key with it.
            return (inner, lost) if isinstance(inner, str) else (_as_text(value), False)
        for key in keys:
            if key in value:
                inner, _ = _text(value[key], keys)
                return inner, True
        if "messages" in value:
            inner, _ = _text(value["messages"], keys)
            return inner, True
        return _as_text(value), False
    return value, False


def typed(record: Record, key: str, kind: type, default: Any) -> Any:
    """`record[key]` when it is a `kind` (``default`` when absent): a value that is not a
    table (or list) cannot be read, and is said to be so rather than dropped."""
    value = record.pop(key, None)
    if value is None:
        return default
    if not isinstance(value, kind):
        raise TypeError(f"{key}: expected {'a table' if kind is dict else 'a list'}")
    return value


def one_of(value: Any) -> Any:
    """A list of acceptable answers as one golden answer (the list is kept in metadata)."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        if len(value) == 1:
            return value[0]
        return "Any of these answers is correct:\n" + "\n".join(f"- {v}" for v in value)
    return value


class Builder:
    """A case's fields, built from a record: what is taken is moved, the rest stays (or, with
    `keep_rest`, goes to metadata: a tool's own keys are no case field to misspell)."""

    def __init__(self, record: Record) -> None:
        self.rest = dict(record)
        self.out: Record = {}
        self.metadata: Record = {}
        #: The record's key each case field was read from, for errors in the user's words.
        self.origins: dict[str, str] = {}

    def take(self, key: str) -> Any:
        return self.rest.pop(key, None)

    def put(self, field: str, value: Any, key: str) -> None:
        self.out[field] = value
        if key != field:
            self.origins[field] = key

    def text(self, key: str, field: str, keys: tuple[str, ...] = QUESTION_KEYS) -> None:
        if key not in self.rest:
            return
        value = self.rest.pop(key)
        text, lost = _text(value, keys)
        self.put(field, text, key)
        if lost:
            self.metadata[key] = value

    def question(self, key: str) -> None:
        """The question, or the conversation: a chat of several messages (as `key` or as its
        ``messages``) is the case's turns, judged as a conversation; one message is text."""
        value = self.rest.get(key)
        chat = value.get("messages") if isinstance(value, Mapping) else value
        if not (is_chat(chat) and isinstance(chat, list) and len(chat) > 1):
            self.text(key, "question")
            return
        try:
            self.put("turns", read_turns(chat), key)
        except TurnsError as exc:
            where = f"{key}.messages" if chat is not value else key
            raise ValueError(f"{where}{str(exc).removeprefix('turns')}") from None
        del self.rest[key]
        if isinstance(value, Mapping) and len(value) > 1:  # LangSmith's other inputs
            self.metadata[key] = {k: v for k, v in value.items() if k != "messages"}

    def answers(self, key: str, field: str) -> None:
        if key not in self.rest:
            return
        value = self.rest.pop(key)
        text, lost = _text(value, ANSWER_KEYS) if isinstance(value, Mapping) else (value, False)
        self.put(field, one_of(text), key)
        if lost or (isinstance(text, list) and len(text) > 1):
            self.metadata[key] = value

    def keep(self, *keys: str) -> None:
        """Move `keys` to metadata (what a case has no field for)."""
        for key in keys:
            if key in self.rest:
                self.metadata[key] = self.rest.pop(key)

    def done(self, *, keep_rest: bool = True) -> Record:
        """The case's fields. A key of the record that no field takes is kept in metadata
        (and listed for a notice), unless `keep_rest` is false: it then stays, to be refused
        as an unknown field (a case's own fields, where it may be a typo)."""
        own = self.rest.pop("metadata", None)
        if keep_rest:
            kept = [key for key in self.rest if key not in _FIELDS]
            self.keep(*kept)
            if kept:
                self.origins[KEPT] = ", ".join(kept)
        metadata = {**(own if isinstance(own, Mapping) else {}), **self.metadata}
        if own is not None and not isinstance(own, Mapping):
            metadata["metadata"] = own
        out = {**self.rest, **self.out}
        if metadata:
            out["metadata"] = metadata
        if self.origins:
            out[ORIGINS] = self.origins
        return out
