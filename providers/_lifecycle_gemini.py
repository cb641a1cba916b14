"""The project's lifecycle table, Gemini's part (`providers._lifecycle_table` has the rest and
says why the table is the project's own): every Gemini model a user may name, as Google
announced it, each row with where it was read and on which day."""

from __future__ import annotations

from datetime import date

from ._lifecycle_table import SDKS_READ, Row

__all__ = ["GEMINI"]

_READ = date(2026, 11, 30)

# --- Google ---------------------------------------------------------------------------------

_DEPRECATIONS = "https://ai.google.dev/gemini-api/docs/deprecations"
#: Google's own page, as read here, predates this announcement; the notice cites it.
_2_5_RETIRED = (
    "https://dev.to/aideprecations/what-to-do-before-gemini-25-pro-and-25-flash-are-retired-"
    "on-december-1-2026-5gg9 (citing Google's deprecations page as of 2026-11-10)"
)
_2_0_RETIRED = "https://firebase.google.com/docs/ai-logic/models (banner, updated 2026-05-13)"

_1_5_RETIRED = (
    "https://cloud.google.com/vertex-ai/generative-ai/docs/learn/model-versions (legacy stable "
    "models: gemini-1.5-pro-002 and gemini-1.5-flash-002 retire September 24, 2025); the Gemini "
    "API shut the 1.5 models down the same day"
)
_1_5_001_RETIRED = (
    "https://cloud.google.com/vertex-ai/generative-ai/docs/faq (last updated June 25, 2025: "
    "'an unavailable ... Gemini 1.5-001' model): retired by that day"
)
_1_0_RETIRED = (
    "https://cloud.google.com/vertex-ai/generative-ai/docs/deprecations/gemini-1.0-pro "
    "(availability of Gemini 1.0 Pro 001 extended to April 9, 2025, then ended)"
)

#: Gemini 4: listed by google-genai as Google's newest models, no shutdown date in any source
#: read (Google's deprecations page as read on 2026-11-30 predates them).
_GEMINI_4 = (
    "https://github.com/googleapis/python-genai google/genai/_gaos/types/interactions/model.py "
    "as released in google-genai 3.6.1 (listed: 'Gemini 4 Argon - Our new frontier model', "
    "Carbon, Hydrogen, Neon)"
)
_GEMINI_4_MODELS = ("gemini-4-argon", "gemini-4-carbon", "gemini-4-hydrogen", "gemini-4-neon")
_NO_DATE = "no shutdown date known: no source read names one, nor a notice period"

#: Gemini models by what Google announced (google-genai ships no lifecycle data). "No
#: shutdown date announced" (retires None) is what the page says; it does not promise a date
#: later than any other. Not listed, as the sources read disagree: gemini-2.5-flash-lite
#: (Google's page of December 2025 gave July 22, 2026; the notice of November 2026 above says
#: it "remains available until further notice").
GEMINI: tuple[Row, ...] = (
    *(Row(model, None, None, _GEMINI_4, SDKS_READ, _NO_DATE) for model in _GEMINI_4_MODELS),
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
    *(
        Row(model, date(2025, 9, 24), "gemini-3.5-flash", _1_5_RETIRED, SDKS_READ)
        for model in (
            "gemini-1.5-pro",
            "gemini-1.5-pro-002",
            "gemini-1.5-pro-latest",
            "gemini-1.5-flash",
            "gemini-1.5-flash-002",
            "gemini-1.5-flash-latest",
            "gemini-1.5-flash-8b",
        )
    ),
    *(
        Row(model, date(2025, 6, 25), "gemini-3.5-flash", _1_5_001_RETIRED, SDKS_READ)
        for model in ("gemini-1.5-pro-001", "gemini-1.5-flash-001")
    ),
    *(
        Row(model, date(2025, 4, 9), "gemini-3.5-flash", _1_0_RETIRED, SDKS_READ)
        for model in ("gemini-1.0-pro", "gemini-1.0-pro-001", "gemini-pro")
    ),
)
