"""Gemini ``generateContent``, as the fake server speaks it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from ._wire import Provider, Route, Tokens, WireProtocol, text_of

if TYPE_CHECKING:
    from ._log import LoggedRequest

__all__ = ["GeminiGenerateContent"]

_ERROR_STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    503: "UNAVAILABLE",
}


class GeminiGenerateContent(WireProtocol):
    """``POST /v1beta/models/{model}:generateContent`` (and ``v1``, ``v1alpha``): the model in
    the path, the schema in ``generationConfig``, the system prompt as ``systemInstruction``."""

    provider: ClassVar[Provider] = "google"
    routes: ClassVar[tuple[Route, ...]] = (
        Route("POST", r"/{version:v1(?:beta|alpha)?}/models/{model}:generateContent"),
    )

    def model(self, path_params: Mapping[str, str], body: Any) -> str:
        return path_params["model"]

    def schema_in(self, body: dict[str, Any]) -> object:
        config = body.get("generationConfig") or {}
        return config.get("responseJsonSchema") or config.get("responseSchema")

    def prompt_parts(self, body: dict[str, Any]) -> tuple[str, str]:
        system = text_of((body.get("systemInstruction") or {}).get("parts"))
        rest = "".join(text_of(c.get("parts")) for c in body.get("contents") or [])
        return system, rest

    def reply_body(
        self, logged: LoggedRequest, text: str, tokens: Tokens, *, truncated: bool
    ) -> dict[str, Any]:
        return {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"text": text}]},
                    "finishReason": "MAX_TOKENS" if truncated else "STOP",
                    "index": 0,
                }
            ],
            "usageMetadata": {
                "promptTokenCount": tokens.input,
                "candidatesTokenCount": tokens.output,
                "totalTokenCount": tokens.input + tokens.output,
                "cachedContentTokenCount": tokens.cached,
            },
            "modelVersion": logged.model,
            "responseId": f"resp-{logged.index}",
        }

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        kind = _ERROR_STATUSES.get(status, "INTERNAL")
        return {"error": {"code": status, "message": message, "status": kind}}
