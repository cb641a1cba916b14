"""What goes wrong with a call, the queue of faults waiting for their calls, and what a
scripted call answers. Nothing here knows a provider: the fake server renders each outcome in
the protocol the request came in."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import formatdate
from typing import Any, Literal

__all__ = [
    "MALFORMED_BODY",
    "Fault",
    "Injections",
    "ScriptReply",
    "retry_after_date",
    "spoil",
    "valid_reply",
]

#: The body of a ``malformed`` fault: JSON cut off mid-object, whichever provider was asked.
MALFORMED_BODY = b'{"id": "broken", "choices": [{"message": '


@dataclass(frozen=True, slots=True)
class Fault:
    """Something to go wrong with one call. Build one with the class methods.

    ``status``: answer with an HTTP error (a 429's delay as the provider gives it: headers, or
    Gemini's ``RetryInfo``); ``quota``: the provider's "no quota left" (OpenAI
    ``insufficient_quota``, a Gemini per-day ``QuotaFailure``, Anthropic's spend limit);
    ``account``: another account-level stop or limit, named (Anthropic's ``usage_limits`` set
    by the user, ``billing``, ``contract_spend_limit``, ``organization_on_hold``, and its
    ``ramp_limit``, a 429 that is no stop: it is waited out; Gemini's ``prepay``, prepaid
    credits used up; a used-up quota where a protocol has none), with `retry_after` as a
    ``retry-after`` header when given;
    ``overloaded``: its "busy for everyone" (Anthropic 529 ``overloaded_error``, 503
    elsewhere); ``latency``: answer normally after a delay; ``hang``: never answer (until the
    server closes); ``drop``: close the connection without an answer; ``malformed``: a 200
    whose body is not JSON; ``truncated``: the judge's text cut off at the token limit;
    ``refusal``: the model declines (Anthropic ``stop_reason: "refusal"``, OpenAI
    ``message.refusal``, a Gemini candidate stopped for ``SAFETY``); ``filtered``: a safety
    filter blocks it (OpenAI ``finish_reason: "content_filter"``, Gemini's
    ``promptFeedback.blockReason``); ``empty``: an empty reply;
    ``out_of_range``/``missing``: the reply with one field out of its range, or left out.
    """

    kind: Literal[
        "status",
        "quota",
        "account",
        "overloaded",
        "latency",
        "hang",
        "drop",
        "malformed",
        "truncated",
        "refusal",
        "filtered",
        "empty",
        "out_of_range",
        "missing",
    ]
    status: int = 0
    retry_after: float | str | None = None
    retry_after_ms: float | None = None
    delay: float = 0.0
    field: str | None = None
    message: str = ""
    #: The reply's ``x-should-retry`` header (None: not sent).
    should_retry: bool | None = None

    @classmethod
    def http(
        cls,
        status: int,
        *,
        retry_after: float | str | None = None,
        retry_after_ms: float | None = None,
        message: str = "",
        should_retry: bool | None = None,
    ) -> Fault:
        """An HTTP error. `retry_after` is seconds, or an HTTP date given as a string;
        `should_retry` the ``x-should-retry`` header the reply carries (None: none)."""
        return cls(
            "status",
            status,
            retry_after,
            retry_after_ms,
            message=message,
            should_retry=should_retry,
        )

    @classmethod
    def quota(cls, message: str = "") -> Fault:
        """The account's quota is used up: no retry clears it."""
        return cls("quota", message=message)

    @classmethod
    def account(cls, which: str, message: str = "", *, retry_after: float | None = None) -> Fault:
        """An account-level stop or limit named `which` (see the class's list); `retry_after`
        is sent as its ``retry-after`` header."""
        return cls("account", retry_after=retry_after, field=which, message=message)

    @classmethod
    def overloaded(cls) -> Fault:
        """The service is busy for everyone (worth retrying)."""
        return cls("overloaded")

    @classmethod
    def refusal(cls, message: str = "") -> Fault:
        """The model declines to answer (`message`: its words, where the protocol has them)."""
        return cls("refusal", message=message)

    @classmethod
    def filtered(cls) -> Fault:
        """The provider's safety filter blocks the prompt or the reply."""
        return cls("filtered")

    @classmethod
    def empty(cls) -> Fault:
        """An empty reply."""
        return cls("empty")

    @classmethod
    def latency(cls, seconds: float) -> Fault:
        return cls("latency", delay=seconds)

    @classmethod
    def hang(cls) -> Fault:
        return cls("hang")

    @classmethod
    def drop(cls) -> Fault:
        return cls("drop")

    @classmethod
    def malformed(cls) -> Fault:
        return cls("malformed")

    @classmethod
    def truncated(cls) -> Fault:
        return cls("truncated")

    @classmethod
    def out_of_range(cls, field: str | None = None) -> Fault:
        """The reply with `field` (default: its first integer field) past its maximum."""
        return cls("out_of_range", field=field)

    @classmethod
    def missing(cls, field: str | None = None) -> Fault:
        """The reply without `field` (default: its first field after ``reason``)."""
        return cls("missing", field=field)


#: What a script gives for one call: reply text, an object sent as JSON text, or a fault.
ScriptReply = str | Mapping[str, Any] | Fault


@dataclass(slots=True)
class _Injection:
    fault: Fault
    model: str | None
    remaining: int | None


class Injections:
    """Faults waiting for their calls, in the order they were injected."""

    def __init__(self) -> None:
        self._queue: list[_Injection] = []

    def add(self, fault: Fault, *, model: str | None, times: int | None) -> None:
        """`fault` for the next `times` calls of `model` (None: of any model; ``times=None``:
        every call until `clear`)."""
        self._queue.append(_Injection(fault, model, times))

    def take(self, model: str) -> Fault | None:
        """The fault for this call of `model`, used up; None when no fault is waiting for it."""
        for injection in self._queue:
            if injection.model not in (None, model) or injection.remaining == 0:
                continue
            if injection.remaining is not None:
                injection.remaining -= 1
            return injection.fault
        return None

    def clear(self) -> None:
        self._queue.clear()


_MAXIMUM = re.compile(r"\bmaximum: (-?\d+)")


def valid_reply(schema: Mapping[str, Any] | None, *, score: int | None = None) -> dict[str, Any]:
    """A reply that satisfies `schema` (a flat object schema such as a rubric's): strings say
    "scripted reply", integers take `score` or the top of their range, booleans true."""
    reply: dict[str, Any] = {}
    if not schema:
        return {"reason": "scripted reply"}
    for name, prop in (schema.get("properties") or {}).items():
        kind = prop.get("type")
        if "enum" in prop:
            reply[name] = prop["enum"][-1]
        elif kind == "integer":
            reply[name] = score if score is not None else _top(prop, 5)
        elif kind == "number":
            reply[name] = float(score if score is not None else prop.get("maximum", 1.0))
        elif kind == "boolean":
            reply[name] = True
        elif kind == "array":
            reply[name] = []
        elif kind == "object":
            reply[name] = valid_reply(prop, score=score)
        else:
            reply[name] = "scripted reply"
    return reply


def _top(prop: Mapping[str, Any], default: int) -> int:
    """An integer's maximum: in the schema, or where a provider that takes no bounds moved it,
    into the description (``{minimum: 1, maximum: 4}``, the anthropic SDK's transform_schema
    rule: lib/_parse/_transform.py), which the model reads."""
    if "maximum" in prop:
        return int(prop["maximum"])
    found = _MAXIMUM.search(str(prop.get("description") or ""))
    return int(found.group(1)) if found else default


def spoil(
    reply: str | Mapping[str, Any], fault: Fault, schema: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The reply an ``out_of_range`` or ``missing`` fault sends instead of `reply`."""
    data = json.loads(reply) if isinstance(reply, str) else dict(reply)
    name = fault.field
    if fault.kind == "out_of_range":
        props = (schema or {}).get("properties", {})
        name = name or next(
            (k for k, v in props.items() if v.get("type") == "integer"), next(iter(data))
        )
        top = props.get(name, {}).get("maximum", 5)
        data[name] = top + 5
    else:
        name = name or next((k for k in data if k != "reason"), next(iter(data)))
        data.pop(name, None)
    return data


def retry_after_date(seconds: float) -> str:
    """An HTTP-date `seconds` from now, for a ``retry-after`` given as a date."""
    return formatdate(time.time() + seconds, usegmt=True)
