"""Claude's thinking as the fake server holds requests to it: which families think unless
told otherwise, at which effort, and what each refuses (a thinking type, a thinking type at an
effort, a manual budget, an assistant prefill, a forced tool choice), each rule with the page
it was read from."""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from ._wire import Refusal

__all__ = ["THINKS_BY_DEFAULT", "ThinkingRules", "thinking_refusal", "thinking_rules"]


@dataclass(frozen=True, slots=True)
class ThinkingRules:
    """How a family of Claude models that thinks by default takes ``thinking`` ("which `type`
    values are accepted, and what happens when you omit `thinking`, depend on the model", the
    SDK's types/thinking_config_param.py): its effort when ``output_config.effort`` is not
    sent, the ``thinking.type`` values it accepts, the efforts at which it accepts the types
    that turn thinking down, and whether it refuses an assistant prefill (a final assistant
    turn) and a forced ``tool_choice`` (``tool`` or ``any``)."""

    pattern: str
    effort: str
    types: frozenset[str]
    #: The efforts at which ``disabled`` and ``between_tools`` are taken (the rest: a 400).
    low_types_at: frozenset[str] = frozenset({"low", "medium", "high"})
    no_prefill: bool = True
    no_forced_tool: bool = False
    source: str = ""


_ADAPTIVE = frozenset({"adaptive"})
_DOCS = "https://platform.claude.com/docs/en/models"
#: The families that think unless told otherwise, first match winning (so the 5.5 rows come
#: before the 5 ones their patterns also match). None of them takes a manual budget
#: (``enabled``): "budget_tokens is gone on 4.7 and newer"
#: (https://docs.apiyi.com/en/live/2026-11/claude-thinking-guide-refresh, read 2026-12-01).
THINKS_BY_DEFAULT: tuple[ThinkingRules, ...] = (
    # "Adaptive thinking is always on ... its default on this model is medium"; disabled and
    # enabled are a 400; "Forced tool use returns an error"; "the first three also apply on
    # Claude Fable 5.1" (opus-5-5/whats-new-opus-5-5); no final assistant turn on the 5.5
    # models, "already the case on Opus 5" (https://openrouter.ai/docs/cookbook/evaluate-and-
    # optimize/model-migrations/claude-5-5).
    ThinkingRules(
        "claude-opus-5-5*",
        "medium",
        _ADAPTIVE,
        no_forced_tool=True,
        source=f"{_DOCS}/opus-5-5/whats-new-opus-5-5",
    ),
    # Thinking on, accepted types "adaptive", "between_tools" (between_tools at low, medium
    # and high); "thinking budgets, sampling parameters, assistant prefill, forced tool choice,
    # and thinking: {"type": "disabled"}" return a 400; the API's default effort is high
    # (sonnet-5-5/migration-guide and whats-new-sonnet-5-5).
    ThinkingRules(
        "claude-sonnet-5-5*",
        "high",
        frozenset({"adaptive", "between_tools"}),
        no_forced_tool=True,
        source=f"{_DOCS}/sonnet-5-5/migration-guide",
    ),
    # Adaptive by default at medium; "thinking: {"type": "disabled"} ... only at low, medium
    # and high. At xhigh and max the request returns a 400"; manual extended thinking and a
    # prefill return errors (haiku-5-5/whats-new-haiku-5-5; prompting-claude-haiku-5-5).
    ThinkingRules(
        "claude-haiku-5*",
        "medium",
        frozenset({"adaptive", "disabled"}),
        source=f"{_DOCS}/haiku-5-5/whats-new-haiku-5-5",
    ),
    # Fable 5.1 and Mythos 5.1: adaptive always on, default effort high (the models
    # overview's table); disabled, enabled and a forced tool choice are a 400
    # (opus-5-5/whats-new-opus-5-5; fable-5-1/whats-new-fable-5-1). No source read says
    # whether they take a prefill: taken.
    *(
        ThinkingRules(
            pattern,
            "high",
            _ADAPTIVE,
            no_prefill=False,
            no_forced_tool=True,
            source=f"{_DOCS}/fable-5-1/whats-new-fable-5-1",
        )
        for pattern in ("claude-fable-5-1*", "claude-mythos-5-1*")
    ),
    # Fable 5 and Mythos 5 "only support adaptive thinking": disabled and enabled are a 400
    # (https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-adaptive-
    # thinking.html); default effort high, as for every model but Opus 5.5 and Haiku 5.5.
    *(
        ThinkingRules(
            pattern,
            "high",
            _ADAPTIVE,
            no_prefill=False,
            source="https://docs.aws.amazon.com/bedrock/latest/userguide/"
            "claude-messages-adaptive-thinking.html",
        )
        for pattern in ("claude-fable-5*", "claude-mythos-5*")
    ),
    # "On Claude Opus 5, thinking is on by default and thinking: {"type": "disabled"} is
    # accepted at effort high or below" (opus-5-5/whats-new-opus-5-5; opus-5/migration-guide).
    ThinkingRules(
        "claude-opus-5*",
        "high",
        frozenset({"adaptive", "disabled"}),
        source=f"{_DOCS}/opus-5/migration-guide",
    ),
    # Accepted thinking.type "adaptive, disabled", effort low to max, default high
    # (https://apidog.com/blog/claude-sonnet-5-5-vs-sonnet-5/, Anthropic's table as quoted).
    # No source read says it refuses a prefill: taken.
    ThinkingRules(
        "claude-sonnet-5*",
        "high",
        frozenset({"adaptive", "disabled"}),
        no_prefill=False,
        source="https://apidog.com/blog/claude-sonnet-5-5-vs-sonnet-5/",
    ),
)


