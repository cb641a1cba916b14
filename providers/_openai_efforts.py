"""Which ``reasoning_effort`` values each OpenAI reasoning model takes, and the one a judge is
sent when its juror says none.

The API refuses a value a model does not take ("Unsupported value: 'minimal' is not supported
with the 'gpt-5.1' model"), on every call: a juror asking one is refused when the jury file
loads instead (`jury.providers.openai.effort_refusal`). The values are the SDK's
(openai 3.60 types/shared/reasoning_effort.py: none to max; "Not all reasoning models support
every value"), each model's as its sources list them (the fake, `jury.testing`, refuses the
same, each rule with its source).
"""

from __future__ import annotations

from fnmatch import fnmatchcase

__all__ = ["EFFORTS", "default_effort", "efforts"]

#: Every value the API names (the SDK's ReasoningEffort).
EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
_TO_XHIGH = ("none", "low", "medium", "high", "xhigh")

#: By name pattern, the first match winning; a reasoning model matching none is taken to take
#: every value (the API says, on the first call, when it does not).
_BY_MODEL: tuple[tuple[str, tuple[str, ...]], ...] = (
    # Issue 34: "max" for gpt-6-astra, gpt-6.2-sol, gpt-6-luna; no "none" on gpt-6.2-astra/sol.
    ("gpt-6.2-astra*", ("low", "medium", "high", "xhigh", "max")),
    ("gpt-6.2-sol*", ("low", "medium", "high", "xhigh", "max")),
    ("gpt-6-astra*", (*_TO_XHIGH, "max")),
    ("gpt-6-luna*", (*_TO_XHIGH, "max")),
    ("gpt-6*", _TO_XHIGH),
    # GPT-5.2 and later reach xhigh; 5.1 dropped minimal for none; GPT-5 added minimal; the
    # o-series take low, medium and high.
    ("gpt-5.[2-9]*", _TO_XHIGH),
    ("gpt-5.1*", ("none", "low", "medium", "high")),
    ("gpt-5*", ("minimal", "low", "medium", "high")),
    ("o[1-9]*", ("low", "medium", "high")),
)

#: A verdict needs little reasoning: "low" where a model takes it (every family above does).
PREFERRED = "low"


def efforts(model: str) -> tuple[str, ...]:
    """The ``reasoning_effort`` values a reasoning `model` takes."""
    return next((taken for pattern, taken in _BY_MODEL if fnmatchcase(model, pattern)), EFFORTS)


def default_effort(model: str) -> str:
    """The effort a judge on `model` is sent when its juror sets none: "low", else the least
    the model takes above it."""
    taken = efforts(model)
    if PREFERRED in taken:
        return PREFERRED
    higher = EFFORTS[EFFORTS.index(PREFERRED) :]
    return next((e for e in higher if e in taken), taken[-1])
