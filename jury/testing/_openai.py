"""OpenAI Chat Completions, as the fake server speaks it."""

from __future__ import annotations

import time
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any, ClassVar

from ._wire import (
    THINKING,
    Ending,
    Provider,
    Refusal,
    Route,
    Tokens,
    WireProtocol,
    request_keys,
    text_of,
)

if TYPE_CHECKING:
    from ._log import LoggedRequest

__all__ = ["OpenAIChatCompletions"]

#: Roles whose messages are instructions rather than conversation ("developer" in newer
#: models), counted as the system prompt.
_SYSTEM_ROLES = ("system", "developer")

#: Reasoning models take no sampling temperature but their default, 1, and spend output tokens
#: reasoning ("Unsupported value: 'temperature'", https://platform.openai.com/docs/guides/
#: reasoning#limitations); GPT-5's chat snapshots are not reasoning models. GPT-6 is assumed to
#: follow GPT-5 (issue 11: it refuses temperature).
_REASONING = ("o[1-9]*", "gpt-5*", "gpt-6*")
_NOT_REASONING = ("gpt-5*-chat-latest",)
#: "Caching is enabled automatically for prompts that are 1024 tokens or longer"
#: (https://platform.openai.com/docs/guides/prompt-caching).
_CACHE_MINIMUM = 1024


def _reasoning(model: str) -> bool:
    return any(fnmatchcase(model, p) for p in _REASONING) and not any(
        fnmatchcase(model, p) for p in _NOT_REASONING
    )


def _schema_problem(schema: Any, where: tuple[str, ...] = ()) -> str | None:
    """What strict structured outputs refuse in `schema`: every object must set
    ``additionalProperties: false`` and require every property
    (https://platform.openai.com/docs/guides/structured-outputs#supported-schemas)."""
    if not isinstance(schema, dict):
        return None
    if schema.get("type") == "object":
        if schema.get("additionalProperties") is not False:
            return (
                f"In context={where}, 'additionalProperties' is required to be supplied and "
                "to be false."
            )
        missing = sorted(set(schema.get("properties") or {}) - set(schema.get("required") or []))
        if missing:
            return (
                f"In context={where}, 'required' is required to be supplied and to be an "
                f"array including every key in properties. Missing '{missing[0]}'."
            )
    for name, sub in (schema.get("properties") or {}).items():
        problem = _schema_problem(sub, (*where, "properties", name))
        if problem:
            return problem
    return _schema_problem(schema.get("items"), (*where, "items"))


