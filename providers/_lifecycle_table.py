"""The project's own table of model lifecycles: every Anthropic, OpenAI and Gemini model the
project names (the default panel, the README, the examples, the benchmarks and the tests), as
its provider announced it, each row with where it was read and on which day.

Why a table of our own: the SDKs ship lifecycle data, but an SDK release may drop a model it
retired (anthropic 2.15 dropped ``claude-sonnet-4-5-20250929`` from
``_data/deprecated_models.py`` the day it retired), and without the SDK installed nothing
would be known. The SDKs' tables are read as well (`providers._lifecycle`), as an extra
source: where both know a model, the earlier retirement and the graver state win.

A row's `retires` is the announced retirement (shutdown) day, None where none is announced.
`note` carries what the provider publishes short of an announcement: Anthropic's model status
table gives active models a tentative retirement "not sooner than" a day, a floor, not a date
(https://platform.claude.com/docs/en/about-claude/model-deprecations).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

__all__ = ["ANTHROPIC", "GEMINI", "OPENAI", "GeminiRow", "Row"]


@dataclass(frozen=True, slots=True)
class Row:
    """One model as its provider announced it: retirement day (None: none announced), the
    recommended replacement, where it was read, when, and what else the source says."""

    model: str
    retires: date | None
    replacement: str | None
    source: str
    read: date
    note: str = ""

    @property
    def shutdown(self) -> date | None:
        """Google's word for the retirement day."""
        return self.retires


#: The Gemini rows were first written with this name.
GeminiRow = Row

_READ = date(2026, 11, 30)
_TODAY = date(2026, 12, 1)

# --- Anthropic ------------------------------------------------------------------------------

_A_DEPRECATIONS = "https://platform.claude.com/docs/en/about-claude/model-deprecations"
#: The model status table of that page (rendered client-side, so not readable here), as a
#: third party transcribed it with the day it read it; used only for the "not sooner than"
#: floors, which change nothing the project enforces.
_A_STATUS_TABLE = (
    f"{_A_DEPRECATIONS} (model status table, as transcribed on 2026-09-17 in "
    "https://github.com/samarthputhraya/Modelpin data/models.json)"
)
_SONNET_4_5 = (
    "https://platform.claude.com/docs/en/models/sonnet-4-5/overview ('deprecated ... retires on "
    "November 30, 2026. Recommended replacement: Claude Sonnet 5.5'); anthropic SDK 2.14 "
    "_data/deprecated_models.py ('November 30th, 2026'; dropped from the table in 2.15)"
)
_OPUS_4_5 = (
    "anthropic SDK 2.14 and 2.15 _data/deprecated_models.py ('January 22nd, 2027'); "
    "replacement as transcribed from "
    f"{_A_DEPRECATIONS} in https://github.com/samarthputhraya/Modelpin/releases/tag/v0.5.7"
)
_HAIKU_4_5 = (
    "https://platform.claude.com/docs/en/models/haiku-4-5/overview ('Legacy. ... still "
    "available'; no retirement announced)"
)
_HAIKU_5_5 = "https://platform.claude.com/docs/en/models/haiku-5-5/overview (current Haiku)"
_MYTHOS = "anthropic SDK 2.14 and 2.15 _data/deprecated_models.py ('June 30th, 2026')"
_HAIKU_3_5 = (
    "https://github.com/coder/coder/pull/22304 ('claude-3-5-haiku-20241022 was retired by "
    "Anthropic on February 19th, 2026')"
)
_CLAUDE_4 = (
    "https://platform.claude.com/docs/en/release-notes/overview (retired June 15, 2026, as "
    "recorded in https://github.com/ottto-ai/ai-provider-watch "
    "data/events/2026-06-15-anthropic-sonnet-4-opus-4-retirement.json)"
)

_OPUS_5_5 = (
    "https://platform.claude.com/docs/en/models/opus-5-5/overview (Latest; released "
    "2026-09-22); named by the README's juror settings"
)
_SONNET_5_5 = (
    "https://platform.claude.com/docs/en/models/sonnet-5-5/overview (Latest; released 2026-09-28)"
)

ANTHROPIC: tuple[Row, ...] = (
    Row("claude-haiku-5-5", None, None, _HAIKU_5_5, _READ),
    Row("claude-opus-5-5", None, None, _OPUS_5_5, _TODAY),
    Row(
        "claude-sonnet-5-5",
        None,
        None,
        _SONNET_5_5,
        _TODAY,
        "tentative retirement not sooner than 2027-09-28 (as transcribed in "
        "https://apidog.com/blog/claude-sonnet-5-5-vs-sonnet-5/)",
    ),
    Row("claude-haiku-4-5-20251001", None, "claude-haiku-5-5", _HAIKU_4_5, _TODAY),
    Row("claude-haiku-4-5", None, "claude-haiku-5-5", _HAIKU_4_5, _TODAY),
    Row("claude-sonnet-4-5-20250929", date(2026, 11, 30), "claude-sonnet-5-5", _SONNET_4_5, _TODAY),
    Row("claude-sonnet-4-5", date(2026, 11, 30), "claude-sonnet-5-5", _SONNET_4_5, _TODAY),
    Row("claude-opus-4-5-20251101", date(2027, 1, 22), "claude-opus-5-5", _OPUS_4_5, _TODAY),
    Row("claude-opus-4-5", date(2027, 1, 22), "claude-opus-5-5", _OPUS_4_5, _TODAY),
    Row("claude-mythos-preview", date(2026, 6, 30), None, _MYTHOS, _TODAY),
    Row(
        "claude-sonnet-4-6",
        None,
        None,
        _A_STATUS_TABLE,
        _TODAY,
        "tentative retirement not sooner than 2027-02-17",
    ),
    Row(
        "claude-opus-4-6",
        None,
        None,
        _A_STATUS_TABLE,
        _TODAY,
        "tentative retirement not sooner than 2027-02-05",
    ),
    Row(
        "claude-opus-4-7",
        None,
        None,
        _A_STATUS_TABLE,
        _TODAY,
        "tentative retirement not sooner than 2027-04-16",
    ),
    Row(
        "claude-opus-4-8",
        None,
        None,
        _A_STATUS_TABLE,
        _TODAY,
        "tentative retirement not sooner than 2027-05-28",
    ),
    Row("claude-3-5-haiku-20241022", date(2026, 2, 19), "claude-haiku-4-5", _HAIKU_3_5, _TODAY),
    Row("claude-sonnet-4-20250514", date(2026, 6, 15), "claude-sonnet-4-6", _CLAUDE_4, _TODAY),
    Row("claude-opus-4-20250514", date(2026, 6, 15), "claude-opus-4-8", _CLAUDE_4, _TODAY),
)

