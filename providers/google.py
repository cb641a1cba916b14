"""``google/<model>``: Gemini through ``generateContent``, with a response JSON schema.

API-key style (the default): reads ``GOOGLE_API_KEY`` or ``GEMINI_API_KEY`` and
``GOOGLE_GEMINI_BASE_URL``, as google-genai does. Vertex AI
(``GOOGLE_GENAI_USE_VERTEXAI=true`` with ``GOOGLE_CLOUD_PROJECT`` and
``GOOGLE_CLOUD_LOCATION``, credentials from the environment) goes through the SDK transport,
which alone knows how to fetch those credentials.

The reply is constrained with ``responseJsonSchema`` and ``responseMimeType:
application/json``; the rubric is the system instruction, first, so that Gemini's implicit
prompt caching applies (``usageMetadata.cachedContentTokenCount``).

What a model takes depends on its family (`FAMILIES`, in `jury.providers._gemini_family`):
Gemini 2.5 thinks by default and its thinking counts against ``maxOutputTokens`` (an empty or
cut reply, ``finishReason: MAX_TOKENS``), so it is told how little to think; Gemini 3 and 4
ignore a custom temperature, which is therefore not sent, and think at a level. A reply cut
at the limit or stopped by a safety filter (a candidate's ``finishReason``, or the prompt's
``promptFeedback.blockReason``) says so in `JudgeReply.finish`. A 429 carries its delay in
the body (``google.rpc.RetryInfo``), and a per-day ``QuotaFailure`` is a quota no retry clears
today: it stops the run.

The Gemini API is reached at ``v1beta``; Vertex AI at ``v1beta1``, the SDK's own choice
(Vertex serves ``v1`` and ``v1beta1``, never ``v1beta``).
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping
from typing import Any

from jury import AuthenticationError, ProviderError, ProviderLimits, QuotaExhaustedError
from jury.adapters import (
    TOP_LOGPROBS,
    Endpoint,
    Finish,
    InvalidRequestError,
    JudgeReply,
    JudgeRequest,
    RateLimitedError,
    TransientError,
    Usage,
)

from ._gemini_family import FAMILIES, Family, effort_refusal, family
from ._google_batch import sdk_config
from ._google_logprobs import logprobs_refusal, token_logprobs, vertex
from ._images import gemini_parts
from ._wire import (
    MalformedReplyError,
    Posted,
    SdkTransport,
    Wire,
    WireModel,
    parse_retry_after,
    posted,
    read_key,
)

__all__ = [
    "FAMILIES",
    "Family",
    "GeminiWire",
    "GoogleJudge",
    "create",
    "family",
    "logprobs_refusal",
]

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
API_VERSION = "v1beta"
#: Vertex AI serves v1 and v1beta1 (https://cloud.google.com/vertex-ai/docs/reference/rest);
#: v1beta1 is what google-genai sends by default (_api_client.py), structured output included.
VERTEX_API_VERSION = "v1beta1"
KEY_VARIABLES = ("GOOGLE_API_KEY", "GEMINI_API_KEY")
VERTEX_VARIABLE = "GOOGLE_APPLICATION_CREDENTIALS"


#: Finish reasons of a filter, not the model (google-genai FinishReason); the output limit.
_FILTERED = frozenset(
    {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "LANGUAGE"}
)
_FINISH: dict[str, Finish] = {"MAX_TOKENS": "length", **dict.fromkeys(_FILTERED, "filtered")}
_DELAY = re.compile(r"^(\d+(?:\.\d+)?)s$")


class GeminiWire(Wire):
    provider = "google"

    def __init__(
        self, base_url: str, key: str, key_variable: str, *, vertex: str | None = None
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.key_variable = key_variable
        self._key = key
        #: Vertex AI's ``project/location``, where the SDK alone sends the calls; None for
        #: the Gemini API at `base_url`.
        self.vertex = vertex
        self.url_variable = None if vertex else "GOOGLE_GEMINI_BASE_URL"

    def url(self, model: str) -> str:
        return f"{self.base_url}/{API_VERSION}/models/{model}:generateContent"

    def endpoint(self, model: str) -> Endpoint:
        """The API (the Gemini API under the base URL, or Vertex AI's project and location)
        and what the model's family is sent: a temperature or not, its thinking and the
        output room for it, log-probabilities (offered by model and surface)."""
        kind = family(model)
        settings = [
            "generateContent",
            "format=responseJsonSchema",
            f"temperature={'sent' if kind.temperature else 'not-sent'}",
            f"thinking={json.dumps(kind.thinking, sort_keys=True)} room={kind.room}",
            f"logprobs={TOP_LOGPROBS if logprobs_refusal(model) is None else 'not-sent'}",
        ]
        if self.vertex is not None:
            return Endpoint(f"vertex:{self.vertex}/{VERTEX_API_VERSION}", " ".join(settings))
        return Endpoint(f"{self.base_url}/{API_VERSION}", " ".join(settings))

    def headers(self) -> dict[str, str]:
        return {"x-goog-api-key": self._key}

    def body(self, model: str, request: JudgeRequest) -> dict[str, Any]:
        kind = family(model)
        config: dict[str, Any] = {}
        if request.temperature is not None and kind.temperature:
            config["temperature"] = request.temperature
        config["maxOutputTokens"] = request.max_tokens + kind.room
        if request.seed is not None:
            config["seed"] = request.seed
        config["responseMimeType"] = "application/json"
        config["responseJsonSchema"] = request.schema
        if kind.thinking is not None:
            config["thinkingConfig"] = kind.thinking
            if request.effort is not None and effort_refusal(model, request.effort) is None:
                # The juror's own effort is Gemini 3's thinking level (enum values by name).
                config["thinkingConfig"] = {"thinking_level": request.effort.upper()}
        if request.logprobs and logprobs_refusal(model) is None:
            config["responseLogprobs"] = True
            config["logprobs"] = TOP_LOGPROBS
        return {
            "contents": [
                {
                    "parts": gemini_parts(m),
                    "role": "model" if m.role == "assistant" else "user",
                }
                for m in request.messages
            ],
            "systemInstruction": {"parts": [{"text": request.system}], "role": "user"},
            "generationConfig": config,
        }

    def parse(self, model: str, data: Mapping[str, Any]) -> JudgeReply:
        candidates = data.get("candidates")
        usage = data.get("usageMetadata") or {}
        thoughts = int(usage.get("thoughtsTokenCount") or 0)
        used = Usage(
            input_tokens=int(usage.get("promptTokenCount") or 0),
            # Thinking tokens are billed as output.
            output_tokens=int(usage.get("candidatesTokenCount") or 0) + thoughts,
            cached_tokens=int(usage.get("cachedContentTokenCount") or 0),
            thinking_tokens=thoughts,
        )
        served = str(data.get("modelVersion") or model)
        if not isinstance(candidates, list) or not candidates:
            feedback = data.get("promptFeedback") or {}
            reason = feedback.get("blockReason") if isinstance(feedback, Mapping) else None
            if reason:
                # The judge was asked and its provider's filter answered: an invalid vote.
                text = f"Gemini blocked the prompt: {reason}"
                return JudgeReply(text=text, model=served, usage=used, finish="filtered")
            raise MalformedReplyError("reply has no candidates")
        first = candidates[0] if isinstance(candidates[0], Mapping) else {}
        content = first.get("content")
        parts = content.get("parts") if isinstance(content, Mapping) else None
        text = "".join(
            str(part.get("text") or "")
            for part in parts or ()
            if isinstance(part, Mapping) and not part.get("thought")
        )
        return JudgeReply(
            text=text,
            model=served,
            usage=used,
            finish=_FINISH.get(str(first.get("finishReason")), "stop"),
            logprobs=token_logprobs(first.get("logprobsResult")),
        )

    def error(
        self, status: int, body: Any, headers: Mapping[str, str] | None
    ) -> ProviderError | None:
        """A 429's delay and quota are in the body's ``details``: ``google.rpc.RetryInfo``
        (``retryDelay: "45.8s"``) and ``google.rpc.QuotaFailure``, whose per-day quotas no
        wait within a run clears (https://ai.google.dev/gemini-api/docs/rate-limits; bodies
        as the API sends them in, e.g., https://discuss.ai.google.dev/t/96899)."""
        error = body.get("error") if isinstance(body, Mapping) else None
        if not isinstance(error, Mapping):
            return None
        if status == 400 and _reason(error) == "API_KEY_INVALID":
            # A rejected key is a 400 INVALID_ARGUMENT, not a 401: its ErrorInfo says so
            # (bodies as quoted in https://github.com/cequence-io/openai-scala-client/issues/
            # 109). Every call would fail the same way: the run stops, naming the variable.
            return AuthenticationError(
                f"google: HTTP 400 API_KEY_INVALID: {error.get('message') or ''} (the key in "
                f"{self.key_variable} was refused)",
                variable=self.key_variable,
                status=400,
            )
        if status != 429:
            return None
        delay: float | None = None
        per_day: list[str] = []
        for detail in error.get("details") or ():
            if not isinstance(detail, Mapping):
                continue
            kind = str(detail.get("@type", ""))
            if kind.endswith("google.rpc.RetryInfo"):
                found = _DELAY.match(str(detail.get("retryDelay", "")))
                delay = float(found.group(1)) if found else None
            elif kind.endswith("google.rpc.QuotaFailure"):
                per_day += [
                    str(v.get("quotaId"))
                    for v in detail.get("violations") or ()
                    if isinstance(v, Mapping) and "PerDay" in str(v.get("quotaId", ""))
                ]
        message = f"HTTP 429: {error.get('message') or 'RESOURCE_EXHAUSTED'}"
        if delay is None:
            delay = parse_retry_after(headers)
        if per_day:
            return QuotaExhaustedError(
                f"google: a per-day quota is used up ({', '.join(per_day)}): no retry clears "
                f"it before the day's reset; {message}",
                status=429,
            )
        return RateLimitedError(message, retry_after=delay, status=429)


def _reason(error: Mapping[str, Any]) -> str | None:
    """The ``reason`` of a ``google.rpc.ErrorInfo`` among the error's details."""
    for detail in error.get("details") or ():
        if isinstance(detail, Mapping) and str(detail.get("@type", "")).endswith("ErrorInfo"):
            return str(detail.get("reason") or "")
    return None


class GoogleSdkTransport(SdkTransport):
    """google-genai (its aiohttp client), retries off; API key or Vertex settings."""

    def connect(self) -> Any:
        from google import genai
        from google.genai import types

        vertex = self._key is None
        options = types.HttpOptions(
            base_url=self.base_url,
            api_version=VERTEX_API_VERSION if vertex else API_VERSION,
            # attempts=1 also stops the SDK's own quiet retry of connection errors.
            retry_options=types.HttpRetryOptions(attempts=1),
        )
        if vertex:
            # Given explicitly: google-genai takes the project and location from the
            # environment itself, but then treats a base URL of its own (GOOGLE_VERTEX_BASE_URL)
            # as a gateway to post to as it is (_api_client.py).
            return genai.Client(
                vertexai=True,
                project=os.environ.get("GOOGLE_CLOUD_PROJECT"),
                location=os.environ.get("GOOGLE_CLOUD_LOCATION"),
                http_options=options,
            )
        return genai.Client(api_key=self._key, http_options=options)

    async def call(self, client: Any, model: str, body: dict[str, Any]) -> Posted:
        response = await client.aio.models.generate_content(
            model=model, contents=body["contents"], config=sdk_config(body)
        )
        raw = response.sdk_http_response
        data: dict[str, Any] = response.model_dump(
            mode="json", by_alias=True, exclude_none=True, exclude={"sdk_http_response"}
        )
        headers = (raw.headers or {}) if raw is not None else {}
        return posted(data, headers.items())

    async def disconnect(self, client: Any) -> None:
        await client.aio.aclose()


class GoogleJudge(WireModel):
    sdk = GoogleSdkTransport
    default_limits = ProviderLimits(concurrency=16)

    def classify_sdk_error(self, exc: Exception) -> ProviderError | None:
        errors = sys.modules.get("google.genai.errors")
        if errors is None:
            return None
        if isinstance(exc, errors.APIError):
            return self.status_error(
                int(exc.code or 0), str(exc.message or ""), exc.response, exc.details
            )
        auth = sys.modules.get("google.auth.exceptions")
        if auth is not None:
            if isinstance(exc, auth.TransportError):
                return TransientError(f"{type(exc).__name__}: {exc}")
            if isinstance(exc, auth.GoogleAuthError):
                return AuthenticationError(str(exc), variable=self.wire.key_variable)
        if type(exc).__module__.startswith("google.genai"):
            return InvalidRequestError(f"{type(exc).__name__}: {exc}")
        return None


def create(spec: str, *, transport: str | None = None) -> GoogleJudge:
    """``google/<model>``. Raises `MissingCredentialError` without GOOGLE_API_KEY or
    GEMINI_API_KEY (unless Vertex AI is configured)."""
    model = spec.partition("/")[2]
    if vertex():
        for variable in ("GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION"):
            read_key("google (Vertex AI)", variable)
        return GoogleJudge(
            name=spec,
            model=model,
            family="google",
            wire=GeminiWire(
                "",
                "",
                VERTEX_VARIABLE,
                vertex=f"{os.environ['GOOGLE_CLOUD_PROJECT']}/{os.environ['GOOGLE_CLOUD_LOCATION']}",
            ),
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


# Defined beside the log-probability reading; public here, as the provider's LOGPROBS entry.
logprobs_refusal.__module__ = __name__
# Defined beside the other families' rules (`_gemini_family`); public here, one door.
Family.__module__ = family.__module__ = __name__
