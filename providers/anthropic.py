"""``anthropic/<model>``: Claude through the Messages API.

The rubric (system) goes first as one block marked ``cache_control`` so that repeated calls
read it from Anthropic's prompt cache (only a prefix past the model's minimum length is
cached; below it the mark costs nothing and caches nothing); a cache write is priced at its
own rate. The reply is constrained by structured outputs (``output_config.format``: a JSON
schema). Anthropic's structured outputs take no numeric bounds, so ``minimum``/``maximum``
move into the description, as the SDK's own `transform_schema` does; the engine still checks
the range.

Models that think by default are told not to (`THINKING_OFF`): a verdict needs no thinking,
and thinking counts against ``max_tokens``. A reply cut at the limit (``stop_reason:
"max_tokens"``) or refused (``"refusal"``) says so in `JudgeReply.finish`; a 429 for a spend
limit is a quota no retry clears, and stops the run.

Reads ``ANTHROPIC_API_KEY`` and ``ANTHROPIC_BASE_URL``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from fnmatch import fnmatchcase
from typing import Any

from jury import AuthenticationError, ProviderError, ProviderLimits, QuotaExhaustedError
from jury.adapters import (
    BatchAPI,
    Finish,
    InvalidRequestError,
    JudgeReply,
    JudgeRequest,
    TransientError,
    Usage,
)

from ._wire import (
    MalformedReplyError,
    Posted,
    SdkTransport,
    Wire,
    WireModel,
    rate_limit_headers,
    read_key,
)

__all__ = [
    "API_VERSION",
    "THINKING_OFF",
    "AnthropicJudge",
    "AnthropicWire",
    "create",
    "strict_schema",
]

#: The version the installed SDK sends (anthropic._constants.ANTHROPIC_API_VERSION).
API_VERSION = "2026-10-21"
DEFAULT_BASE_URL = "https://api.anthropic.com"
KEY_VARIABLE = "ANTHROPIC_API_KEY"
#: Converted schemas kept (rubrics whose schema varies by case make one per case).
_SCHEMA_CACHE = 64
_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength")

#: Model families that think unless told not to, by name pattern. "What happens when you omit
#: `thinking` depends on the model" (the SDK's types/thinking_config_param.py); Claude Haiku
#: 5.5 thinks adaptively by default and can be turned off (its overview,
#: https://platform.claude.com/docs/en/models/haiku-5-5/overview, read 2026-11-30).
THINKING_OFF: tuple[str, ...] = ("claude-haiku-5*",)
_STOP: dict[str, Finish] = {
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "refusal",
}
#: A 429 whose ``error.details.error_code`` says the organisation's monthly spend limit is
#: reached: access resumes next month, not after a wait
#: (https://learn.microsoft.com/microsoft-cloud/dev/dev-proxy/concepts/anthropic-529-overloaded-error).
_SPEND_LIMIT = "enforced_spend_limit_reached"


def strict_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The schema as Anthropic's structured outputs accept it: bounds become words in the
    description (the SDK's `transform_schema` rule), nested objects likewise."""
    out: dict[str, Any] = {}
    notes: list[str] = []
    for key, value in schema.items():
        if key in _BOUNDS:
            notes.append(f"{key}: {value}")
        elif key == "properties" and isinstance(value, Mapping):
            out[key] = {name: strict_schema(prop) for name, prop in value.items()}
        elif key == "items" and isinstance(value, Mapping):
            out[key] = strict_schema(value)
        else:
            out[key] = value
    if notes:
        described = out.get("description")
        note = "{" + ", ".join(notes) + "}"
        out["description"] = f"{described}\n\n{note}" if described else note
    return out


