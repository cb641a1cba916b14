"""Anthropic's account stops and named limits, read from an error body (online, and a batch
request's error, which is the online body: the SDK's ``message_batch_errored_result.py``).

The error code travels in ``error.details.error_code`` (the SDK's ``extract_error_code``,
``_exceptions.py``; its classes by status and code in ``_error_classes.py``, SDK 2.16).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jury import AccountError, ProviderError, QuotaExhaustedError

from ._wire import error_for_status

__all__ = ["account_stop"]

#: 429s whose ``error.details.error_code`` says a spend limit is reached: access resumes
#: next month or with a new contract, not after a wait (the SDK's ``_error_classes.py``;
#: https://learn.microsoft.com/microsoft-cloud/dev/dev-proxy/concepts/anthropic-529-overloaded-error).
_SPEND_LIMITS = {
    "enforced_spend_limit_reached": "the monthly spend limit of the account's tier is reached",
    "contract_spend_limit_reached": "the spend limit of the organization's contract is reached",
}
#: The words of the 400 the API answers once a spend limit the user set is reached ("You
#: have reached your specified API usage limits. You will regain access on ...", as quoted in
#: https://github.com/anthropics/claude-code/issues/2127).
_USAGE_LIMITS = "reached your specified API usage limits"


def account_stop(status: int, body: Any, headers: Mapping[str, str] | None) -> ProviderError | None:
    """The account stops no retry clears, each the first time it is seen: a spend limit the
    user set (a 400 that says so), billing (402 ``billing_error``), the 429s whose error code
    names a spend limit (``enforced_spend_limit_reached``, ``contract_spend_limit_reached``),
    which are not rate limits: waiting does not lift them, and an organization on hold; a
    ramp limit named (`_held_or_ramped`). None for every other error."""
    error = body.get("error") if isinstance(body, Mapping) else None
    if not isinstance(error, Mapping):
        return None
    message = str(error.get("message") or "")
    if status == 400 and _USAGE_LIMITS in message:
        return QuotaExhaustedError(
            f"anthropic: HTTP 400: {message} (the usage limit set on the account is "
            "reached: raise it in the Claude Console, Settings > Limits)",
            status=400,
        )
    if status == 402:
        return QuotaExhaustedError(
            f"anthropic: HTTP 402 {error.get('type') or 'billing_error'}: {message} (fix "
            "the account's billing in the Claude Console, Settings > Billing)",
            status=402,
        )
    details = error.get("details")
    code = details.get("error_code") if isinstance(details, Mapping) else None
    if status == 429 and code in _SPEND_LIMITS:
        return QuotaExhaustedError(
            f"anthropic: HTTP 429 {code}: {message} ({_SPEND_LIMITS[code]}: no retry clears it)",
            status=429,
        )
    return _held_or_ramped(status, code, message, details, headers)


def _held_or_ramped(
    status: int, code: Any, message: str, details: Any, headers: Mapping[str, str] | None
) -> ProviderError | None:
    """The SDK's ``(400, "organization_on_hold")``: "Anthropic has disabled the organization
    for trust and safety reasons", an ``appeal_url`` in its details (types/shared/
    organization_on_hold_error.py): no call on the account can work, the run stops. Its
    ``(429, "ramp_limit_exceeded")``, a limit on how fast usage grows, "Retry after the time
    in the retry-after header" (types/shared/ramp_limit_exceeded_error.py): a rate limit,
    waited out, named."""
    if status == 400 and code == "organization_on_hold":
        appeal = details.get("appeal_url") if isinstance(details, Mapping) else None
        where = f": appeal at {appeal}" if appeal else ""
        return AccountError(
            f"anthropic: HTTP 400 organization_on_hold: {message} (Anthropic has put the "
            f"organization on hold{where})",
            status=400,
        )
    if status == 429 and code == "ramp_limit_exceeded":
        return error_for_status(
            429,
            f"ramp_limit_exceeded: {message} (usage is growing faster than the organization's "
            "ramp limit allows: waited out as its retry-after says)",
            headers=headers,
        )
    return None
