"""What each provider has announced about its models' lifecycles, as `ModelStatus` values.

Two sources, combined (`_combine`):

- The project's own table (`providers._lifecycle_table`): every model the project names, as
  its provider announced it, with the source and the day it was read. It does not depend on
  the installed SDK, so an SDK that dropped a model after retiring it (anthropic 2.15 and
  ``claude-sonnet-4-5-20250929``) cannot bring the model back.
- Anthropic and OpenAI: the lifecycle data their SDKs ship, read from the installed SDK's
  source without importing it (the direct transport never imports an SDK): the anthropic
  SDK's deprecated-model table (``anthropic/_data/deprecated_models.py``: model -> end of
  life) and the openai SDK's model list with its deprecation notes (the docstring under
  ``ChatModel`` in ``openai/types/shared/chat_model.py``: "Announced shutdown date"). An
  extra source, never the only one: a newer SDK brings dates the table has not caught yet.

Where both know a model, the graver state and the earlier retirement win (a retirement is
never postponed by a second source), and both sources are named. A model no source knows
has no status (None): it stays usable, its lifecycle unknown.

Anthropic's model IDs of the 4.6 generation and later carry no date but are pinned: "each
Claude model ID identifies a pinned version of the model"
(https://platform.claude.com/docs/en/about-claude/models/model-ids-and-versions, read
2026-11-30).
"""

from __future__ import annotations

import ast
import re
from datetime import date, datetime
from functools import cache
from importlib import metadata, util
from itertools import pairwise
from pathlib import Path
from typing import Literal

from jury.adapters import ModelStatus

from ._lifecycle_table import ANTHROPIC, GEMINI, OPENAI, GeminiRow, Row

__all__ = ["GEMINI", "GeminiRow", "anthropic", "google", "openai"]

_GRAVITY = {"active": 0, "deprecated": 1, "retired": 2}


def _sdk_file(package: str, *parts: str) -> tuple[Path, str] | None:
    """A file of an installed SDK, found without importing the SDK, and the SDK's version."""
    spec = util.find_spec(package)
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent.joinpath(*parts)
    if not path.is_file():
        return None
    return path, metadata.version(package)


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


def _combine(own: ModelStatus | None, sdk: ModelStatus | None) -> ModelStatus | None:
    """One status from the project's table and an SDK's: the graver state, the earlier
    retirement (a second source never postpones one), both sources named."""
    if own is None or sdk is None:
        return own or sdk
    dates = [when for when in (own.retires, sdk.retires) if when is not None]
    state = max(own.state, sdk.state, key=_GRAVITY.__getitem__)
    return ModelStatus(
        own.model,
        state,
        own.source if own.source == sdk.source else f"{own.source}; {sdk.source}",
        retires=min(dates) if dates else None,
        replacement=own.replacement or sdk.replacement,
        pinned=own.pinned if own.pinned is not None else sdk.pinned,
    )


def _rows(table: tuple[Row, ...]) -> dict[str, Row]:
    return {row.model: row for row in table}


# --- Anthropic ------------------------------------------------------------------------------

_ORDINAL = re.compile(r"(\d+)(st|nd|rd|th)")
#: Dateless IDs of the 4.6 generation and later: claude-{name}-{major}[-{minor}].
_DATELESS = re.compile(r"^claude-[a-z]+-(\d+)(?:-(\d+))?$")


