"""What each provider has announced about its models' lifecycles, as `ModelStatus` values.

One source: the project's own table (`providers._lifecycle_table`), every model a user may
name as its provider announced it, with the source and the day it was read. Nothing is read
from an installed SDK: the answer for a model is the same with any extras or none (reading
the SDKs made ``openai/gpt-4-0314`` refused with the openai SDK installed and judged
without it), and what the SDKs ship is transcribed into the table, each row naming the SDK
release it came from. A model the table does not know has no status (None): it stays
usable, its lifecycle unknown, and `jury run` says so once (`jury.panel._lifecycle`).

Anthropic's model IDs of the 4.6 generation and later carry no date but are pinned: "each
Claude model ID identifies a pinned version of the model"
(https://platform.claude.com/docs/en/about-claude/models/model-ids-and-versions, read
2026-11-30).
"""

from __future__ import annotations

import re
from datetime import date
from typing import Literal

from jury.adapters import ModelStatus

from ._lifecycle_gemini import GEMINI
from ._lifecycle_table import ANTHROPIC, OPENAI, GeminiRow, Row

__all__ = ["GEMINI", "GeminiRow", "anthropic", "google", "openai"]


def _state(retires: date | None, day: date) -> Literal["active", "deprecated", "retired"]:
    if retires is None:
        return "active"
    return "retired" if day >= retires else "deprecated"


def _from_row(row: Row, day: date, pinned: bool | None) -> ModelStatus:
    """A row of the project's table as a status on `day`."""
    source = f"{row.source}, read {row.read.isoformat()}"
    if row.note:
        source = f"{source}; {row.note}"
    return ModelStatus(
        row.model,
        _state(row.retires, day),
        source,
        retires=row.retires,
        replacement=row.replacement,
        pinned=pinned,
    )


def _rows(table: tuple[Row, ...]) -> dict[str, Row]:
    return {row.model: row for row in table}


# --- Anthropic ------------------------------------------------------------------------------

#: Dateless IDs of the 4.6 generation and later: claude-{name}-{major}[-{minor}].
_DATELESS = re.compile(r"^claude-[a-z]+-(\d+)(?:-(\d+))?$")


_ANTHROPIC = _rows(ANTHROPIC)
#: A dated Anthropic ID (claude-...-YYYYMMDD) names one snapshot.
_DATED = re.compile(r"-\d{8}$")


def _anthropic_pinned(model: str) -> bool | None:
    dateless = _DATELESS.match(model)
    # Dateless IDs are pinned from the 4.6 generation on; of the others, their date says.
    if dateless and (int(dateless[1]), int(dateless[2] or 0)) >= (4, 6):
        return True
    return True if _DATED.search(model) else None


def anthropic(model: str, day: date) -> ModelStatus | None:
    """An Anthropic model's status from `ANTHROPIC`."""
    row = _ANTHROPIC.get(model)
    return _from_row(row, day, _anthropic_pinned(model)) if row else None


# --- OpenAI ---------------------------------------------------------------------------------

_OPENAI = _rows(OPENAI)
#: A dated OpenAI ID (...-YYYY-MM-DD) names one snapshot.
_SNAPSHOT = re.compile(r"-\d{4}-\d{2}-\d{2}$")


def openai(model: str, day: date) -> ModelStatus | None:
    """An OpenAI model's status from `OPENAI`."""
    row = _OPENAI.get(model)
    return _from_row(row, day, True if _SNAPSHOT.search(model) else None) if row else None


# --- Google ---------------------------------------------------------------------------------

_GEMINI = _rows(GEMINI)


#: Gemini 1.x names without a version (``gemini-1.5-pro``) were auto-updated aliases of the
#: newest stable version (``gemini-1.5-pro-002``).
_GEMINI_1_ALIAS = re.compile(r"^gemini-(?:1\.\d-)?(?:pro|flash)$")


def google(model: str, day: date) -> ModelStatus | None:
    """A Gemini model's status from `GEMINI`. A stable ID there is pinned: "Stable" IDs point
    to one model (https://ai.google.dev/gemini-api/docs/models, "model version" patterns)."""
    row = _GEMINI.get(model)
    if row is None:
        return None
    pinned = not any(word in model for word in ("preview", "latest", "exp"))
    return _from_row(row, day, pinned and not _GEMINI_1_ALIAS.match(model))