def thinking_rules(model: str) -> ThinkingRules | None:
    """The rules of the family `model` belongs to, when it thinks by default."""
    return next((r for r in THINKS_BY_DEFAULT if fnmatchcase(model, r.pattern)), None)


def thinking_refusal(body: dict[str, Any], model: str) -> Refusal | None:
    """What the model's family refuses of the request's thinking, effort, last turn and tool
    choice; the messages are those the API sends (opus-5-5/whats-new-opus-5-5, fable-5-1)."""
    given = body.get("thinking")
    thinking: dict[str, Any] = given if isinstance(given, dict) else {}
    kind = thinking.get("type")
    if kind == "enabled":
        # The SDK's ThinkingConfigEnabledParam: "Must be ≥1024 and less than `max_tokens`."
        budget = thinking.get("budget_tokens")
        if not isinstance(budget, int) or budget < 1024:
            return Refusal(
                "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
            )
        if isinstance(body.get("max_tokens"), int) and budget >= body["max_tokens"]:
            return Refusal("`max_tokens` must be greater than `thinking.budget_tokens`")
    rules = thinking_rules(model)
    choice = body.get("tool_choice")
    forced = isinstance(choice, dict) and choice.get("type") in ("tool", "any")
    thinks = kind in ("enabled", "adaptive") or (kind is None and rules is not None)
    # "Tool use with thinking only supports tool_choice: auto (the default) or none"
    # (https://platform.claude.com/docs/en/build-with-claude/extended-thinking, "Extended
    # thinking with tool use"); Opus 5.5, Sonnet 5.5 and Fable 5.1, whose thinking is on
    # whatever the request says, answer so with their own words below.
    if forced and thinks and (rules is None or not rules.no_forced_tool):
        return Refusal("Thinking may not be enabled when tool_choice forces tool use.")
    if rules is None:
        return None
    effort = str((body.get("output_config") or {}).get("effort") or rules.effort)
    if kind is not None and kind not in rules.types:
        return Refusal(
            f'"thinking.type.{kind}" is not supported for this model. Use '
            '"thinking.type.adaptive" and "output_config.effort" to control thinking behavior.'
        )
    if kind in ("disabled", "between_tools") and effort not in rules.low_types_at:
        return Refusal(f'thinking.type "{kind}" is not supported at effort "{effort}"')
    messages = body.get("messages") or []
    if rules.no_prefill and messages and messages[-1].get("role") == "assistant":
        return Refusal(
            "This model does not support assistant message prefill. The conversation must "
            "end with a user message."
        )
    if rules.no_forced_tool and forced:
        return Refusal('tool_choice: type "tool" and "any" are not supported for this model.')
    return None
