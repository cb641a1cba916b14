"""Gemini ``generateContent``, as the fake server speaks it (the Gemini API and Vertex AI)."""

from __future__ import annotations

from collections.abc import Mapping
from fnmatch import fnmatchcase
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar

from ._google_models import DEFAULT_LEVELS, thinking_refusal
from ._images import google_images
from ._logprobs import tokens_of
from ._wire import (
    THINKING,
    Ending,
    Provider,
    Refusal,
    Route,
    Tokens,
    WireProtocol,
    bearer,
    text_of,
)

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
#: The API versions each surface serves: the Gemini API v1, v1beta and v1alpha
#: (https://ai.google.dev/gemini-api/docs/api-versions); Vertex AI v1 and v1beta1
#: (https://cloud.google.com/vertex-ai/docs/reference/rest).
_VERSIONS = {"gemini": ("v1", "v1beta", "v1alpha"), "vertex": ("v1", "v1beta1")}
#: Options of google-genai's config that never reach the wire, or reach only Vertex AI
#: (google/genai/models.py, _GenerateContentConfig_to_mldev raises for the latter).
_SDK_ONLY = frozenset(
    {
        "http_options",
        "automatic_function_calling",
        "should_return_http_response",
        "automatic_continuation",
        "model_armor_config",
        "generation_output_config",
        "routing_config",
        "model_selection_config",
    }
)
_RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo"
_METRIC = "generativelanguage.googleapis.com/generate_content_requests"
_QUOTA_FAILURE = "type.googleapis.com/google.rpc.QuotaFailure"
#: The thinking each family does when the request does not say (https://ai.google.dev/
#: gemini-api/docs/thinking: 2.5 thinks dynamically by default; Gemini 3 at its default level:
#: Flash-Lite "minimal", Flash "medium", Pro "high").
_DEFAULT_LEVEL = (
    ("gemini-2.5-*", "medium"),
    ("gemini-3*-flash-lite*", "minimal"),
    ("gemini-3*-flash*", "medium"),
    ("gemini-3*-pro*", "high"),
    *DEFAULT_LEVELS,
)
#: 2.5 Pro cannot stop thinking: "Budget 0 is invalid. This model only works in thinking mode"
#: (the thinking page: 2.5 Pro's budget runs from 128).
_ALWAYS_THINKS = ("gemini-2.5-pro*",)
#: Gemini 3.5 Flash-Lite refuses custom penalties and a last turn by the model
#: (https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/gemini/
#: 3-5-flash-lite: "setting custom values for these parameters throws an error"); it ignores a
#: custom temperature, top-k and top-p.
_STRICT_SAMPLING = ("gemini-3.5-flash-lite*",)
#: 3.7 and 3.8 Flash think at low, medium or high only (the 3.8 Flash developer's guide).
_NO_MINIMAL = ("gemini-3.7-flash", "gemini-3.8-flash")


#: The models that give token log-probabilities (``responseLogprobs``), by API surface. The
#: Gemini API answers 400 "Logprobs is not enabled for models/gemini-2.5-flash" for 2.5
#: (https://github.com/Vela-Research/think-reason-learn/issues/34,
#: https://github.com/langchain-ai/langchain-google/pull/1266) and serves them on 2.0 Flash
#: (https://github.com/mscraftsman/generative-ai/issues/135); Vertex AI serves them on 2.0
#: and 2.5 (https://github.com/vercel/ai/issues/5418) and refuses Gemini 3.5 Flash with
#: "Unable to submit request because Logprobs is not supported for this model."
#: (https://github.com/GoogleCloudPlatform/generative-ai/issues/2947).
LOGPROBS_OFFERED = {
    "gemini": ("gemini-2.0-flash*",),
    "vertex": ("gemini-2.0-flash*", "gemini-2.5-*"),
}