class OpenAIChatCompletions(WireProtocol):
    """``POST /v1/chat/completions``: the model in the body, the schema in
    ``response_format.json_schema``, the system prompt as messages."""

    provider: ClassVar[Provider] = "openai"
    routes: ClassVar[tuple[Route, ...]] = (Route("POST", "/v1/chat/completions"),)

    def schema_in(self, body: dict[str, Any]) -> object:
        fmt = body.get("response_format") or {}
        return (fmt.get("json_schema") or {}).get("schema")

    def prompt_parts(self, body: dict[str, Any]) -> tuple[str, str]:
        messages = body.get("messages") or []
        system = "".join(
            text_of(m.get("content")) for m in messages if m.get("role") in _SYSTEM_ROLES
        )
        rest = "".join(
            text_of(m.get("content")) for m in messages if m.get("role") not in _SYSTEM_ROLES
        )
        return system, rest

    def strict_refusal(self, logged: LoggedRequest) -> Refusal | None:
        body = logged.body
        keys = request_keys(
            "openai.types.chat.completion_create_params", "CompletionCreateParamsNonStreaming"
        )
        if keys is not None:
            allowed, required = keys
            for key in sorted(set(body) - allowed):
                return Refusal(f"Unrecognized request argument supplied: {key}")
            for key in sorted(required - set(body)):
                msg = f"Missing required parameter: '{key}'."
                return Refusal(msg, param=key, code="missing_required_parameter")
        temperature = body.get("temperature")
        if temperature not in (None, 1) and _reasoning(logged.model):
            return Refusal(
                f"Unsupported value: 'temperature' does not support {temperature} with this "
                "model. Only the default (1) value is supported.",
                param="temperature",
                code="unsupported_value",
            )
        fmt = body.get("response_format") or {}
        spec = fmt.get("json_schema") or {}
        if fmt.get("type") == "json_schema" and spec.get("strict"):
            problem = _schema_problem(spec.get("schema"))
            if problem:
                return Refusal(
                    f"Invalid schema for response_format '{spec.get('name')}': {problem}",
                    param="response_format",
                    code="invalid_json_schema",
                )
        return None

    def thinking_tokens(self, logged: LoggedRequest) -> int:
        if not _reasoning(logged.model):
            return 0
        # "medium" when the request does not say (the reasoning guide's default).
        return THINKING.get(str(logged.body.get("reasoning_effort") or "medium"), 0)

    def output_limit(self, body: dict[str, Any]) -> int | None:
        limit = body.get("max_completion_tokens") or body.get("max_tokens")
        return int(limit) if isinstance(limit, int) else None

    def cache_minimum(self, model: str) -> int:
        return _CACHE_MINIMUM

    def limit_headers(self, limit: float, remaining: int, reset: float) -> dict[str, str]:
        # https://platform.openai.com/docs/guides/rate-limits#rate-limits-in-headers
        return {
            "x-ratelimit-limit-requests": f"{limit:g}",
            "x-ratelimit-remaining-requests": str(remaining),
            "x-ratelimit-reset-requests": f"{max(reset, 0.001) * 1000:.0f}ms",
        }

    def reply_body(
        self, logged: LoggedRequest, text: str, tokens: Tokens, *, truncated: bool
    ) -> dict[str, Any]:
        return self.ended_body(logged, text, tokens, "length" if truncated else "stop")

    def ended_body(
        self, logged: LoggedRequest, text: str, tokens: Tokens, ending: Ending
    ) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": text, "refusal": None}
        finish = {"length": "length", "filtered": "content_filter"}.get(ending, "stop")
        if ending == "refusal":
            # A refusal comes in its own field, the content empty (the SDK's
            # types/chat/chat_completion_message.py).
            message.update(content=None, refusal=text or "I can't help with that.")
        elif ending == "filtered":
            message["content"] = None
        return {
            "id": f"chatcmpl-{logged.index}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": logged.model,
            "choices": [
                {"index": 0, "message": message, "logprobs": None, "finish_reason": finish}
            ],
            "usage": {
                "prompt_tokens": tokens.input,
                "completion_tokens": tokens.output,
                "total_tokens": tokens.input + tokens.output,
                "prompt_tokens_details": {"cached_tokens": tokens.cached},
                "completion_tokens_details": {"reasoning_tokens": tokens.thinking},
            },
            "system_fingerprint": "fp_fake",
        }

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        kind = {401: "invalid_request_error", 429: "rate_limit_exceeded"}.get(status, "error")
        return {"error": {"message": message, "type": kind, "param": None, "code": None}}

    def refused_body(self, refusal: Refusal) -> dict[str, Any]:
        return {
            "error": {
                "message": refusal.message,
                "type": "invalid_request_error",
                "param": refusal.param,
                "code": refusal.code,
            }
        }

    def quota_exhausted(self, message: str) -> tuple[int, dict[str, Any]]:
        # https://platform.openai.com/docs/guides/error-codes/api-errors: 429 "You exceeded
        # your current quota, please check your plan and billing details".
        return 429, {
            "error": {
                "message": message
                or "You exceeded your current quota, please check your plan and billing details.",
                "type": "insufficient_quota",
                "param": None,
                "code": "insufficient_quota",
            }
        }

    def overloaded(self) -> tuple[int, dict[str, Any]]:
        # The error-codes page: 503 "The engine is currently overloaded, please try again
        # later".
        return 503, {
            "error": {
                "message": "The engine is currently overloaded, please try again later.",
                "type": "server_error",
                "param": None,
                "code": None,
            }
        }
