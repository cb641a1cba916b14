"""``anthropic/<model>``: Claude through the Messages API.

The rubric (system) goes first as one block marked ``cache_control`` so that repeated calls
read it from Anthropic's prompt cache (only a prefix past the model's minimum length is
cached; below it the mark costs nothing and caches nothing); a cache write is priced at its
own rate. The reply is constrained by structured outputs (``output_config.format``: a JSON
schema). Anthropic's structured outputs take no numeric bounds, so ``minimum``/``maximum``
move into the description, as the SDK's own `transform_schema` does; the engine still checks
the range.

Models that think by default are sent what their family takes (`FAMILIES`): thinking counts
against ``max_tokens``, and a verdict needs little of it. Where thinking can be turned off and
the docs do not advise against it (Claude Haiku 5.5), it is; the others (Opus 5.5, Sonnet 5.5,
Fable 5.x, Mythos 5.x, Opus 5, Sonnet 5) are asked for ``output_config.effort: "low"`` and get
`THINKING_ROOM` output tokens on top of the reply's own budget. None of them takes a manual
thinking budget (``thinking: {type: "enabled"}``) any more, none is sent ``disabled`` where it
answers 400 to it, none is sent a prefill or a forced ``tool_choice`` (the reply's form comes
from ``output_config.format``, a JSON schema, and re-asks end with a user turn). The thinking
tokens of a reply (``usage.output_tokens_details.thinking_tokens``) are read into
`Usage.thinking_tokens`, so that a vote cut at the limit says how much of it went on thinking.
A reply cut at the limit (``stop_reason: "max_tokens"``) or refused (``"refusal"``) says so in
`JudgeReply.finish`; a 429 for a spend limit is a quota no retry clears, and stops the run.

Reads ``ANTHROPIC_API_KEY`` and ``ANTHROPIC_BASE_URL``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import lru_cache
from typing import Any

from jury import AuthenticationError, ProviderError, ProviderLimits, QuotaExhaustedError
from jury.adapters import (
    Endpoint,
    Finish,
    InvalidRequestError,
    JudgeReply,
    JudgeRequest,
    TransientError,
    Usage,
)

from ._images import anthropic_content
from ._wire import (
    MalformedReplyError,
    Posted,
    SdkTransport,
    Wire,
    WireModel,
    posted,
    read_key,
)

__all__ = [
    "API_VERSION",
    "FAMILIES",
    "THINKING_OFF",
    "THINKING_ROOM",
    "AnthropicJudge",
    "AnthropicWire",
    "Family",
    "create",
    "family",
    "output_room",
    "strict_schema",
]

#: The version the installed SDK sends (anthropic._constants.ANTHROPIC_API_VERSION).
API_VERSION = "2026-10-21"
DEFAULT_BASE_URL = "https://api.anthropic.com"
KEY_VARIABLE = "ANTHROPIC_API_KEY"
#: Converted schemas kept (rubrics whose schema varies by case make one per case).
_SCHEMA_CACHE = 64
_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength")


@dataclass(frozen=True, slots=True)
class Family:
    """What a family of Claude models that thinks by default is sent: a ``thinking`` setting
    (None: the field is left out, and the model thinks adaptively), an ``output_config.effort``
    (None: not sent), and the output tokens added to ``max_tokens`` for its thinking."""

    pattern: str
    thinking: dict[str, str] | None
    effort: str | None
    room: int
    source: str


#: Output tokens added for the thinking of a model that cannot (or should not) stop thinking,
#: on top of the reply's own budget: the room given to OpenAI's reasoning models at low effort.
THINKING_ROOM = 2048
#: The largest ``max_tokens`` the SDK sends without streaming: it refuses a request that "may
#: take longer than 10 minutes", 3600 s x max_tokens / 128,000 (anthropic/_base_client.py,
#: ``_calculate_nonstreaming_timeout``). The direct transport holds to it too, so that both
#: send the same requests.
NON_STREAMING_MAX_TOKENS = 21_333
#: The efforts ``output_config.effort`` takes (the SDK's types/output_config_param.py).
EFFORTS = ("low", "medium", "high", "xhigh", "max")
_DOCS = "https://platform.claude.com/docs/en/models"


def effort_refusal(model: str, effort: str) -> str | None:
    """Why a Claude model does not take a juror's `effort` (None when it does), so that the
    jury file is refused when it loads rather than every call when it is made."""
    if effort not in EFFORTS:
        return f"Claude takes {', '.join(EFFORTS)}"
    return None


_LOW = "low"
#: Families by name pattern, the first match winning (the 5.5 rows before the 5 ones their
#: patterns also match). "Which `type` values are accepted, and what happens when you omit
#: `thinking`, depend on the model" (the SDK's types/thinking_config_param.py); read 2026-12-01.
FAMILIES: tuple[Family, ...] = (
    # Thinking always on; disabled and a budget are a 400; effort controls it (default medium).
    Family("claude-opus-5-5*", None, _LOW, THINKING_ROOM, f"{_DOCS}/opus-5-5/whats-new-opus-5-5"),
    # Thinking on by default; disabled and a budget are a 400 ("between_tools" turns off only
    # up-front thinking, and is not offered where effort says enough); default effort high.
    Family("claude-sonnet-5-5*", None, _LOW, THINKING_ROOM, f"{_DOCS}/sonnet-5-5/migration-guide"),
    # Adaptive by default at medium; disabled is taken at low, medium and high effort.
    Family("claude-haiku-5*", {"type": "disabled"}, None, 0, f"{_DOCS}/haiku-5-5/overview"),
    # Fable 5.1 / Mythos 5.1 and Fable 5 / Mythos 5: adaptive always on (default effort high);
    # disabled and a budget are a 400 (fable-5-1/whats-new-fable-5-1; Bedrock's adaptive
    # thinking page for Fable 5 and Mythos 5).
    Family("claude-fable-5*", None, _LOW, THINKING_ROOM, f"{_DOCS}/fable-5-1/whats-new-fable-5-1"),
    Family("claude-mythos-5*", None, _LOW, THINKING_ROOM, f"{_DOCS}/fable-5-1/whats-new-fable-5-1"),
    # Opus 5 takes disabled at effort high or below, but "with thinking disabled, the model
    # may occasionally output tool calls as plain text or include internal XML tags in its
    # visible output ... prefer a lower effort level with thinking on" (opus-5/migration-guide).
    Family("claude-opus-5*", None, _LOW, THINKING_ROOM, f"{_DOCS}/opus-5/migration-guide"),
    # Sonnet 5: adaptive by default, effort low to max (default high), as Opus 5.
    Family(
        "claude-sonnet-5*",
        None,
        _LOW,
        THINKING_ROOM,
        "https://apidog.com/blog/claude-sonnet-5-5-vs-sonnet-5/ (Anthropic's table, as quoted)",
    ),
)
#: The patterns of the families that are told not to think (kept for callers of 0.1).
THINKING_OFF: tuple[str, ...] = tuple(f.pattern for f in FAMILIES if f.thinking is not None)


@lru_cache(maxsize=64)
def family(model: str) -> Family | None:
    """The family of a Claude model that thinks by default, or None for one that does not
    (Claude 4.x and earlier think only when asked to)."""
    return next((f for f in FAMILIES if fnmatchcase(model, f.pattern)), None)


def output_room(model: str, effort: str | None = None) -> int:
    """The output tokens added to a juror's ``max_tokens`` for its model's thinking (billed as
    output), as `body` sends them; read by `jury estimate` through ``ROOMS``."""
    # A juror that sets an effort asks its model to think at it: thinking is not turned
    # off (Haiku 5.5 refuses "disabled" at xhigh and max anyway), and gets room.
    if effort is not None:
        return THINKING_ROOM
    kind = family(model)
    return kind.room if kind is not None else 0


_STOP: dict[str, Finish] = {
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "refusal",
}
#: 429s whose ``error.details.error_code`` says a spend limit is reached: access resumes
#: next month or with a new contract, not after a wait (the SDK's ``_error_classes.py``;
#: https://learn.microsoft.com/microsoft-cloud/dev/dev-proxy/concepts/anthropic-529-overloaded-error).
_SPEND_LIMITS = {
    "enforced_spend_limit_reached": "the monthly spend limit of the account's tier is reached",
    "contract_spend_limit_reached": "the spend limit of the organization's contract is reached",
}
#: The words of the 400 the API answers once a spend limit the user set is reached ("You
#: have reached your specified API usage limits. You will regain access on ...", as quoted in
#: https://github.com/anthropics/claude-code/issues/2127).
_USAGE_LIMITS = "reached your specified API usage limits"


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
    url_variable = "ANTHROPIC_BASE_URL"
    # As the SDK does (anthropic/_base_client.py, ``_should_retry``).
    retry_hints = True

    def __init__(self, base_url: str, key: str) -> None:
        self.base_url = base_url.rstrip("/")
        self._key = key
        self._schemas: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}

    def url(self, model: str) -> str:
        return f"{self.base_url}/v1/messages"

    def endpoint(self, model: str) -> Endpoint:
        """The API under the base URL, the API version, and what the model's family is sent
        (thinking, effort and the output room for it): all shape `body` or its reply."""
        kind = family(model)
        settings = ["messages", f"anthropic-version={API_VERSION}", "format=json_schema"]
        if kind is not None:
            thinking = kind.thinking["type"] if kind.thinking else "default"
            settings.append(f"thinking={thinking} effort={kind.effort} room={kind.room}")
        return Endpoint(f"{self.base_url}/v1", " ".join(settings))

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
        kind = family(model)
        output: dict[str, Any] = {
            "format": {"type": "json_schema", "schema": self._schema(request.schema)}
        }
        effort = request.effort
        if effort is not None and effort not in EFFORTS:
            raise InvalidRequestError(
                f"anthropic: effort {effort!r} is not one of Claude's ({', '.join(EFFORTS)})"
            )
        room = output_room(model, effort)
        if request.max_tokens + room > NON_STREAMING_MAX_TOKENS:
            raise InvalidRequestError(
                f"anthropic: max_tokens {request.max_tokens} (+{room} to think) is above the "
                f"{NON_STREAMING_MAX_TOKENS:,} a request without streaming may ask for: lower "
                "the juror's max_tokens"
            )
        body: dict[str, Any] = {
            "model": model,
            "max_tokens": request.max_tokens + room,
            "system": [
                {"type": "text", "text": request.system, "cache_control": {"type": "ephemeral"}}
            ],
            "messages": [
                {"role": m.role, "content": anthropic_content(m)} for m in request.messages
            ],
            "output_config": output,
        }
        if effort is None and kind is not None:
            effort = kind.effort
            if kind.thinking is not None:
                body["thinking"] = dict(kind.thinking)
        if effort is not None:
            output["effort"] = effort
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
                # Part of output_tokens ("Always <= output_tokens": the SDK's
                # types/output_tokens_details.py).
                thinking_tokens=_thinking_tokens(usage),
            ),
            parsed=parsed,
            finish=_STOP.get(str(data.get("stop_reason")), "stop"),
        )

    def error(
        self, status: int, body: Any, headers: Mapping[str, str] | None
    ) -> ProviderError | None:
        """The account stops no retry clears, each the first time it is seen: a spend limit
        the user set (a 400 that says so), billing (402 ``billing_error``) and the 429s whose
        ``error.details.error_code`` names a spend limit (the SDK's ``_error_classes.py``:
        ``enforced_spend_limit_reached``, ``contract_spend_limit_reached``), which are not
        rate limits: waiting does not lift them."""
        error = body.get("error") if isinstance(body, Mapping) else None
        if not isinstance(error, Mapping):
            return None
        message = str(error.get("message") or "")
        if status == 400 and _USAGE_LIMITS in message:
            return QuotaExhaustedError(
                f"anthropic: HTTP 400: {message} (the usage limit set on the account is "
                "reached: raise it in the Claude Console, Settings > Limits)",
                status=400,
            )
        if status == 402:
            return QuotaExhaustedError(
                f"anthropic: HTTP 402 {error.get('type') or 'billing_error'}: {message} (fix "
                "the account's billing in the Claude Console, Settings > Billing)",
                status=402,
            )
        details = error.get("details")
        code = details.get("error_code") if isinstance(details, Mapping) else None
        if status == 429 and code in _SPEND_LIMITS:
            return QuotaExhaustedError(
                f"anthropic: HTTP 429 {code}: {message} ({_SPEND_LIMITS[code]}: no retry "
                "clears it)",
                status=429,
            )
        return None


def _thinking_tokens(usage: Mapping[str, Any]) -> int:
    details = usage.get("output_tokens_details")
    found = details.get("thinking_tokens") if isinstance(details, Mapping) else None
    return int(found) if isinstance(found, int) else 0


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
        return posted(data, raw.headers.items())


class AnthropicJudge(WireModel):
    sdk = AnthropicSdkTransport
    default_limits = ProviderLimits(concurrency=16)

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