# --- OpenAI ---------------------------------------------------------------------------------

_O_DEPRECATIONS = "https://developers.openai.com/api/docs/deprecations"
#: OpenAI's page is rendered client-side; its January 2027 rows as two dated transcriptions
#: quote them (the second also checked them against GET /v1/models `shutdown_date`).
_GPT_4 = (
    f"{_O_DEPRECATIONS} (shutdown 2027-01-14, replacement gpt-6-luna, as transcribed in "
    "https://codersera.com/blog/gpt-4o-gpt-4-1-api-shutdown-migration-2026/ and "
    "https://dev.to/max_bob/openai-api-deprecations-2026-2027-every-shutdown-date-and-"
    "recommended-replacement-gpt-4o-2ffm, dated 2026-10-28)"
)
_GPT_5_4_MINI = (
    f"{_O_DEPRECATIONS} (not listed); openai SDK 3.57 types/shared/chat_model.py (listed, no "
    "deprecation note)"
)
_GPT_6_LUNA = f"{_O_DEPRECATIONS} (named as the replacement of the gpt-4o and gpt-4.1 models)"

OPENAI: tuple[Row, ...] = (
    Row("gpt-5.4-mini-2026-03-17", None, None, _GPT_5_4_MINI, _READ),
    Row("gpt-6-luna", None, None, _GPT_6_LUNA, _TODAY),
    *(
        Row(model, date(2027, 1, 14), "gpt-6-luna", _GPT_4, _TODAY)
        for model in (
            "gpt-4.1-mini-2025-04-14",
            "gpt-4.1-mini",
            "gpt-4.1-2025-04-14",
            "gpt-4.1",
            "gpt-4o-2024-08-06",
            "gpt-4o",
            "gpt-4o-mini-2024-07-18",
            "gpt-4o-mini",
        )
    ),
)

# --- Google ---------------------------------------------------------------------------------

_DEPRECATIONS = "https://ai.google.dev/gemini-api/docs/deprecations"
#: Google's own page, as read here, predates this announcement; the notice cites it.
_2_5_RETIRED = (
    "https://dev.to/aideprecations/what-to-do-before-gemini-25-pro-and-25-flash-are-retired-"
    "on-december-1-2026-5gg9 (citing Google's deprecations page as of 2026-11-10)"
)
_2_0_RETIRED = "https://firebase.google.com/docs/ai-logic/models (banner, updated 2026-05-13)"

#: Gemini models by what Google announced (google-genai ships no lifecycle data). "No
#: shutdown date announced" (retires None) is what the page says; it does not promise a date
#: later than any other. Not listed, as the sources read disagree: gemini-2.5-flash-lite
#: (Google's page of December 2025 gave July 22, 2026; the notice of November 2026 above says
#: it "remains available until further notice").
GEMINI: tuple[Row, ...] = (
    Row("gemini-3.8-flash", None, None, _DEPRECATIONS, _READ),
    Row("gemini-3.7-flash", None, None, _DEPRECATIONS, _READ),
    Row("gemini-3.6-flash", None, None, _DEPRECATIONS, _READ),
    Row("gemini-3.5-flash", None, None, _DEPRECATIONS, _READ),
    Row("gemini-3.5-flash-lite", None, None, _DEPRECATIONS, _READ),
    Row("gemini-3.1-flash-lite", date(2027, 5, 7), None, _DEPRECATIONS, _READ),
    Row("gemini-3.1-pro-preview", None, None, _DEPRECATIONS, _READ),
    Row("gemini-3-flash-preview", None, "gemini-3.5-flash", _DEPRECATIONS, _READ),
    Row(
        "gemini-3.1-flash-lite-preview",
        date(2026, 5, 25),
        "gemini-3.1-flash-lite",
        _DEPRECATIONS,
        _READ,
    ),
    Row("gemini-3-pro-preview", date(2026, 3, 9), "gemini-3.1-pro-preview", _DEPRECATIONS, _READ),
    Row("gemini-2.5-flash", date(2026, 12, 1), "gemini-3.5-flash-lite", _2_5_RETIRED, _READ),
    Row("gemini-2.5-pro", date(2026, 12, 1), "gemini-3.8-flash", _2_5_RETIRED, _READ),
    Row("gemini-2.5-flash-image", date(2026, 10, 2), None, _DEPRECATIONS, _READ),
    Row("gemini-2.0-flash", date(2026, 6, 1), "gemini-3.1-flash-lite", _2_0_RETIRED, _READ),
    Row("gemini-2.0-flash-001", date(2026, 6, 1), None, _2_0_RETIRED, _READ),
    Row("gemini-2.0-flash-lite", date(2026, 6, 1), None, _2_0_RETIRED, _READ),
    Row("gemini-2.0-flash-lite-001", date(2026, 6, 1), None, _2_0_RETIRED, _READ),
)