def _logprobs_refusal(config: Mapping[str, Any], model: str, surface: str) -> Refusal | None:
    """``logprobs`` is "only valid if responseLogprobs=True", 1 to 20 ([1-20] in Google's
    logprobs notebook, issue 2947 above; google-genai types.GenerationConfig)."""
    asked, top = config.get("responseLogprobs"), config.get("logprobs")
    if top is not None and (not isinstance(top, int) or not 1 <= top <= 20):
        return Refusal(f"logprobs must be between 1 and 20, got {top!r}.")
    if top is not None and not asked:
        return Refusal("logprobs is only valid if responseLogprobs is true.")
    if not asked or _matches(model, LOGPROBS_OFFERED[surface]):
        return None
    if surface == "vertex":
        return Refusal("Unable to submit request because Logprobs is not supported for this model.")
    return Refusal(f"Logprobs is not enabled for models/{model}")


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


@cache
def _keys() -> tuple[frozenset[str], frozenset[str], frozenset[str]] | None:
    """The request's own keys, ``generationConfig``'s and ``thinkingConfig``'s, from the
    installed SDK's types (google-genai's config holds both levels: what is not a
    `GenerationConfig` field goes to the top of the request)."""
    try:
        from google.genai import types
    except ImportError:  # the SDK is an optional extra: without it, no key is checked
        return None
    generation = set(types.GenerationConfig.model_fields)
    top = set(types.GenerateContentConfig.model_fields) - generation - _SDK_ONLY
    return (
        frozenset({"contents", "generationConfig", *map(_camel, top)}),
        frozenset(map(_camel, generation)),
        frozenset(map(_camel, types.ThinkingConfig.model_fields)),
    )


def _matches(model: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatchcase(model, p) for p in patterns)


def _unknown(keys: Any, allowed: frozenset[str], where: str) -> Refusal | None:
    # Protocol-buffer JSON takes a field by its lowerCamelCase name or its original name
    # (https://protobuf.dev/programming-guides/json/): google-genai sends nested settings
    # such as thinkingConfig's with the original, snake_case, names.
    given = {_camel(key) for key in keys} if isinstance(keys, Mapping) else set()
    unknown = sorted(given - allowed)
    if not unknown:
        return None
    # The API's wording for a field its request type does not have.
    return Refusal(
        f"Invalid JSON payload received. Unknown name \"{unknown[0]}\" at '{where}': "
        "Cannot find field."
    )


def _logprobs_result(
    text: str, odds: dict[str, dict[str, float]] | None, top: int
) -> dict[str, Any]:
    """``avgLogprobs`` and ``logprobsResult``: ``chosenCandidates`` (the tokens written) and
    ``topCandidates`` (each step's best ``top``), as google-genai's types.LogprobsResult and
    LogprobsResultCandidate name them (``token``, ``tokenId``, ``logProbability``)."""
    tokens = tokens_of(text, odds, top)
    ids: dict[str, int] = {}

    def candidate(token: str, logprob: float) -> dict[str, Any]:
        return {
            "token": token,
            "tokenId": ids.setdefault(token, len(ids)),
            "logProbability": logprob,
        }

    return {
        "avgLogprobs": sum(t.logprob for t in tokens) / max(len(tokens), 1),
        "logprobsResult": {
            "topCandidates": [
                {"candidates": [candidate(a, lp) for a, lp in t.top]} for t in tokens
            ],
            "chosenCandidates": [candidate(t.text, t.logprob) for t in tokens],
        },
    }


