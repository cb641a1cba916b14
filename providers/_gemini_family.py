"""What each family of Gemini models takes (`FAMILIES`): a temperature or not, the thinking
configuration sent, the output room for thinking that cannot be turned off, and the thinking
levels a juror's `effort` may name. Read by the adapter (`jury.providers.google`), by
`jury estimate` (`jury.providers._rooms`) and by the jury file's checks (`effort_refusal`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

__all__ = ["FAMILIES", "Family", "effort_refusal", "family"]


@dataclass(frozen=True, slots=True)
class Family:
    """What a family of Gemini models takes: a custom `temperature` (Gemini 3 ignores one),
    the `thinking` configuration sent (``generationConfig.thinkingConfig``), the output
    tokens added for the thinking that cannot be turned off (it counts against
    ``maxOutputTokens``), and the thinking `levels` a juror's effort may name (none: the
    family thinks by a budget, or not at all).

    `thinking` is written as google-genai writes it on the wire (field names as in the proto,
    enum values by name), so that both transports send the same bytes; the API reads proto
    JSON, which takes either spelling of a field (https://protobuf.dev/programming-guides/
    json/)."""

    pattern: str
    temperature: bool
    thinking: dict[str, Any] | None = None
    room: int = 0
    sources: tuple[str, ...] = field(default=())
    levels: tuple[str, ...] = ()


_THINKING = "https://ai.google.dev/gemini-api/docs/thinking"
_GEMINI_3 = "https://ai.google.dev/gemini-api/docs/gemini-3"
_FLASH_3_8 = (
    "https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/guides/gemini-3-8-flash"
)
_ALL_LEVELS = ("minimal", "low", "medium", "high")
_LOW = {"thinking_level": "LOW"}
_LOW_TO_HIGH = ("low", "medium", "high")
#: Gemini families by name pattern, the first match winning.
FAMILIES: tuple[Family, ...] = (
    # 2.5 Flash and Flash-Lite can stop thinking (a budget of 0); 2.5 Pro cannot (128 least).
    Family("gemini-2.5-flash*", True, {"thinking_budget": 0}, 0, (_THINKING,)),
    Family("gemini-2.5-pro*", True, {"thinking_budget": 128}, 128, (_THINKING,)),
    # Gemini 3 ignores a custom temperature, top-k and top-p and thinks at a level (Flash-Lite
    # least at "minimal", its default; 3.7 and 3.8 Flash take low, medium and high only).
    Family(
        "gemini-3*-flash-lite*",
        False,
        {"thinking_level": "MINIMAL"},
        1024,
        (
            _GEMINI_3,
            "https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/gemini/3-5-flash-lite",
        ),
        _ALL_LEVELS,
    ),
    Family("gemini-3.[78]-flash", False, _LOW, 2048, (_FLASH_3_8,), _LOW_TO_HIGH),
    Family("gemini-3*", False, _LOW, 2048, (_GEMINI_3, _FLASH_3_8), _ALL_LEVELS),
    # Gemini 4 (gemini-4-argon, -hydrogen; -carbon and -neon too, in google-genai 3.6.1
    # _gaos/types/interactions/model.py) thinks at a level: low, medium (Argon's default) or
    # high, and refuses a budget ("does not support thinking_budget"; issue 34). Sent no
    # temperature, as Gemini 3: no source says Gemini 4 takes one.
    Family(
        "gemini-4-*",
        False,
        _LOW,
        2048,
        ("issue 34 (the review of 2026-12-03)", "google-genai 3.6.1 types.py ThinkingLevel"),
        _LOW_TO_HIGH,
    ),
)
#: Earlier models (2.0, 1.5) think not at all and take the classic settings.
_CLASSIC = Family("*", True)


def family(model: str) -> Family:
    """The family of a Gemini model (by `FAMILIES`)."""
    return next((f for f in FAMILIES if fnmatchcase(model, f.pattern)), _CLASSIC)


def effort_refusal(model: str, effort: str) -> str | None:
    """Why a Gemini model does not take a juror's `effort` as its thinking level (None when
    it does): Gemini 3 and 4 think at a level, each family at its own; 2.5 and earlier take a
    budget, not a level."""
    levels = family(model).levels
    if not levels:
        return "it thinks by a budget, not at a level"
    if effort not in levels:
        return f"it thinks at {', '.join(levels)}"
    return None
