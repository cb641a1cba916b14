"""Anthropic Messages, as the fake server speaks it."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any, ClassVar

from ._anthropic_thinking import thinking_refusal, thinking_rules
from ._images import anthropic_images
from ._wire import (
    THINKING,
    Ending,
    Provider,
    Refusal,
    Route,
    Tokens,
    WireProtocol,
    bearer,
    request_keys,
    text_of,
)

if TYPE_CHECKING:
    from ._log import LoggedRequest

__all__ = ["AnthropicMessages"]

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}

#: The shortest prefix each model caches, in tokens; below it a marked prefix is silently not
#: cached ("Shorter prompts cannot be cached, even if marked with cache_control"). Claude 4.x:
#: the prompt-caching page as quoted in
#: https://github.com/anthropics/anthropic-sdk-python/issues/1194. Claude 5, 5.1 and 5.5, and
#: Haiku 5.5: the page's "Cache limitations" list,
#: https://platform.claude.com/docs/en/build-with-claude/prompt-caching, "512 tokens for Claude
#: Fable 5.1, Claude Mythos 5.1, Claude Opus 5.5, Claude Opus 5, Claude Sonnet 5.5, Claude
#: Fable 5, Claude Mythos 5, and Claude Haiku 5.5" (as quoted, fetched 2026-10-08, in public
#: research notes found with the search tool), and 1,024 for Sonnet 5 and Opus 4.8. Most
#: specific pattern first: Sonnet 5.5 caches from 512, Sonnet 5 from 1,024.
_CACHE_MINIMUM = (
    ("claude-opus-5*", 512),
    ("claude-fable-5*", 512),
    ("claude-mythos-5*", 512),
    ("claude-sonnet-5-5*", 512),
    ("claude-haiku-5-5*", 512),
    ("claude-sonnet-5*", 1024),
    ("claude-opus-4-8*", 1024),
    ("claude-opus-4-7*", 2048),
    ("claude-opus-4-6*", 4096),
    ("claude-opus-4-5*", 4096),
    ("claude-haiku-4-5*", 4096),
    ("claude-haiku-3*", 2048),
    ("claude-3-5-haiku*", 2048),
    ("claude-3-haiku*", 2048),
)
_CACHE_DEFAULT = 1024
_VERSION = re.compile(r"\d{4}-\d{2}-\d{2}")


def _supported_schema(schema: Any) -> str | None:
    """What structured outputs refuse in `schema`: the keywords the SDK's `transform_schema`
    (anthropic/lib/_parse/_transform.py) does not carry over to the API but writes into the
    description ("if there are any props leftover then they aren't supported"), and a schema
    it cannot read at all."""
    try:
        from anthropic.lib._parse._transform import transform_schema
    except ImportError:
        return None
    try:
        leftover = _leftover(schema, transform_schema(schema))
    except (ValueError, TypeError) as exc:
        return str(exc)
    if leftover is not None:
        where, words = leftover
        return f"{where or '/'}: keywords structured outputs do not support: {words}"
    return None


def _leftover(given: Any, accepted: Any, where: str = "") -> tuple[str, str] | None:
    """Where the transform moved keywords into a description, and which."""
    if not (isinstance(given, dict) and isinstance(accepted, dict)):
        return None
    said = accepted.get("description")
    if said != given.get("description"):
        return where, str(said).rsplit("\n\n", 1)[-1]
    for key in ("properties", "$defs"):
        for name, sub in (given.get(key) or {}).items():
            found = _leftover(sub, (accepted.get(key) or {}).get(name), f"{where}/{key}/{name}")
            if found:
                return found
    return _leftover(given.get("items"), accepted.get("items"), f"{where}/items")


def _empty(content: Any) -> bool:
    if isinstance(content, str):
        return not content
    if isinstance(content, list):
        return not content or any(
            isinstance(b, dict) and b.get("type") == "text" and not b.get("text") for b in content
        )
    return content is None


class AnthropicMessages(WireProtocol):
    """``POST /v1/messages``: the model in the body, the schema in
    ``output_config.format`` or as a forced tool's input schema, the system prompt apart."""

    provider: ClassVar[Provider] = "anthropic"
    routes: ClassVar[tuple[Route, ...]] = (Route("POST", "/v1/messages"),)
    reports_cache_writes: ClassVar[bool] = True

    def schema_in(self, body: dict[str, Any]) -> object:
        fmt = (body.get("output_config") or {}).get("format") or {}
        found = fmt.get("schema")
        if found is None and body.get("tools"):
            found = body["tools"][0].get("input_schema")
        return found

    def prompt_parts(self, body: dict[str, Any]) -> tuple[str, str]:
        rest = "".join(text_of(m.get("content")) for m in body.get("messages") or [])
        return text_of(body.get("system")), rest

    def cached_prefix(self, body: dict[str, Any]) -> str:
        # Unlike the others, Anthropic caches a prompt only where the request marks it.
        blocks = body.get("system")
        marked = isinstance(blocks, list) and any(
            isinstance(b, dict) and b.get("cache_control") for b in blocks
        )
        return text_of(blocks) if marked else ""

    def strict_refusal(self, logged: LoggedRequest) -> Refusal | None:
        body = logged.body
        keys = request_keys(
            "anthropic.types.message_create_params", "MessageCreateParamsNonStreaming"
        )
        if keys is not None:
            allowed, required = keys
            unknown = sorted(set(body) - allowed)
            if unknown:
                return Refusal(f"{unknown[0]}: Extra inputs are not permitted")
            missing = sorted(required - set(body))
            if missing:
                return Refusal(f"{missing[0]}: Field required")
        messages = body.get("messages") or []
        # "all messages must have non-empty content except for the optional final assistant
        # message" (the API's 400, quoted in issue 11; the Messages API reference).
        for index, message in enumerate(messages):
            final_assistant = index == len(messages) - 1 and message.get("role") == "assistant"
            if _empty(message.get("content")) and not final_assistant:
                return Refusal(
                    f"messages.{index}: all messages must have non-empty content except for "
                    "the optional final assistant message"
                )
        fmt = (body.get("output_config") or {}).get("format") or {}
        if fmt.get("type") == "json_schema":
            problem = _supported_schema(fmt.get("schema"))
            if problem:
                return Refusal(f"output_config.format.schema: {problem}")
        images = anthropic_images(body)
        if images is not None:
            return images
        return thinking_refusal(body, logged.model)

    def thinking_tokens(self, logged: LoggedRequest) -> int:
        thinking = logged.body.get("thinking") or {}
        kind = thinking.get("type")
        if kind == "disabled":
            return 0
        if kind == "enabled":
            return int(thinking.get("budget_tokens") or 0)
        if kind == "between_tools":
            # Only "progress updates" between tool calls: a request with no tools thinks not
            # at all, "the same as disabled on Claude Sonnet 5" (whats-new-sonnet-5-5).
            return 0
        rules = thinking_rules(logged.model)
        effort = (logged.body.get("output_config") or {}).get("effort")
        effort = effort or (rules.effort if rules is not None else "high")
        thinks = kind == "adaptive" or rules is not None
        return THINKING.get(str(effort), 0) if thinks else 0

    def output_limit(self, body: dict[str, Any]) -> int | None:
        limit = body.get("max_tokens")
        return limit if isinstance(limit, int) else None

    def cache_minimum(self, model: str) -> int:
        return next((m for p, m in _CACHE_MINIMUM if fnmatchcase(model, p)), _CACHE_DEFAULT)

    def limit_headers(self, limit: float, remaining: int, reset: float) -> dict[str, str]:
        # https://docs.anthropic.com/en/api/rate-limits#response-headers: the reset in RFC 3339.
        when = datetime.now(UTC) + timedelta(seconds=reset)
        return {
            "anthropic-ratelimit-requests-limit": f"{limit:g}",
            "anthropic-ratelimit-requests-remaining": str(remaining),
            "anthropic-ratelimit-requests-reset": when.isoformat().replace("+00:00", "Z"),
        }

    def rate_limited(self, message: str, delay: float) -> tuple[dict[str, Any], dict[str, str]]:
        # A 429 says how long to wait in whole seconds (https://docs.anthropic.com/en/api/
        # rate-limits: "retry-after header").
        return self.error_body(429, message), {"retry-after": str(max(1, math.ceil(delay)))}

    def reply_body(
        self, logged: LoggedRequest, text: str, tokens: Tokens, *, truncated: bool
    ) -> dict[str, Any]:
        return self.ended_body(logged, text, tokens, "length" if truncated else "stop")

    def ended_body(
        self, logged: LoggedRequest, text: str, tokens: Tokens, ending: Ending
    ) -> dict[str, Any]:
        tool = _forced_tool(logged.body)
        content: list[dict[str, Any]] = []
        if tokens.thinking:
            content.append({"type": "thinking", "thinking": "...", "signature": "fake"})
        if tool is not None and ending == "stop":
            given = json.loads(text) if text.startswith("{") else {"text": text}
            content.append(
                {"type": "tool_use", "id": f"toolu_{logged.index}", "name": tool, "input": given}
            )
        elif text:
            content.append({"type": "text", "text": text})
        stop = {"length": "max_tokens", "refusal": "refusal", "filtered": "refusal"}
        return {
            "id": f"msg_{logged.index}",
            "type": "message",
            "role": "assistant",
            "model": logged.model,
            "content": content,
            "stop_reason": stop.get(ending, "end_turn"),
            "stop_sequence": None,
            "usage": {
                # Anthropic counts cached input apart from `input_tokens`.
                "input_tokens": tokens.input - tokens.cached - tokens.written,
                "output_tokens": tokens.output,
                "cache_creation_input_tokens": tokens.written,
                "cache_read_input_tokens": tokens.cached,
                # "Number of output tokens the model generated as internal reasoning ... Always
                # <= output_tokens" (the SDK's types/output_tokens_details.py).
                **(
                    {"output_tokens_details": {"thinking_tokens": tokens.thinking}}
                    if tokens.thinking
                    else {}
                ),
            },
        }

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        kind = _ERROR_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}

    def quota_exhausted(self, message: str) -> tuple[int, dict[str, Any]]:
        # A 429 whose details name the monthly spend limit (https://learn.microsoft.com/
        # microsoft-cloud/dev/dev-proxy/concepts/anthropic-529-overloaded-error).
        error = {
            "type": "rate_limit_error",
            "message": message or "You have reached your monthly spend limit.",
            "details": {"error_code": "enforced_spend_limit_reached"},
        }
        return 429, {"type": "error", "error": error}

    def account_stop(self, which: str, message: str) -> tuple[int, dict[str, Any]]:
        # A spend limit the user set is a 400 invalid_request_error that says so (its words
        # as the API sends them: https://github.com/anthropics/claude-code/issues/2127 and
        # issues/38035); billing is "402 - billing_error" (https://docs.anthropic.com/en/api/
        # errors); the contract's spend limit a 429 with its own error code (the SDK's
        # _error_classes.py: ``(429, "contract_spend_limit_reached")``).
        if which == "usage_limits":
            text = message or (
                "You have reached your specified API usage limits. You will regain access on "
                "2027-01-01 at 00:00 UTC."
            )
            return 400, self.error_body(400, text)
        if which == "billing":
            text = message or "There is an issue with your account's billing or payment."
            return 402, self.error_body(402, text)
        if which == "contract_spend_limit":
            error = {
                "type": "rate_limit_error",
                "message": message or "Your organization has reached its contract spend limit.",
                "details": {"error_code": "contract_spend_limit_reached"},
            }
            return 429, {"type": "error", "error": error}
        return self.quota_exhausted(message)

    def credential(self, headers: Mapping[str, str]) -> str | None:
        # The docs' ``x-api-key`` (https://docs.anthropic.com/en/api/overview), or the bearer
        # token the SDK sends the key as (anthropic/_client.py, ``_api_key_auth``, 2.5 on).
        return headers.get("x-api-key") or bearer(headers)

    def header_refusal(self, headers: Mapping[str, str], model: str) -> Refusal | None:
        if not self.credential(headers):
            return Refusal("x-api-key header is required", status=401)
        # "you must send an anthropic-version request header"
        # (https://docs.anthropic.com/en/api/versioning): a date, YYYY-MM-DD.
        if not _VERSION.fullmatch(headers.get("anthropic-version") or ""):
            return Refusal("anthropic-version: header is required")
        return None

    def model_not_found(self, model: str) -> Refusal:
        # 404 not_found_error "model: <name>", as the API sends it (quoted in
        # https://github.com/anthropics/claude-code/issues/5349).
        return Refusal(f"model: {model}", status=404)

    def rejected_key(self) -> tuple[int, dict[str, Any]]:
        return 401, self.error_body(401, "invalid x-api-key")

    def overloaded(self) -> tuple[int, dict[str, Any]]:
        # https://docs.anthropic.com/en/api/errors: "529 - overloaded_error".
        return 529, self.error_body(529, "Overloaded")


def _forced_tool(body: Any) -> str | None:
    """The tool the request forces the model to call, whose input is then the reply."""
    choice = body.get("tool_choice") if isinstance(body, dict) else None
    if isinstance(choice, dict) and choice.get("type") == "tool":
        return str(choice.get("name"))
    return None
