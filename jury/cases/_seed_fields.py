"""Case fields from the RAG-agent evals seed article: facts the answer must find, the date the
question was asked, and the set (dev or held out) a case belongs to."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, field_validator, model_validator

__all__ = ["IsoDate", "MustFind", "Split"]

_FROZEN = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


def _iso_date(value: object) -> object:
    # Only a written date: a number would be read as a timestamp, a datetime cut silently.
    if isinstance(value, str):
        try:
            return date.fromisoformat(value.strip())
        except ValueError:
            raise ValueError(f"expected a date as YYYY-MM-DD, got {value!r}") from None
    if isinstance(value, date) or value is None:
        return value
    raise ValueError(f"expected a date as YYYY-MM-DD, got {value!r}")


def _split(value: object) -> object:
    if isinstance(value, str):
        return {"held-out": "heldout", "held_out": "heldout"}.get(value.strip().lower(), value)
    return value


#: A date written YYYY-MM-DD.
IsoDate = Annotated[date, BeforeValidator(_iso_date)]
#: "dev", the set worked against every day, or "heldout", run only to confirm a decision
#: ("held-out" and "held_out" load too).
Split = Annotated[Literal["dev", "heldout"], BeforeValidator(_split)]


class MustFind(BaseModel):
    """Something the answer must contain: every one of `phrases` (case and spacing ignored,
    not inside a longer word), or a match of `regex`."""

    model_config = _FROZEN

    phrases: tuple[str, ...] = ()
    regex: str | None = None
    #: How the case gave it, for reports.
    label: str

    @model_validator(mode="before")
    @classmethod
    def _from_item(cls, value: object) -> object:
        # "a phrase", {"phrase": ...}, {"regex": ...}, or the seed article's objects such as
        # {"act": "Tax Administration Act 1994", "section": "91F"}: each value a phrase.
        if isinstance(value, str):
            return {"phrases": (value,), "label": value}
        if not isinstance(value, Mapping) or "label" in value:
            return value
        if set(value) == {"regex"}:
            return {"regex": value["regex"], "label": f"/{value['regex']}/"}
        if set(value) == {"phrase"}:
            return {"phrases": (value["phrase"],), "label": value["phrase"]}
        parts = tuple(value.values())
        if not parts or not all(isinstance(p, str) and p.strip() for p in parts):
            raise ValueError("expected a phrase, {phrase}, {regex}, or an object of phrases")
        return {"phrases": parts, "label": ", ".join(f"{k} {v}" for k, v in value.items())}

    @field_validator("phrases")
    @classmethod
    def _not_blank(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if any(not phrase.strip() for phrase in value):
            raise ValueError("a phrase must not be empty")
        return value

    @field_validator("regex")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"not a valid regular expression: {exc}") from None
        return value
