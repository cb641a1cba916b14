"""The thinking room of the Gemini adapter, for the registry's ``ROOMS`` (`jury estimate`).

Anthropic's and OpenAI's are their adapters' own ``output_room``; Gemini's lives here only
because ``google.py`` is at the module size limit. It reads the same table the adapter's body
reads (`google.Family.room`, added to ``maxOutputTokens`` whatever the juror's effort).
"""

from __future__ import annotations

from ._gemini_family import family

__all__ = ["google"]


def google(model: str, effort: str | None = None) -> int:
    """The output tokens `google.GeminiWire.body` adds to a juror's max tokens for the
    thinking of `model` (billed as output)."""
    return family(model).room
