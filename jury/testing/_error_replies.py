"""The fake server's error replies: an HTTP error in the protocol the request came in, with
the headers a provider sends along."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aiohttp import web

if TYPE_CHECKING:
    from ._faults import Fault
    from ._log import LoggedRequest
    from ._wire import WireProtocol

__all__ = ["STOPS", "error_headers", "error_response", "stop_body", "stop_reply"]

#: The fault kinds that stop a call in the provider's words (`stop_body`).
STOPS = ("quota", "account", "overloaded")


def error_headers(
    retry_after: float | str | None, ms: float | None, hint: bool | None = None
) -> dict[str, str]:
    """The headers of an HTTP error: its delay (``retry-after`` in seconds or as an HTTP
    date, ``retry-after-ms``) and the server's word on retrying (``x-should-retry``, as
    Anthropic and OpenAI send it; None: not sent)."""
    headers: dict[str, str] = {}
    if isinstance(retry_after, str):
        headers["retry-after"] = retry_after
    elif retry_after is not None:
        headers["retry-after"] = f"{retry_after:g}"
    if ms is not None:
        headers["retry-after-ms"] = f"{ms:g}"
    if hint is not None:
        headers["x-should-retry"] = "true" if hint else "false"
    return headers


def error_response(
    protocol: WireProtocol,
    logged: LoggedRequest,
    status: int,
    message: str,
    *,
    retry_after: float | str | None = None,
    ms: float | None = None,
    hint: bool | None = None,
) -> web.Response:
    """The error `status` with `message`, as `protocol` writes it; logged as answered."""
    logged.status = status
    headers = error_headers(retry_after, ms, hint)
    return web.json_response(protocol.error_body(status, message), status=status, headers=headers)


def stop_reply(protocol: WireProtocol, fault: Fault) -> web.Response:
    """A fault that stops a call in its provider's words, online or at a batch create: a
    used-up quota, an account-level stop or limit (`Fault.account`), or the service
    overloaded, with its ``retry-after`` when the fault gives one."""
    status, body = stop_body(protocol, fault)
    return web.json_response(body, status=status, headers=error_headers(fault.retry_after, None))


def stop_body(protocol: WireProtocol, fault: Fault) -> tuple[int, dict[str, Any]]:
    """The status and body of a ``quota``, ``account`` or ``overloaded`` fault (a request
    inside a batch gets them as its result)."""
    if fault.kind == "account":
        return protocol.account_stop(fault.field or "", fault.message)
    if fault.kind == "quota":
        return protocol.quota_exhausted(fault.message)
    return protocol.overloaded()