class AnthropicWire(Wire):
    provider = "anthropic"
    key_variable = KEY_VARIABLE

    def __init__(self, base_url: str, key: str) -> None:
        self.base_url = base_url.rstrip("/")
        self._key = key
        self._schemas: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}

    def url(self, model: str) -> str:
        return f"{self.base_url}/v1/messages"

    def headers(self) -> dict[str, str]:
        # The SDK sends the key as a bearer token; the direct transport sends what it sends.
        return {"authorization": f"Bearer {self._key}", "anthropic-version": API_VERSION}

    def _schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        # A rubric sends one schema object thousands of times: convert it once. The entry
        # holds the schema itself, so its id cannot be reused by another object meanwhile.
        entry = self._schemas.get(id(schema))
        if entry is None or entry[0] is not schema:
            if len(self._schemas) >= _SCHEMA_CACHE:
                self._schemas.clear()
            entry = self._schemas[id(schema)] = (schema, strict_schema(schema))
        return entry[1]

    def body(self, model: str, request: JudgeRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": model,
            "max_tokens": request.max_tokens,
            "system": [
                {"type": "text", "text": request.system, "cache_control": {"type": "ephemeral"}}
            ],
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "output_config": {
                "format": {"type": "json_schema", "schema": self._schema(request.schema)}
            },
        }
        if any(fnmatchcase(model, pattern) for pattern in THINKING_OFF):
            body["thinking"] = {"type": "disabled"}
        # The Messages API of this SDK generation takes no sampling temperature (current
        # Claude models fix it); `request.temperature` is not sent.
        return body

    def parse(self, model: str, data: Mapping[str, Any]) -> JudgeReply:
        content = data.get("content")
        if not isinstance(content, list):
            raise MalformedReplyError("reply has no content list")
        parts: list[str] = []
        parsed: Any = None
        for block in content:
            kind = block.get("type") if isinstance(block, Mapping) else None
            if kind == "text":
                parts.append(str(block.get("text") or ""))
            elif kind == "tool_use" and isinstance(block.get("input"), Mapping):
                parsed = dict(block["input"])
        usage = data.get("usage") or {}
        read = int(usage.get("cache_read_input_tokens") or 0)
        written = int(usage.get("cache_creation_input_tokens") or 0)
        text = "".join(parts)
        if parsed is not None and not text:
            text = json.dumps(parsed)
        return JudgeReply(
            text=text,
            model=str(data.get("model") or model),
            usage=Usage(
                # Anthropic counts cache reads and writes apart from input_tokens.
                input_tokens=int(usage.get("input_tokens") or 0) + read + written,
                output_tokens=int(usage.get("output_tokens") or 0),
                cached_tokens=read,
                cache_write_tokens=written,
            ),
            parsed=parsed,
            finish=_STOP.get(str(data.get("stop_reason")), "stop"),
        )

    def error(
        self, status: int, body: Any, headers: Mapping[str, str] | None
    ) -> ProviderError | None:
        error = body.get("error") if isinstance(body, Mapping) else None
        if status != 429 or not isinstance(error, Mapping):
            return None
        details = error.get("details")
        if isinstance(details, Mapping) and details.get("error_code") == _SPEND_LIMIT:
            return QuotaExhaustedError(
                f"anthropic: HTTP 429 {_SPEND_LIMIT}: {error.get('message') or ''} "
                "(the monthly spend limit is reached: no retry clears it)",
                status=429,
            )
        return None


class AnthropicSdkTransport(SdkTransport):
    """The official SDK over its aiohttp client, retries off."""

    def connect(self) -> Any:
        import anthropic

        return anthropic.AsyncAnthropic(
            api_key=self._key,
            base_url=self.base_url,
            max_retries=0,
            http_client=anthropic.DefaultAioHttpClient(),
        )

    async def call(self, client: Any, model: str, body: dict[str, Any]) -> Posted:
        raw = await client.messages.with_raw_response.create(**body)
        data: dict[str, Any] = (await raw.parse()).model_dump(mode="json")
        return Posted(data, rate_limit_headers(raw.headers.items()))


class AnthropicJudge(WireModel):
    sdk = AnthropicSdkTransport
    default_limits = ProviderLimits(concurrency=16)

    def batch_api(self) -> BatchAPI | None:
        from ._anthropic_batch import anthropic_batches

        return anthropic_batches(self)

    def classify_sdk_error(self, exc: Exception) -> ProviderError | None:
        anthropic = sys.modules.get("anthropic")
        if anthropic is None or not isinstance(exc, anthropic.AnthropicError):
            return None
        if isinstance(exc, anthropic.APIStatusError):
            return self.status_error(exc.status_code, exc.api_message or "", exc.response, exc.body)
        if isinstance(exc, anthropic.APIResponseValidationError):
            return TransientError(f"malformed reply (HTTP {exc.status_code})")
        if isinstance(exc, anthropic.APIConnectionError):  # timeouts included
            return TransientError(f"{type(exc).__name__}: {exc}")
        if isinstance(exc, anthropic.RetryableError):
            return TransientError(str(exc))
        if isinstance(exc, anthropic.CredentialsError):
            return AuthenticationError(str(exc), variable=KEY_VARIABLE)
        if isinstance(exc, anthropic.APIError):
            return InvalidRequestError(f"{type(exc).__name__}: {exc}")
        return InvalidRequestError(f"{type(exc).__name__}: {exc}")


def create(spec: str, *, transport: str | None = None) -> AnthropicJudge:
    """``anthropic/<model>``. Raises `MissingCredentialError` without ANTHROPIC_API_KEY."""
    key = read_key("anthropic", KEY_VARIABLE)
    base_url = os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL
    return AnthropicJudge(
        name=spec,
        model=spec.partition("/")[2],
        family="anthropic",
        wire=AnthropicWire(base_url, key),
        transport=transport,
        key=key,
        base_url=base_url,
    )