@cache
def _anthropic_sdk() -> tuple[dict[str, date], frozenset[str], str] | None:
    found = _sdk_file("anthropic", "_data", "deprecated_models.py")
    listed = _sdk_file("anthropic", "types", "model_param.py")
    if found is None or listed is None:
        return None
    path, version = found
    table: dict[str, date] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.AnnAssign) and isinstance(node.value, ast.Dict):
            for key, value in zip(node.value.keys, node.value.values, strict=True):
                if isinstance(key, ast.Constant) and isinstance(value, ast.Constant):
                    # "January 22nd, 2027"
                    text = _ORDINAL.sub(r"\1", str(value.value))
                    table[str(key.value)] = datetime.strptime(text, "%B %d, %Y").date()
    # The models the SDK lists (`ModelParam`), the retired ones among them.
    known = frozenset(
        str(node.value)
        for node in ast.walk(ast.parse(listed[0].read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and str(node.value).startswith("claude-")
    )
    return table, known, f"anthropic SDK {version}, _data/deprecated_models.py"


_ANTHROPIC = _rows(ANTHROPIC)
#: A dated Anthropic ID (claude-...-YYYYMMDD) names one snapshot.
_DATED = re.compile(r"-\d{8}$")


def _anthropic_pinned(model: str) -> bool | None:
    dateless = _DATELESS.match(model)
    # Dateless IDs are pinned from the 4.6 generation on; of the others, their date says.
    if dateless and (int(dateless[1]), int(dateless[2] or 0)) >= (4, 6):
        return True
    return True if _DATED.search(model) else None


def _anthropic_from_sdk(model: str, day: date, pinned: bool | None) -> ModelStatus | None:
    found = _anthropic_sdk()
    if found is None:
        return None
    table, known, source = found
    retires = table.get(model)
    if retires is not None:
        return ModelStatus(model, _state(retires, day), source, retires=retires, pinned=pinned)
    if model in known:
        return ModelStatus(model, "active", source, pinned=pinned)
    return None


def anthropic(model: str, day: date) -> ModelStatus | None:
    """An Anthropic model's status from the project's table and the installed SDK's
    deprecated-model table (a model the SDK lists and that table does not is active)."""
    pinned = _anthropic_pinned(model)
    row = _ANTHROPIC.get(model)
    own = _from_row(row, day, pinned) if row else None
    return _combine(own, _anthropic_from_sdk(model, day, pinned))


# --- OpenAI ---------------------------------------------------------------------------------

_NOTE = re.compile(r"^- (?P<models>(?:\"[^\"]+\",?\s*)+):\s*(?P<text>.*?)(?=^- |\Z)", re.M | re.S)
_SHUTDOWN = re.compile(r"Announced shutdown\s+date:\s*(\d{4}-\d{2}-\d{2})")


@cache
def _openai_sdk() -> tuple[dict[str, tuple[date | None, str]], str] | None:
    found = _sdk_file("openai", "types", "shared", "chat_model.py")
    if found is None:
        return None
    path, version = found
    body = ast.parse(path.read_text(encoding="utf-8")).body
    notes: dict[str, tuple[date | None, str]] = {}
    for node, after in pairwise(body):
        if not (isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "ChatModel"):
            continue
        if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant):
            for match in _NOTE.finditer(str(after.value.value)):
                text = " ".join(match["text"].split())
                shutdown = _SHUTDOWN.search(text)
                when = date.fromisoformat(shutdown.group(1)) if shutdown else None
                for model in re.findall(r"\"([^\"]+)\"", match["models"]):
                    notes[model] = (when, text)
    return notes, f"openai SDK {version}, types/shared/chat_model.py"


_OPENAI = _rows(OPENAI)
#: A dated OpenAI ID (...-YYYY-MM-DD) names one snapshot.
_SNAPSHOT = re.compile(r"-\d{4}-\d{2}-\d{2}$")


def _openai_from_sdk(model: str, day: date, pinned: bool | None) -> ModelStatus | None:
    found = _openai_sdk()
    if found is None:
        return None
    notes, source = found
    note = notes.get(model)
    if note is None:
        return None
    when, text = note
    if when is None:
        # "Not a supported model ID. Retained for SDK compatibility."
        return ModelStatus(model, "retired", f"{source}: {text}", pinned=pinned)
    return ModelStatus(model, _state(when, day), source, retires=when, pinned=pinned)


def openai(model: str, day: date) -> ModelStatus | None:
    """An OpenAI model's status from the project's table and the deprecation notes of the
    installed SDK's model list. A model the notes call "not a supported model ID" is taken
    as retired."""
    pinned = True if _SNAPSHOT.search(model) else None
    row = _OPENAI.get(model)
    own = _from_row(row, day, pinned) if row else None
    return _combine(own, _openai_from_sdk(model, day, pinned))


# --- Google ---------------------------------------------------------------------------------

_GEMINI = _rows(GEMINI)


def google(model: str, day: date) -> ModelStatus | None:
    """A Gemini model's status from `GEMINI`. A stable ID there is pinned: "Stable" IDs point
    to one model (https://ai.google.dev/gemini-api/docs/models, "model version" patterns)."""
    row = _GEMINI.get(model)
    if row is None:
        return None
    pinned = not any(word in model for word in ("preview", "latest", "exp"))
    return _from_row(row, day, pinned)
