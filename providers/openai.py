"""``openai/<model>``: OpenAI through Chat Completions, with a strict JSON schema.

Strict structured outputs need ``additionalProperties: false`` and every property required;
rubric schemas are written that way. The rubric goes first (the system message) so that
OpenAI's automatic prompt caching applies; cached tokens come back in
``usage.prompt_tokens_details.cached_tokens``.

Reads ``OPENAI_API_KEY`` and ``OPENAI_BASE_URL``. The same wire serves every
OpenAI-compatible server (see `providers.openai_compatible`).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from typing import Any, Literal

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

from ._wire import MalformedReplyError, SdkTransport, Wire, WireModel, read_key

__all__ = ["OpenAIJudge", "OpenAIWire", "ResponseFormat", "create"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
KEY_VARIABLE = "OPENAI_API_KEY"

#: OpenAI's reasoning models refuse any temperature but the default: it is not sent to them.
_REASONING = re.compile(r"^(?:o\d|gpt-5)")

#: How a reply is constrained: a strict JSON schema, any JSON object, or only the prompt.
ResponseFormat = Literal["json_schema", "json_object", "none"]


class OpenAIWire(Wire):
    def __init__(
        self,
        *,
        provider: str,
        base_url: str,
        key: str,
        key_variable: str,
        response_format: ResponseFormat = "json_schema",
        tokens_field: str = "max_completion_tokens",
    ) -> None:
        self.provider = provider
        self.key_variable = key_variable
        self.base_url = base_url.rstrip("/")
        self.response_format = response_format
        self.tokens_field = tokens_field
        self._key = key

    def url(self, model: str) -> str:
        return f"{self.base_url}/chat/completions"

    def headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self._key}"} if self._key else {}

    def body(self, model: str, request: JudgeRequest) -> dict[str, Any]:
        messages = [{"role": "system", "content": request.system}]
        messages += [{"role": m.role, "content": m.content} for m in request.messages]
        body: dict[str, Any] = {
            "model": model,
            "messages": messages,
            self.tokens_field: request.max_tokens,
        }
        if request.temperature is not None and not (
            self.provider == "openai" and _REASONING.match(model)
        ):
            body["temperature"] = request.temperature
        if request.seed is not None:
            body["seed"] = request.seed
        if self.response_format == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": _schema_name(request.schema_name),
                    "schema": request.schema,
                    "strict": True,
                },
            }
        elif self.response_format == "json_object":
            body["response_format"] = {"type": "json_object"}
        return body

    def parse(self, model: str, data: Mapping[str, Any]) -> JudgeReply:
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices:
            raise MalformedReplyError("reply has no choices")
        message = choices[0].get("message") if isinstance(choices[0], Mapping) else None
        if not isinstance(message, Mapping):
            raise MalformedReplyError("reply has no message")
        text = message.get("content")
        if text is None:
            # A refusal is the judge's answer: kept as the raw reply, read as invalid.
            text = message.get("refusal") or ""
        usage = data.get("usage") or {}
        details = usage.get("prompt_tokens_details") or {}
        return JudgeReply(
            text=str(text),
            model=str(data.get("model") or model),
            usage=Usage(
                input_tokens=int(usage.get("prompt_tokens") or 0),
                output_tokens=int(usage.get("completion_tokens") or 0),
                cached_tokens=int(details.get("cached_tokens") or 0),
            ),
        )


def _schema_name(name: str) -> str:
    """OpenAI names a schema with ``[a-zA-Z0-9_-]{1,64}``."""
    cleaned = "".join(c if c.isalnum() or c in "_-" else "_" for c in name)[:64]
    return cleaned or "verdict"


class OpenAISdkTransport(SdkTransport):
    """The official SDK over its aiohttp client, retries off."""

    def connect(self) -> Any:
        import openai

        return openai.AsyncOpenAI(
            # Local servers take no key, but the SDK insists on one.
            api_key=self._key or "no-key",
            base_url=self.base_url,
            max_retries=0,
            http_client=openai.DefaultAioHttpClient(),
        )

    async def call(self, client: Any, model: str, body: dict[str, Any]) -> Mapping[str, Any]:
        completion = await client.chat.completions.create(**body)
        data: dict[str, Any] = completion.model_dump(mode="json")
        return data


class OpenAIJudge(WireModel):
    sdk = OpenAISdkTransport
    default_limits = ProviderLimits(concurrency=32)

    def batch_api(self) -> BatchAPI | None:
        from ._openai_batch import openai_batches

        return openai_batches(self)

    def classify_sdk_error(self, exc: Exception) -> ProviderError | None:
        errors = sys.modules.get("openai._exceptions")
        if errors is None or not isinstance(exc, errors.OpenAIError):
            return None
        if isinstance(exc, errors.APIStatusError):
            return self.status_error(exc.status_code, _sdk_message(exc), exc.response)
        if isinstance(exc, errors.APIResponseValidationError):
            return TransientError(f"malformed reply (HTTP {exc.status_code})")
        if isinstance(exc, (errors.APIConnectionError, errors.WebSocketConnectionClosedError)):
            return TransientError(f"{type(exc).__name__}: {exc}")
        if isinstance(exc, errors.SubjectTokenProviderError):
            return AuthenticationError(str(exc), variable=self.wire.key_variable)
        # Finish-reason errors (length, content filter) come from the SDK's parse helpers,
        # which this adapter does not use; anything else is a request that cannot work.
        return InvalidRequestError(f"{type(exc).__name__}: {exc}")


def _sdk_message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, Mapping) and isinstance(body.get("message"), str):
        return str(body["message"])
    return str(getattr(exc, "message", "") or "")


def build(
    spec: str,
    *,
    provider: str,
    model: str,
    family: str,
    base_url: str,
    key: str,
    key_variable: str,
    response_format: ResponseFormat = "json_schema",
    tokens_field: str = "max_completion_tokens",
    transport: str | None = None,
    limits: ProviderLimits | None = None,
) -> OpenAIJudge:
    """An OpenAI-protocol judge on any base URL (used by the compatible servers too)."""
    wire = OpenAIWire(
        provider=provider,
        base_url=base_url,
        key=key,
        key_variable=key_variable,
        response_format=response_format,
        tokens_field=tokens_field,
    )
    return OpenAIJudge(
        name=spec,
        model=model,
        family=family,
        wire=wire,
        transport=transport,
        key=key,
        base_url=base_url,
        limits=limits,
    )


def create(spec: str, *, transport: str | None = None) -> OpenAIJudge:
    """``openai/<model>``. Raises `MissingCredentialError` without OPENAI_API_KEY."""
    return build(
        spec,
        provider="openai",
        model=spec.partition("/")[2],
        family="openai",
        base_url=os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL,
        key=read_key("openai", KEY_VARIABLE),
        key_variable=KEY_VARIABLE,
        transport=transport,
    )
