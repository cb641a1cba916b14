"""OpenAI Chat Completions, as the fake server speaks it."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from ._wire import Provider, Route, Tokens, WireProtocol, text_of

if TYPE_CHECKING:
    from ._log import LoggedRequest

__all__ = ["MODERATION_CATEGORIES", "OpenAIChatCompletions", "OpenAIModerations"]

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


#: The categories OpenAI's moderation models score, as the API names them
#: (``openai/types/moderation.py``: Categories, CategoryScores, CategoryAppliedInputTypes).
MODERATION_CATEGORIES = (
    "harassment",
    "harassment/threatening",
    "hate",
    "hate/threatening",
    "illicit",
    "illicit/violent",
    "self-harm",
    "self-harm/instructions",
    "self-harm/intent",
    "sexual",
    "sexual/minors",
    "violence",
    "violence/graphic",
)
#: Categories whose scores apply to images as well as text (CategoryAppliedInputTypes).
_IMAGE_TOO = frozenset(
    {
        "self-harm",
        "self-harm/instructions",
        "self-harm/intent",
        "sexual",
        "violence",
        "violence/graphic",
    }
)
#: A score this high is flagged, in the fake as in the real model's default policy.
_FLAG_AT = 0.5
_NOTHING = 0.0001


class OpenAIModerations(WireProtocol):
    """``POST /v1/moderations``: ``input`` (a string, an array of strings or of multi-modal
    objects) classified by ``model`` (default ``omni-moderation-latest``), one result per input.

    https://platform.openai.com/docs/api-reference/moderations/create;
    request and reply shapes from ``openai/types/moderation_create_params.py`` and
    ``openai/types/moderation_create_response.py``. A script gives the scores of an input,
    by category (``{"harassment": 0.93}``; a JSON list, as text, gives one such object per
    input): the rest score near zero, and a category is flagged from 0.5.
    """

    provider: ClassVar[Provider] = "openai"
    routes: ClassVar[tuple[Route, ...]] = (Route("POST", "/v1/moderations"),)

    def model(self, path_params: Mapping[str, str], body: Any) -> str:
        model = body.get("model") if isinstance(body, dict) else None
        return str(model) if model else "omni-moderation-latest"

    def refusal(self, body: dict[str, Any]) -> str | None:
        # ModerationCreateParams: input is Required; model an optional string.
        if "input" not in body:
            return "Missing required parameter: 'input'."
        if "model" in body and not isinstance(body["model"], str):
            return "Invalid type for 'model': expected a string."
        given = body["input"]
        if isinstance(given, str):
            return None
        if not isinstance(given, list) or not given:
            return "Invalid 'input': expected a string or a non-empty array."
        if all(isinstance(item, str) for item in given):
            return None
        # ModerationMultiModalInputParam: {"type": "text", "text"} or {"type": "image_url", ...}
        for item in given:
            if not isinstance(item, dict) or item.get("type") not in ("text", "image_url"):
                return "Invalid 'input': an array holds strings, or text and image_url objects."
        return None

    def schema_in(self, body: dict[str, Any]) -> object:
        return None

    def prompt_parts(self, body: dict[str, Any]) -> tuple[str, str]:
        return "", "".join(self._texts(body))

    @staticmethod
    def _texts(body: Any) -> list[str]:
        given = body.get("input") if isinstance(body, dict) else None
        if isinstance(given, str):
            return [given]
        return [
            item if isinstance(item, str) else str(item.get("text", ""))
            for item in given or ()
            if isinstance(item, str | dict)
        ]

    def reply_body(
        self, logged: LoggedRequest, text: str, tokens: Tokens, *, truncated: bool
    ) -> dict[str, Any]:
        count = len(self._texts(logged.body))
        try:
            scripted: Any = json.loads(text)
        except ValueError:
            scripted = {}
        per_input = scripted if isinstance(scripted, list) else [scripted] * count
        results = [self._result(s if isinstance(s, dict) else {}) for s in per_input[:count]]
        return {"id": f"modr-{logged.index}", "model": logged.model, "results": results}

    @staticmethod
    def _result(scores: Mapping[str, Any]) -> dict[str, Any]:
        values = {
            c: float(v) if isinstance(v := scores.get(c), int | float) else _NOTHING
            for c in MODERATION_CATEGORIES
        }
        flags = {c: s >= _FLAG_AT for c, s in values.items()}
        return {
            "flagged": any(flags.values()),
            "categories": flags,
            "category_scores": values,
            "category_applied_input_types": {
                c: ["text", "image"] if c in _IMAGE_TOO else ["text"] for c in MODERATION_CATEGORIES
            },
        }

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        return OpenAIChatCompletions().error_body(status, message)
