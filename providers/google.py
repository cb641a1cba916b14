"""``google/<model>``: Gemini through ``generateContent``, with a response JSON schema.

API-key style (the default): reads ``GOOGLE_API_KEY`` or ``GEMINI_API_KEY`` and
``GOOGLE_GEMINI_BASE_URL``, as google-genai does. Vertex AI
(``GOOGLE_GENAI_USE_VERTEXAI=true`` with ``GOOGLE_CLOUD_PROJECT`` and
``GOOGLE_CLOUD_LOCATION``, credentials from the environment) goes through the SDK transport,
which alone knows how to fetch those credentials.

The reply is constrained with ``responseJsonSchema`` and ``responseMimeType:
application/json``; the rubric is the system instruction, first, so that Gemini's implicit
prompt caching applies (``usageMetadata.cachedContentTokenCount``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any

from jury.adapters import (
    AuthenticationError,
    BatchAPI,
    InvalidRequestError,
    JudgeReply,
    JudgeRequest,
    ProviderError,
    ProviderLimits,
    TransientError,
    Usage,
)

from ._google_batch import sdk_config
from ._wire import MalformedReplyError, SdkTransport, Wire, WireModel, read_key

__all__ = ["GeminiWire", "GoogleJudge", "create"]

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
API_VERSION = "v1beta"
KEY_VARIABLES = ("GOOGLE_API_KEY", "GEMINI_API_KEY")
VERTEX_VARIABLE = "GOOGLE_APPLICATION_CREDENTIALS"


class GeminiWire(Wire):
    provider = "google"

    def __init__(self, base_url: str, key: str, key_variable: str) -> None:
        self.base_url = base_url.rstrip("/")
        self.key_variable = key_variable
        self._key = key

    def url(self, model: str) -> str:
        return f"{self.base_url}/{API_VERSION}/models/{model}:generateContent"

    def headers(self) -> dict[str, str]:
        return {"x-goog-api-key": self._key}

    def body(self, model: str, request: JudgeRequest) -> dict[str, Any]:
        config: dict[str, Any] = {}
        if request.temperature is not None:
            config["temperature"] = request.temperature
        config["maxOutputTokens"] = request.max_tokens
        if request.seed is not None:
            config["seed"] = request.seed
        config["responseMimeType"] = "application/json"
        config["responseJsonSchema"] = request.schema
        return {
            "contents": [
                {
                    "parts": [{"text": m.content}],
                    "role": "model" if m.role == "assistant" else "user",
                }
                for m in request.messages
            ],
            "systemInstruction": {"parts": [{"text": request.system}], "role": "user"},
            "generationConfig": config,
        }

    def parse(self, model: str, data: Mapping[str, Any]) -> JudgeReply:
        candidates = data.get("candidates")
        if not isinstance(candidates, list) or not candidates:
            feedback = data.get("promptFeedback") or {}
            reason = feedback.get("blockReason") if isinstance(feedback, Mapping) else None
            if reason:
                raise InvalidRequestError(f"Gemini blocked the prompt: {reason}")
            raise MalformedReplyError("reply has no candidates")
        content = candidates[0].get("content") if isinstance(candidates[0], Mapping) else None
        parts = content.get("parts") if isinstance(content, Mapping) else None
        text = "".join(
            str(part.get("text") or "")
            for part in parts or ()
            if isinstance(part, Mapping) and not part.get("thought")
        )
        usage = data.get("usageMetadata") or {}
        return JudgeReply(
            text=text,
            model=str(data.get("modelVersion") or model),
            usage=Usage(
                input_tokens=int(usage.get("promptTokenCount") or 0),
                # Thinking tokens are billed as output.
                output_tokens=int(usage.get("candidatesTokenCount") or 0)
                + int(usage.get("thoughtsTokenCount") or 0),
                cached_tokens=int(usage.get("cachedContentTokenCount") or 0),
            ),
        )


class GoogleSdkTransport(SdkTransport):
    """google-genai (its aiohttp client), retries off; API key or Vertex settings."""

    def connect(self) -> Any:
        from google import genai
        from google.genai import types

        options = types.HttpOptions(
            base_url=self.base_url,
            api_version=API_VERSION,
            # attempts=1 also stops the SDK's own quiet retry of connection errors.
            retry_options=types.HttpRetryOptions(attempts=1),
        )
        if self._key is None:
            return genai.Client(vertexai=True, http_options=options)
        return genai.Client(api_key=self._key, http_options=options)

    async def call(self, client: Any, model: str, body: dict[str, Any]) -> Mapping[str, Any]:
        response = await client.aio.models.generate_content(
            model=model, contents=body["contents"], config=sdk_config(body)
        )
        data: dict[str, Any] = response.model_dump(mode="json", by_alias=True, exclude_none=True)
        return data

    async def disconnect(self, client: Any) -> None:
        await client.aio.aclose()


class GoogleJudge(WireModel):
    sdk = GoogleSdkTransport
    default_limits = ProviderLimits(concurrency=16)

    def batch_api(self) -> BatchAPI | None:
        from ._google_batch import gemini_batches

        return gemini_batches(self)

    def classify_sdk_error(self, exc: Exception) -> ProviderError | None:
        errors = sys.modules.get("google.genai.errors")
        if errors is None:
            return None
        if isinstance(exc, errors.APIError):
            return self.status_error(int(exc.code or 0), str(exc.message or ""), exc.response)
        auth = sys.modules.get("google.auth.exceptions")
        if auth is not None:
            if isinstance(exc, auth.TransportError):
                return TransientError(f"{type(exc).__name__}: {exc}")
            if isinstance(exc, auth.GoogleAuthError):
                return AuthenticationError(str(exc), variable=self.wire.key_variable)
        if type(exc).__module__.startswith("google.genai"):
            return InvalidRequestError(f"{type(exc).__name__}: {exc}")
        return None


def _vertex() -> bool:
    return os.environ.get("GOOGLE_GENAI_USE_VERTEXAI", "").strip().lower() in ("1", "true")


def create(spec: str, *, transport: str | None = None) -> GoogleJudge:
    """``google/<model>``. Raises `MissingCredentialError` without GOOGLE_API_KEY or
    GEMINI_API_KEY (unless Vertex AI is configured)."""
    model = spec.partition("/")[2]
    if _vertex():
        for variable in ("GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION"):
            read_key("google (Vertex AI)", variable)
        return GoogleJudge(
            name=spec,
            model=model,
            family="google",
            wire=GeminiWire("", "", VERTEX_VARIABLE),
            # Only the SDK knows how to fetch Vertex credentials.
            transport=GoogleSdkTransport(None, None),
            key="",
            base_url="vertex:" + os.environ["GOOGLE_CLOUD_PROJECT"],
        )
    key = read_key("google", *KEY_VARIABLES)
    variable = next(v for v in KEY_VARIABLES if os.environ.get(v))
    base_url = os.environ.get("GOOGLE_GEMINI_BASE_URL") or DEFAULT_BASE_URL
    return GoogleJudge(
        name=spec,
        model=model,
        family="google",
        wire=GeminiWire(base_url, key, variable),
        transport=transport,
        key=key,
        base_url=base_url,
    )
