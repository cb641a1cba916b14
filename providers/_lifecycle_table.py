"""The project's own table of model lifecycles: every Anthropic, OpenAI and Gemini model the
project names (the default panel, the README, the examples, the benchmarks and the tests), as
its provider announced it, each row with where it was read and on which day.

Why a table of our own, and only it: the SDKs ship lifecycle data, but an SDK release may
drop a model it retired (anthropic 2.15 dropped ``claude-sonnet-4-5-20250929`` from
``_data/deprecated_models.py`` the day it retired), and reading an installed SDK made the
answer depend on the extras installed (``openai/gpt-4-0314`` was refused with the openai SDK
installed and judged without it). So what the SDKs say is transcribed here, each row naming
the SDK release it came from, beside the retired models of every family a user may still
have in a jury file; the answer is the same with any extras or none.

A row's `retires` is the announced retirement (shutdown) day, None where none is announced.
`note` carries what the provider publishes short of an announcement: Anthropic's model status
table gives active models a tentative retirement "not sooner than" a day, a floor, not a date
(https://platform.claude.com/docs/en/about-claude/model-deprecations).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

__all__ = ["ANTHROPIC", "OPENAI", "SDKS_READ", "GeminiRow", "Row"]


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
#: The day the SDKs' lifecycle data and the older families' retirements were transcribed.
SDKS_READ = date(2026, 12, 4)

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

#: Models the SDK lists as IDs and its deprecated-model table does not name.
_A_SDK_LISTED = (
    "anthropic SDK 2.16.0 types/model_param.py (listed) and _data/deprecated_models.py (not "
    "named: no retirement announced)"
)
_A_TABLE = (
    "https://docs.anthropic.com/zh-CN/docs/about-claude/model-deprecations (model status table)"
)
_CLAUDE_1 = f"{_A_TABLE}: claude-1.x and claude-instant-1.x retired November 6, 2024"
_CLAUDE_2 = f"{_A_TABLE}: claude-2.0, claude-2.1, claude-3-sonnet-20240229 retired July 21, 2025"
_OPUS_3 = (
    f"{_A_TABLE}: claude-3-opus-20240229 retires January 5, 2026 (quoted in "
    "https://github.com/dimagi/open-chat-studio/issues/1806)"
)
_SONNET_3_5 = (
    "https://github.com/Significant-Gravitas/AutoGPT/issues/10974 (Anthropic's notice: "
    "retired October 22, 2025); https://docs.claude.com/en/release-notes/overview (October 28, "
    "2025: 'We've retired the Claude Sonnet 3.5 models')"
)
_SONNET_3_7 = (
    "https://docs.claude.com/en/release-notes/overview (October 28, 2025: deprecation of "
    "Claude Sonnet 3.7); retirement February 19, 2026 as recorded in "
    "https://github.com/theopenco/llmgateway/pull/1484"
)
_HAIKU_3 = (
    "https://github.com/BerriAI/litellm/pull/26139 ('Anthropic retired "
    "claude-3-haiku-20240307 on 2026-04-20', citing the model deprecations page)"
)
_OPUS_4_1 = (
    f"{_A_DEPRECATIONS} ('This model was retired August 5, 2026', as transcribed in "
    "https://github.com/samarthputhraya/Modelpin data/models.json, read 2026-09-17)"
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
    *(
        Row(model, None, None, _A_SDK_LISTED, SDKS_READ)
        for model in (
            "claude-fable-5",
            "claude-fable-5-1",
            "claude-fable-5-2",
            "claude-mythos-5",
            "claude-mythos-5-1",
            "claude-mythos-5-2",
            "claude-opus-5",
            "claude-sonnet-5",
        )
    ),
    Row("claude-opus-4-1-20250805", date(2026, 8, 5), "claude-opus-4-8", _OPUS_4_1, SDKS_READ),
    Row("claude-opus-4-1", date(2026, 8, 5), "claude-opus-4-8", _OPUS_4_1, SDKS_READ),
    Row("claude-3-haiku-20240307", date(2026, 4, 20), "claude-haiku-4-5", _HAIKU_3, SDKS_READ),
    Row(
        "claude-3-7-sonnet-20250219",
        date(2026, 2, 19),
        "claude-sonnet-4-6",
        _SONNET_3_7,
        SDKS_READ,
    ),
    Row("claude-3-7-sonnet-latest", date(2026, 2, 19), "claude-sonnet-4-6", _SONNET_3_7, SDKS_READ),
    Row("claude-3-opus-20240229", date(2026, 1, 5), "claude-opus-4-8", _OPUS_3, SDKS_READ),
    Row("claude-3-opus-latest", date(2026, 1, 5), "claude-opus-4-8", _OPUS_3, SDKS_READ),
    *(
        Row(model, date(2025, 10, 22), "claude-sonnet-4-6", _SONNET_3_5, SDKS_READ)
        for model in (
            "claude-3-5-sonnet-20240620",
            "claude-3-5-sonnet-20241022",
            "claude-3-5-sonnet-latest",
        )
    ),
    Row("claude-3-5-haiku-latest", date(2026, 2, 19), "claude-haiku-4-5", _HAIKU_3_5, SDKS_READ),
    *(
        Row(model, date(2025, 7, 21), "claude-sonnet-4-6", _CLAUDE_2, SDKS_READ)
        for model in ("claude-2.0", "claude-2.1", "claude-3-sonnet-20240229")
    ),
    *(
        Row(model, date(2024, 11, 6), "claude-haiku-4-5", _CLAUDE_1, SDKS_READ)
        for model in (
            "claude-1.0",
            "claude-1.1",
            "claude-1.2",
            "claude-1.3",
            "claude-instant-1.0",
            "claude-instant-1.1",
            "claude-instant-1.2",
        )
    ),
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

#: The deprecation notes of the openai SDK's model list: "Announced shutdown date: ...".
_O_SDK = (
    "openai SDK 3.60.0 types/shared/chat_model.py (the note under ChatModel: 'Announced "
    f"shutdown date: ...'; {_O_DEPRECATIONS})"
)

#: Models the SDK lists without a shutdown note: none announced. OpenAI's own page is not read
#: here (rendered client-side); GET /v1/models says a model's `shutdown_date` when one is set,
#: which `jury doctor` reads (`jury.providers._openai_models`).
_O_SDK_LISTED = (
    "openai SDK 3.60.0 types/shared/chat_model.py (listed; no 'Announced shutdown date' note)"
)
_O_NOTICE = "none announced; OpenAI gives generally available models at least 6 months' notice"
_O_CURRENT = (
    "gpt-6-astra",
    "gpt-6.2-astra",
    "gpt-6-sol",
    "gpt-6.1-sol",
    "gpt-6.2-sol",
    "gpt-6.1-terra",
    "gpt-5.6-sol",
    "gpt-5.6-terra",
    "gpt-5.6-luna",
    "gpt-5.5",
    "gpt-5.5-2026-04-23",
    "gpt-5.4",
    "gpt-5.4-mini",
)

OPENAI: tuple[Row, ...] = (
    Row("gpt-5.4-mini-2026-03-17", None, None, _GPT_5_4_MINI, _READ),
    Row("gpt-6-luna", None, None, _GPT_6_LUNA, _TODAY),
    *(Row(model, None, None, _O_SDK_LISTED, SDKS_READ, _O_NOTICE) for model in _O_CURRENT),
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
    *(
        Row(model, date(2024, 9, 13), None, _O_SDK, SDKS_READ)
        for model in (
            "gpt-3.5-turbo-0301",
            "gpt-3.5-turbo-0613",
            "gpt-3.5-turbo-16k",
            "gpt-3.5-turbo-16k-0613",
        )
    ),
    Row("gpt-4-vision-preview", date(2024, 12, 6), None, _O_SDK, SDKS_READ),
    *(
        Row(model, date(2025, 6, 6), None, _O_SDK, SDKS_READ)
        for model in (
            "gpt-4-32k",
            "gpt-4-32k-0314",
            "gpt-4-32k-0613",
        )
    ),
    *(
        Row(model, date(2025, 7, 28), None, _O_SDK, SDKS_READ)
        for model in (
            "o1-preview",
            "o1-preview-2024-09-12",
        )
    ),
    Row("gpt-4o-audio-preview-2024-10-01", date(2025, 10, 10), None, _O_SDK, SDKS_READ),
    *(
        Row(model, date(2025, 10, 27), None, _O_SDK, SDKS_READ)
        for model in (
            "o1-mini",
            "o1-mini-2024-09-12",
        )
    ),
    Row("codex-mini-latest", date(2026, 2, 12), None, _O_SDK, SDKS_READ),
    Row("chatgpt-4o-latest", date(2026, 2, 17), None, _O_SDK, SDKS_READ),
    *(
        Row(model, date(2026, 3, 26), None, _O_SDK, SDKS_READ)
        for model in (
            "gpt-4-0125-preview",
            "gpt-4-0314",
            "gpt-4-turbo-preview",
        )
    ),
    *(
        Row(model, date(2026, 5, 7), None, _O_SDK, SDKS_READ)
        for model in (
            "gpt-4o-audio-preview",
            "gpt-4o-audio-preview-2024-12-17",
            "gpt-4o-audio-preview-2025-06-03",
            "gpt-4o-mini-audio-preview",
            "gpt-4o-mini-audio-preview-2024-12-17",
        )
    ),
    *(
        Row(model, date(2026, 7, 23), None, _O_SDK, SDKS_READ)
        for model in (
            "gpt-4o-mini-search-preview",
            "gpt-4o-mini-search-preview-2025-03-11",
            "gpt-4o-search-preview",
            "gpt-4o-search-preview-2025-03-11",
            "gpt-5-chat-latest",
            "gpt-5.1-chat-latest",
            "gpt-5.1-codex",
        )
    ),
    *(
        Row(model, date(2026, 8, 10), None, _O_SDK, SDKS_READ)
        for model in (
            "gpt-5.2-chat-latest",
            "gpt-5.3-chat-latest",
        )
    ),
    Row("gpt-3.5-turbo-1106", date(2026, 9, 28), None, _O_SDK, SDKS_READ),
    *(
        Row(model, date(2026, 10, 23), None, _O_SDK, SDKS_READ)
        for model in (
            "gpt-3.5-turbo",
            "gpt-3.5-turbo-0125",
            "gpt-4",
            "gpt-4-0613",
            "gpt-4-1106-preview",
            "gpt-4-turbo",
            "gpt-4-turbo-2024-04-09",
            "gpt-4.1-nano",
            "gpt-4.1-nano-2025-04-14",
            "gpt-4o-2024-05-13",
            "o1",
            "o1-2024-12-17",
            "o3-mini",
            "o3-mini-2025-01-31",
            "o4-mini",
            "o4-mini-2025-04-16",
        )
    ),
    *(
        Row(model, date(2026, 12, 11), None, _O_SDK, SDKS_READ)
        for model in (
            "gpt-5",
            "gpt-5-2025-08-07",
            "gpt-5-mini",
            "gpt-5-mini-2025-08-07",
            "gpt-5-nano",
            "gpt-5-nano-2025-08-07",
            "o3",
            "o3-2025-04-16",
        )
    ),
    Row("gpt-4o-2024-11-20", date(2027, 1, 14), None, _O_SDK, SDKS_READ),
    *(
        Row(model, date(2027, 1, 20), None, _O_SDK, SDKS_READ)
        for model in (
            "gpt-audio-mini",
            "gpt-audio-mini-2025-12-15",
        )
    ),
    *(
        Row(model, date(2027, 4, 1), None, _O_SDK, SDKS_READ)
        for model in (
            "gpt-5.1",
            "gpt-5.1-2025-11-13",
            "gpt-5.4-nano",
            "gpt-5.4-nano-2026-03-17",
        )
    ),
)
