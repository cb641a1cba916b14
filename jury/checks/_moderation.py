"""The *moderation* check: toxicity beyond the blocklist, by a real moderation model.

A blocklist catches the words it lists; a paraphrased insult passes it. The seed article's
answer is a model: this check sends everything the agent said (every assistant turn of a
conversation) to OpenAI's moderation endpoint (``openai-moderation/omni-moderation-latest``
by default, free) and fails the case when the model flags a reply in a category not ignored,
or scores one at or above ``threshold`` when one is set. The ``toxicity`` rubric lets a panel
grade what neither catches.

It is off until ``[checks.moderation] enabled = true``. Then it asks the model when its key
(``OPENAI_API_KEY``) is present, and is "not applicable" without it, saying so. The call goes
through the engine's call layer like a juror's: cached (a rerun pays nothing twice), within
the OpenAI account's limits, retried with backoff. A model that does not answer is not a
pass and not a fail: the check is *unavailable*, and a case the jury passed is INCONCLUSIVE.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol

from .._errors import CallFailed, MissingCredentialError, OverBudget
from .._verdict import CallStats, CheckResult
from ..adapters._model import JudgeModel
from ..adapters._request import JudgeReply, JudgeRequest, Message
from ..cases._case import Case
from ._core import CheckFunction, Finding, clip, failed, not_applicable, passed, unavailable
from ._settings import ModerationRule

__all__ = ["CallLayer", "bound_moderation", "moderation", "unbound_moderation"]


class ModelCaller(Protocol):
    """One model's caller in the engine's call layer (`jury.engine._calls.Caller`)."""

    async def call(self, request: JudgeRequest, sample: int, stats: CallStats) -> JudgeReply:
        """The reply, through cache, budget, limits and retries; `CallFailed` if none came."""
        ...


class CallLayer(Protocol):
    """What a check that asks a model needs of the engine's call layer: a caller per model.
    Declared here, by its user, so that the checks need not import the engine."""

    def caller(self, model: JudgeModel) -> ModelCaller: ...


#: Sends texts to the model, counting its calls into the `CallStats`; their results, one per
#: text, as the API gives them.
Ask = Callable[[Sequence[str], CallStats], Awaitable[list[Mapping[str, Any]]]]


class ModerationUnavailable(Exception):
    """The moderation model gave no usable answer."""


def _hits(rule: ModerationRule, result: Mapping[str, Any]) -> list[str]:
    scores = result.get("category_scores") or {}
    flags = result.get("categories") or {}
    return [
        f"{name} {score:.2f}"
        for name, score in scores.items()
        if name not in rule.ignore
        and (flags.get(name) is True or (rule.threshold is not None and score >= rule.threshold))
    ]


def moderation(rule: ModerationRule, ask: Ask) -> CheckFunction:
    """The check asking its model with `ask`. Its result carries the calls it made, answered
    or not, so that the run's accounting has them (`CheckResult.calls`)."""

    async def moderation(case: Case) -> Finding | CheckResult:
        replies = case.replies
        if not replies:
            return not_applicable("no answer")
        stats = CallStats()
        found = await _moderate(rule, ask, replies, stats)
        return CheckResult(
            name="moderation",
            outcome=found.outcome,
            reason=found.reason,
            evidence=found.evidence,
            model=rule.model,
            calls=stats,
        )

    return moderation


async def _moderate(
    rule: ModerationRule, ask: Ask, replies: Sequence[str], stats: CallStats
) -> Finding:
    try:
        results = await ask(replies, stats)
    except ModerationUnavailable as exc:
        return unavailable(str(exc))
    flagged = [
        f"reply {n}: {', '.join(hits)}" if len(replies) > 1 else ", ".join(hits)
        for n, result in enumerate(results, start=1)
        if (hits := _hits(rule, result))
    ]
    if flagged:
        listed = "; ".join(flagged)
        return failed(f"flagged by {rule.model}: {clip(listed, 120)}", listed)
    return passed(f"nothing flagged by {rule.model}")


def unbound_moderation(rule: ModerationRule) -> CheckFunction:
    """The check outside a `Jury`, which has no call layer to ask the model through."""

    def moderation(case: Case) -> Finding:
        return not_applicable("the moderation model is asked within a Jury (jury run)")

    return moderation


def bound_moderation(rule: ModerationRule, calls: CallLayer) -> CheckFunction:
    """The check asking its model through `calls`, or "not applicable" without its key."""
    from ..adapters._registry import resolve_model

    try:
        model = resolve_model(rule.model)
    except MissingCredentialError as exc:
        why = f"{exc.variable} is not set: the moderation model was not asked"
        return lambda case: not_applicable(why)
    caller = calls.caller(model)

    async def ask(texts: Sequence[str], stats: CallStats) -> list[Mapping[str, Any]]:
        request = JudgeRequest(
            system="",
            messages=tuple(Message("user", text) for text in texts),
            schema={},
            schema_name="moderation",
            temperature=None,
        )
        try:
            reply = await caller.call(request, 0, stats)
        except CallFailed as exc:
            raise ModerationUnavailable(f"the moderation model did not answer: {exc}") from None
        except OverBudget:
            raise ModerationUnavailable("the run's budget was spent") from None
        results = json.loads(reply.text)
        if not isinstance(results, list) or len(results) != len(texts):
            count = len(results) if isinstance(results, list) else 0
            raise ModerationUnavailable(f"{count} results for {len(texts)} texts")
        return results

    return moderation(rule, ask)
