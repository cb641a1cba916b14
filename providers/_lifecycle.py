"""What each provider has announced about its models' lifecycles, as `ModelStatus` values.

- Anthropic and OpenAI: the lifecycle data their SDKs ship, read from the installed SDK's
  source without importing it (the direct transport never imports an SDK): the anthropic
  SDK's deprecated-model table (``anthropic/_data/deprecated_models.py``: model -> end of
  life) and the openai SDK's model list with its deprecation notes (the docstring under
  ``ChatModel`` in ``openai/types/shared/chat_model.py``: "Announced shutdown date"). An SDK
  upgrade brings new dates with it; without the SDK installed, nothing is known.
- Google: `GEMINI`, a table of Google's announcements (google-genai ships none), each row
  with its source and the day it was read.

Anthropic's model IDs of the 4.6 generation and later carry no date but are pinned: "each
Claude model ID identifies a pinned version of the model"
(https://platform.claude.com/docs/en/about-claude/models/model-ids-and-versions, read
2026-11-30).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from datetime import date, datetime
from functools import cache
from importlib import metadata, util
from itertools import pairwise
from pathlib import Path
from typing import Literal

from jury.adapters import ModelStatus

__all__ = ["GEMINI", "GeminiRow", "anthropic", "google", "openai"]


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


# --- Anthropic ------------------------------------------------------------------------------

_ORDINAL = re.compile(r"(\d+)(st|nd|rd|th)")
#: Dateless IDs of the 4.6 generation and later: claude-{name}-{major}[-{minor}].
_DATELESS = re.compile(r"^claude-[a-z]+-(\d+)(?:-(\d+))?$")


@cache
def _anthropic_table() -> tuple[dict[str, date], frozenset[str], str] | None:
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


def anthropic(model: str, day: date) -> ModelStatus | None:
    """An Anthropic model's status from the installed SDK's deprecated-model table; a model
    the SDK lists and that table does not is active."""
    found = _anthropic_table()
    if found is None:
        return None
    table, known, source = found
    dateless = _DATELESS.match(model)
    # Dateless IDs are pinned from the 4.6 generation on; of the others, their date says.
    pinned = True if dateless and (int(dateless[1]), int(dateless[2] or 0)) >= (4, 6) else None
    retires = table.get(model)
    if retires is not None:
        return ModelStatus(model, _state(retires, day), source, retires=retires, pinned=pinned)
    if model in known:
        return ModelStatus(model, "active", source, pinned=pinned)
    return None


# --- OpenAI ---------------------------------------------------------------------------------

_NOTE = re.compile(r"^- (?P<models>(?:\"[^\"]+\",?\s*)+):\s*(?P<text>.*?)(?=^- |\Z)", re.M | re.S)
_SHUTDOWN = re.compile(r"Announced shutdown\s+date:\s*(\d{4}-\d{2}-\d{2})")


@cache
def _openai_notes() -> tuple[dict[str, tuple[date | None, str]], str] | None:
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


def openai(model: str, day: date) -> ModelStatus | None:
    """An OpenAI model's status from the deprecation notes of the installed SDK's model list.
    A model the notes call "not a supported model ID" is taken as retired."""
    found = _openai_notes()
    if found is None:
        return None
    notes, source = found
    note = notes.get(model)
    if note is None:
        return None
    when, text = note
    if when is None:
        # "Not a supported model ID. Retained for SDK compatibility."
        return ModelStatus(model, "retired", f"{source}: {text}")
    return ModelStatus(model, _state(when, day), source, retires=when)


# --- Google ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GeminiRow:
    """One Gemini model as Google announced it: shutdown date (None: none announced), the
    recommended replacement, where it was read and when."""

    model: str
    shutdown: date | None
    replacement: str | None
    source: str
    read: date


_DEPRECATIONS = "https://ai.google.dev/gemini-api/docs/deprecations"
_READ = date(2026, 11, 30)
#: Google's own page, as read here, predates this announcement; the notice cites it.
_2_5_RETIRED = (
    "https://dev.to/aideprecations/what-to-do-before-gemini-25-pro-and-25-flash-are-retired-"
    "on-december-1-2026-5gg9 (citing Google's deprecations page as of 2026-11-10)"
)
_2_0_RETIRED = "https://firebase.google.com/docs/ai-logic/models (banner, updated 2026-05-13)"

#: Gemini models by what Google announced. "No shutdown date announced" (shutdown None) is
#: what the page says; it does not promise a date later than any other. Not listed, as the
#: sources read disagree: gemini-2.5-flash-lite (Google's page of December 2025 gave July 22,
#: 2026; the notice of November 2026 above says it "remains available until further notice").
GEMINI: tuple[GeminiRow, ...] = (
    GeminiRow("gemini-3.8-flash", None, None, _DEPRECATIONS, _READ),
    GeminiRow("gemini-3.7-flash", None, None, _DEPRECATIONS, _READ),
    GeminiRow("gemini-3.6-flash", None, None, _DEPRECATIONS, _READ),
    GeminiRow("gemini-3.5-flash", None, None, _DEPRECATIONS, _READ),
    GeminiRow("gemini-3.5-flash-lite", None, None, _DEPRECATIONS, _READ),
    GeminiRow("gemini-3.1-flash-lite", date(2027, 5, 7), None, _DEPRECATIONS, _READ),
    GeminiRow("gemini-3.1-pro-preview", None, None, _DEPRECATIONS, _READ),
    GeminiRow("gemini-3-flash-preview", None, "gemini-3.5-flash", _DEPRECATIONS, _READ),
    GeminiRow(
        "gemini-3.1-flash-lite-preview",
        date(2026, 5, 25),
        "gemini-3.1-flash-lite",
        _DEPRECATIONS,
        _READ,
    ),
    GeminiRow(
        "gemini-3-pro-preview", date(2026, 3, 9), "gemini-3.1-pro-preview", _DEPRECATIONS, _READ
    ),
    GeminiRow("gemini-2.5-flash", date(2026, 12, 1), "gemini-3.5-flash-lite", _2_5_RETIRED, _READ),
    GeminiRow("gemini-2.5-pro", date(2026, 12, 1), "gemini-3.8-flash", _2_5_RETIRED, _READ),
    GeminiRow("gemini-2.5-flash-image", date(2026, 10, 2), None, _DEPRECATIONS, _READ),
    GeminiRow("gemini-2.0-flash", date(2026, 6, 1), "gemini-3.1-flash-lite", _2_0_RETIRED, _READ),
    GeminiRow("gemini-2.0-flash-001", date(2026, 6, 1), None, _2_0_RETIRED, _READ),
    GeminiRow("gemini-2.0-flash-lite", date(2026, 6, 1), None, _2_0_RETIRED, _READ),
    GeminiRow("gemini-2.0-flash-lite-001", date(2026, 6, 1), None, _2_0_RETIRED, _READ),
)
_BY_MODEL = {row.model: row for row in GEMINI}


def google(model: str, day: date) -> ModelStatus | None:
    """A Gemini model's status from `GEMINI`. A stable ID there is pinned: "Stable" IDs point
    to one model (https://ai.google.dev/gemini-api/docs/models, "model version" patterns)."""
    row = _BY_MODEL.get(model)
    if row is None:
        return None
    source = f"{row.source}, read {row.read.isoformat()}"
    pinned = not any(word in model for word in ("preview", "latest", "exp"))
    return ModelStatus(
        model,
        _state(row.shutdown, day),
        source,
        retires=row.shutdown,
        replacement=row.replacement,
        pinned=pinned,
    )
