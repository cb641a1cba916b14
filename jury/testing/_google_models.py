"""What Gemini refuses of one model's thinking configuration and not another's: Gemini 4
(``gemini-4-argon``, ``gemini-4-hydrogen``; ``-carbon`` and ``-neon`` are listed beside them in
google-genai 3.6.1 ``_gaos/types/interactions/model.py``) thinks at a level, low, medium or
high, and refuses a budget. Each rule names its source; the adapter is held to them by running
against the fake (`jury.providers._gemini_family` keeps its own table)."""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Any

from ._wire import Refusal

__all__ = ["DEFAULT_LEVELS", "thinking_refusal"]

_GEMINI_4 = "gemini-4-*"
#: Issue 34 (the review of 2026-12-03): Argon "takes thinking_level low/medium/high". google-
#: genai's ThinkingLevel also names MINIMAL and XHIGH (types.py; tests/types/test_types.py
#: test_thinking_level_xhigh): a level the model does not take is refused as the API refuses
#: MINIMAL on 3.8 Flash.
_GEMINI_4_LEVELS = ("low", "medium", "high")
#: The level each model thinks at when the request does not say: Argon at medium (issue 34);
#: the other Gemini 4 models taken to do the same (no source read says otherwise).
DEFAULT_LEVELS = ((_GEMINI_4, "medium"),)


def thinking_refusal(settings: dict[str, Any], model: str) -> Refusal | None:
    """What the API refuses of `settings` (``thinkingConfig``, camel-cased) for `model`."""
    if not fnmatchcase(model, _GEMINI_4):
        return None
    if "thinkingBudget" in settings:
        # Issue 34: Gemini 4 "does not support thinking_budget"; google-genai types.py
        # (ReinforcementTuningThinkingLevel): "Starting from Gemini 3.5 models, the old
        # thinking_budget will no longer be supported and will result in a user error if set".
        return Refusal(
            f"Model {model} does not support thinking_budget. Use thinking_level instead.",
        )
    level = str(settings.get("thinkingLevel") or "").lower()
    if level and level not in _GEMINI_4_LEVELS:
        return Refusal(f"Thinking level {level.upper()} is not supported for {model}.")
    return None
