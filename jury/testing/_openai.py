"""OpenAI Chat Completions, as the fake server speaks it."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, ClassVar

from ._wire import Provider, Route, Tokens, WireProtocol, text_of

if TYPE_CHECKING:
    from ._log import LoggedRequest

__all__ = ["OpenAIChatCompletions"]

#: Roles whose messages are instructions rather than conversation ("developer" in newer
#: models), counted as the system prompt.
_SYSTEM_ROLES = ("system", "developer")


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

    def reply_body(
        self, logged: LoggedRequest, text: str, tokens: Tokens, *, truncated: bool
    ) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-{logged.index}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": logged.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text, "refusal": None},
                    "logprobs": None,
                    "finish_reason": "length" if truncated else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": tokens.input,
                "completion_tokens": tokens.output,
                "total_tokens": tokens.input + tokens.output,
                "prompt_tokens_details": {"cached_tokens": tokens.cached},
            },
            "system_fingerprint": "fp_fake",
        }

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        kind = {401: "invalid_request_error", 429: "rate_limit_exceeded"}.get(status, "error")
        return {"error": {"message": message, "type": kind, "param": None, "code": None}}
