"""Anthropic Messages, as the fake server speaks it."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, ClassVar

from ._wire import Provider, Route, Tokens, WireProtocol, text_of

if TYPE_CHECKING:
    from ._log import LoggedRequest

__all__ = ["AnthropicMessages"]

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}


class AnthropicMessages(WireProtocol):
    """``POST /v1/messages``: the model in the body, the schema in
    ``output_config.format`` or as a forced tool's input schema, the system prompt apart."""

    provider: ClassVar[Provider] = "anthropic"
    routes: ClassVar[tuple[Route, ...]] = (Route("POST", "/v1/messages"),)

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

    def reply_body(
        self, logged: LoggedRequest, text: str, tokens: Tokens, *, truncated: bool
    ) -> dict[str, Any]:
        tool = _forced_tool(logged.body)
        content: dict[str, Any]
        if tool is not None and not truncated:
            content = {"type": "tool_use", "id": f"toolu_{logged.index}", "name": tool}
            content["input"] = json.loads(text) if text.startswith("{") else {"text": text}
        else:
            content = {"type": "text", "text": text}
        return {
            "id": f"msg_{logged.index}",
            "type": "message",
            "role": "assistant",
            "model": logged.model,
            "content": [content],
            "stop_reason": "max_tokens" if truncated else "end_turn",
            "stop_sequence": None,
            "usage": {
                # Anthropic counts cached input apart from `input_tokens`.
                "input_tokens": tokens.input - tokens.cached,
                "output_tokens": tokens.output,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": tokens.cached,
            },
        }

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        kind = _ERROR_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}


def _forced_tool(body: Any) -> str | None:
    """The tool the request forces the model to call, whose input is then the reply."""
    choice = body.get("tool_choice") if isinstance(body, dict) else None
    if isinstance(choice, dict) and choice.get("type") == "tool":
        return str(choice.get("name"))
    return None