class GeminiGenerateContent(WireProtocol):
    """``POST /{version}/models/{model}:generateContent`` (the Gemini API) and
    ``POST /{version}/projects/{p}/locations/{l}/publishers/google/models/{model}:generateContent``
    (Vertex AI): the model in the path, the schema in ``generationConfig``, the system prompt
    as ``systemInstruction``."""

    provider: ClassVar[Provider] = "google"
    routes: ClassVar[tuple[Route, ...]] = (
        Route("POST", r"/{version:v1[a-z0-9]*}/models/{model}:generateContent"),
        Route(
            "POST",
            r"/{version:v1[a-z0-9]*}/projects/{project}/locations/{location}"
            r"/publishers/google/models/{model}:generateContent",
        ),
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

    def strict_refusal(self, logged: LoggedRequest) -> Refusal | None:
        version = logged.path.split("/")[1]
        surface = "vertex" if "/projects/" in logged.path else "gemini"
        if version not in _VERSIONS[surface]:
            return Refusal(f"Method not found: API version {version}.", status=404)
        body, model = logged.body, logged.model
        config = body.get("generationConfig") or {}
        keys = _keys()
        if keys is not None:
            top, generation, thinking = keys
            refused = (
                _unknown(body, top, "(root)")
                or _unknown(config, generation, "generation_config")
                or _unknown(config.get("thinkingConfig"), thinking, "thinking_config")
            )
            if refused:
                return refused
        refused_logprobs = _logprobs_refusal(
            {_camel(k): v for k, v in config.items()}, model, surface
        )
        if refused_logprobs is not None:
            return refused_logprobs
        contents = body.get("contents") or []
        for content in (*contents, body.get("systemInstruction") or {}):
            if any(isinstance(p, dict) and p.get("text") == "" for p in content.get("parts") or ()):
                # The API's words for an empty text part (issue 11; Vertex AI's troubleshooting).
                return Refusal(
                    "Unable to submit request because it has an empty text parameter. Add a "
                    "value to the parameter and try again."
                )
        images = google_images(body)
        if images is not None:
            return images
        if _matches(model, _STRICT_SAMPLING):
            for name in ("frequencyPenalty", "presencePenalty"):
                if name in config:
                    return Refusal(f"{name} is not supported for this model.")
            if contents and contents[-1].get("role") == "model":
                return Refusal("The last turn of the request must not be from the model.")
        settings = {_camel(k): v for k, v in (config.get("thinkingConfig") or {}).items()}
        refused_thinking = thinking_refusal(settings, model)
        if refused_thinking is not None:
            return refused_thinking
        level = str(settings.get("thinkingLevel") or "").lower()
        if level == "minimal" and model in _NO_MINIMAL:
            return Refusal(f"Thinking level MINIMAL is not supported for {model}.")
        budget = settings.get("thinkingBudget")
        if budget == 0 and _matches(model, _ALWAYS_THINKS):
            return Refusal("Budget 0 is invalid. This model only works in thinking mode.")
        return None

    def thinking_tokens(self, logged: LoggedRequest) -> int:
        given = (logged.body.get("generationConfig") or {}).get("thinkingConfig") or {}
        settings = {_camel(key): value for key, value in given.items()}
        default = next((lv for p, lv in _DEFAULT_LEVEL if fnmatchcase(logged.model, p)), None)
        if default is None:
            return 0  # 2.0 and earlier do not think
        if "thinkingBudget" in settings and settings["thinkingBudget"] != -1:
            return min(int(settings["thinkingBudget"]), THINKING[default])
        level = str(settings.get("thinkingLevel") or default).lower()
        return THINKING.get(level, THINKING[default])

    def output_limit(self, body: dict[str, Any]) -> int | None:
        limit = (body.get("generationConfig") or {}).get("maxOutputTokens")
        return limit if isinstance(limit, int) else None

    def cache_minimum(self, model: str) -> int:
        # Implicit caching needs 1,024 tokens on Flash, 4,096 on Pro
        # (https://ai.google.dev/gemini-api/docs/caching#implicit-caching).
        return 4096 if "pro" in model else 1024

    def rate_limited(self, message: str, delay: float) -> tuple[dict[str, Any], dict[str, str]]:
        # The delay travels in the body, not in a header (https://ai.google.dev/gemini-api/
        # docs/rate-limits; bodies as quoted in https://discuss.ai.google.dev/t/96899).
        body = self.error_body(429, message)
        body["error"]["details"] = [
            {
                "@type": _QUOTA_FAILURE,
                "violations": [
                    {
                        "quotaMetric": _METRIC,
                        "quotaId": "GenerateRequestsPerMinutePerProjectPerModel",
                    }
                ],
            },
            {"@type": _RETRY_INFO, "retryDelay": f"{delay:.1f}s"},
        ]
        return body, {}

    def reply_body(
        self, logged: LoggedRequest, text: str, tokens: Tokens, *, truncated: bool
    ) -> dict[str, Any]:
        return self.ended_body(logged, text, tokens, "length" if truncated else "stop")

    def ended_body(
        self, logged: LoggedRequest, text: str, tokens: Tokens, ending: Ending
    ) -> dict[str, Any]:
        usage = {
            "promptTokenCount": tokens.input,
            "candidatesTokenCount": tokens.output - tokens.thinking,
            "totalTokenCount": tokens.input + tokens.output,
            "cachedContentTokenCount": tokens.cached,
        }
        if tokens.thinking:
            usage["thoughtsTokenCount"] = tokens.thinking
        if ending == "filtered":
            # A blocked prompt: no candidate at all (types.GenerateContentResponsePromptFeedback).
            return {
                "promptFeedback": {"blockReason": "SAFETY"},
                "usageMetadata": usage,
                "modelVersion": logged.model,
            }
        candidate: dict[str, Any] = {
            "finishReason": {"length": "MAX_TOKENS", "refusal": "SAFETY"}.get(ending, "STOP"),
            "index": 0,
        }
        if text and ending != "refusal":
            candidate["content"] = {"role": "model", "parts": [{"text": text}]}
            config = {_camel(k): v for k, v in (logged.body.get("generationConfig") or {}).items()}
            if config.get("responseLogprobs"):
                candidate.update(_logprobs_result(text, logged.odds, config.get("logprobs") or 0))
        return {
            "candidates": [candidate],
            "usageMetadata": usage,
            "modelVersion": logged.model,
            "responseId": f"resp-{logged.index}",
        }

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        kind = _ERROR_STATUSES.get(status, "INTERNAL")
        return {"error": {"code": status, "message": message, "status": kind}}

    def quota_exhausted(self, message: str) -> tuple[int, dict[str, Any]]:
        # A per-day quota used up: QuotaFailure names it; a RetryInfo comes along all the same
        # (https://ai.google.dev/gemini-api/docs/rate-limits; the bodies quoted above).
        body = self.error_body(
            429,
            message
            or "You exceeded your current quota, please check your plan and billing details.",
        )
        body["error"]["details"] = [
            {
                "@type": _QUOTA_FAILURE,
                "violations": [
                    {
                        "quotaMetric": _METRIC,
                        "quotaId": "GenerateRequestsPerDayPerProjectPerModel",
                        "quotaValue": "250",
                    }
                ],
            },
            {"@type": _RETRY_INFO, "retryDelay": "22s"},
        ]
        return 429, body

    def overloaded(self) -> tuple[int, dict[str, Any]]:
        return 503, self.error_body(503, "The model is overloaded. Please try again later.")

    def credential(self, headers: Mapping[str, str]) -> str | None:
        # The Gemini API's key header (https://ai.google.dev/api#authentication), or Vertex
        # AI's OAuth bearer token.
        return headers.get("x-goog-api-key") or bearer(headers)

    def header_refusal(self, headers: Mapping[str, str], model: str) -> Refusal | None:
        if self.credential(headers):
            return None
        # What the API answers a call without any credential.
        return Refusal(
            "Method doesn't allow unregistered callers (callers without established "
            "identity). Please use API Key or other form of API consumer identity to call "
            "this API.",
            status=403,
        )

    def model_not_found(self, model: str) -> Refusal:
        # 404 NOT_FOUND in the API's words for a model it does not serve
        # (https://ai.google.dev/gemini-api/docs/troubleshooting: "404 NOT_FOUND").
        return Refusal(
            f"models/{model} is not found for API version v1beta, or is not supported "
            "for generateContent. Call ListModels to see the list of available models and "
            "their supported methods.",
            status=404,
        )

    def rejected_key(self) -> tuple[int, dict[str, Any]]:
        # A key Google does not accept is a 400 INVALID_ARGUMENT, not a 401: its ErrorInfo
        # says API_KEY_INVALID (bodies as the API sends them, quoted in
        # https://github.com/cequence-io/openai-scala-client/issues/109 and
        # https://github.com/google-gemini/gemini-cli/issues/25198).
        message = "API key not valid. Please pass a valid API key."
        body = self.error_body(400, message)
        body["error"]["details"] = [
            {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "API_KEY_INVALID",
                "domain": "googleapis.com",
                "metadata": {"service": "generativelanguage.googleapis.com"},
            },
            {
                "@type": "type.googleapis.com/google.rpc.LocalizedMessage",
                "locale": "en-US",
                "message": message,
            },
        ]
        return 400, body
