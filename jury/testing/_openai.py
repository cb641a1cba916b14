"""OpenAI Chat Completions, as the fake server speaks it."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any, ClassVar

from ._images import openai_images
from ._logprobs import tokens_of
from ._openai_models import FIRST_PARTY, model_refusal
from ._wire import (
    THINKING,
    Ending,
    Provider,
    Refusal,
    Route,
    Tokens,
    WireProtocol,
    bearer,
    request_keys,
    text_of,
)

if TYPE_CHECKING:
    from ._log import LoggedRequest

__all__ = ["MODERATION_CATEGORIES", "OpenAIChatCompletions", "OpenAIModerations"]

#: Roles whose messages are instructions rather than conversation ("developer" in newer
#: models), counted as the system prompt.
_SYSTEM_ROLES = ("system", "developer")

#: Reasoning models take no sampling temperature but their default, 1, and spend output tokens
#: reasoning ("Unsupported value: 'temperature'", https://platform.openai.com/docs/guides/
#: reasoning#limitations); GPT-5's chat snapshots are not reasoning models. GPT-6 is assumed to
#: follow GPT-5 (issue 11: it refuses temperature).
_REASONING = ("o[1-9]*", "gpt-5*", "gpt-6*")
_NOT_REASONING = ("gpt-5*-chat-latest",)
#: "Caching is enabled automatically for prompts that are 1024 tokens or longer", "with cache
#: hits occurring in increments of 128 tokens" (https://developers.openai.com/api/docs/guides/
#: prompt-caching).
_CACHE_MINIMUM = 1024
_CACHE_INCREMENT = 128


def _reasoning(model: str) -> bool:
    return any(fnmatchcase(model, p) for p in _REASONING) and not any(
        fnmatchcase(model, p) for p in _NOT_REASONING
    )


def _schema_problem(schema: Any, where: tuple[str, ...] = ()) -> str | None:
    """What strict structured outputs refuse in `schema`: every object must set
    ``additionalProperties: false`` and require every property
    (https://platform.openai.com/docs/guides/structured-outputs#supported-schemas)."""
    if not isinstance(schema, dict):
        return None
    if schema.get("type") == "object":
        if schema.get("additionalProperties") is not False:
            return (
                f"In context={where}, 'additionalProperties' is required to be supplied and "
                "to be false."
            )
        missing = sorted(set(schema.get("properties") or {}) - set(schema.get("required") or []))
        if missing:
            return (
                f"In context={where}, 'required' is required to be supplied and to be an "
                f"array including every key in properties. Missing '{missing[0]}'."
            )
    for name, sub in (schema.get("properties") or {}).items():
        problem = _schema_problem(sub, (*where, "properties", name))
        if problem:
            return problem
    return _schema_problem(schema.get("items"), (*where, "items"))


def _logprobs_refusal(body: dict[str, Any], model: str) -> Refusal | None:
    """What Chat Completions refuses of ``logprobs`` / ``top_logprobs``.

    ``top_logprobs`` is "an integer between 0 and 20 ... ``logprobs`` must be set to true if
    this parameter is used" (API reference, Chat Completions create; the SDK's
    types/chat/completion_create_params.py). Reasoning models give no log-probabilities:
    they answer 403 "You are not allowed to request logprobs from this model"
    (https://github.com/confident-ai/deepeval/pull/2184, o4-mini; "logprobs are not
    supported for reasoning models", https://github.com/UKGovernmentBEIS/inspect_ai/pull/2739).
    """
    asked, top = body.get("logprobs"), body.get("top_logprobs")
    if top is not None:
        if not isinstance(top, int) or isinstance(top, bool) or not 0 <= top <= 20:
            return Refusal(
                f"Invalid 'top_logprobs': integer must be between 0 and 20, got {top!r}.",
                param="top_logprobs",
                code="integer_out_of_range",
            )
        if asked is not True:
            return Refusal(
                "Invalid value for 'top_logprobs': 'logprobs' must be set to true when "
                "'top_logprobs' is used.",
                param="top_logprobs",
            )
    if asked and _reasoning(model):
        return Refusal("You are not allowed to request logprobs from this model", status=403)
    return None


def _token_logprobs(logged: LoggedRequest, text: str) -> list[dict[str, Any]]:
    """``choices[].logprobs.content``: one entry per token, with its UTF-8 ``bytes`` and its
    ``top_logprobs`` (the SDK's types/chat/chat_completion_token_logprob.py)."""
    top = logged.body.get("top_logprobs") or 0
    return [
        {
            "token": token.text,
            "logprob": token.logprob,
            "bytes": list(token.text.encode()),
            "top_logprobs": [
                {"token": t, "logprob": lp, "bytes": list(t.encode())} for t, lp in token.top
            ],
        }
        for token in tokens_of(text, logged.odds, top)
    ]


class _OpenAIAuth:
    """OpenAI's credential: "Authorization: Bearer OPENAI_API_KEY"
    (https://platform.openai.com/docs/api-reference/authentication)."""

    def credential(self, headers: Mapping[str, str]) -> str | None:
        return bearer(headers)

    def header_refusal(self, headers: Mapping[str, str], model: str) -> Refusal | None:
        if bearer(headers) or not FIRST_PARTY.match(model):
            return None
        return Refusal(
            "You didn't provide an API key. You need to provide your API key in an "
            "Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
            status=401,
        )

    def model_not_found(self, model: str) -> Refusal:
        # 404 invalid_request_error, code model_not_found, as the API sends it (quoted in
        # https://github.com/shobrook/wut/issues/14 and allenai/molmo issue 30).
        return Refusal(
            f"The model `{model}` does not exist or you do not have access to it.",
            status=404,
            code="model_not_found",
        )

    def rejected_key(self) -> tuple[int, dict[str, Any]]:
        # https://platform.openai.com/docs/guides/error-codes: "401 - Incorrect API key
        # provided", code invalid_api_key.
        return 401, {
            "error": {
                "message": "Incorrect API key provided. You can find your API key at "
                "https://platform.openai.com/account/api-keys.",
                "type": "invalid_request_error",
                "param": None,
                "code": "invalid_api_key",
            }
        }


class OpenAIChatCompletions(_OpenAIAuth, WireProtocol):
    """``POST /v1/chat/completions``: the model in the body, the schema in
    ``response_format.json_schema``, the system prompt as messages."""

    provider: ClassVar[Provider] = "openai"
    routes: ClassVar[tuple[Route, ...]] = (Route("POST", "/v1/chat/completions"),)

    def schema_in(self, body: dict[str, Any]) -> object:
        fmt = body.get("response_format") or {}
        if fmt.get("type") == "json_object":
            # llama-cpp-python's server takes the schema beside the type (its
            # llama_types.py, ``ChatCompletionRequestResponseFormat``).
            return fmt.get("schema")
        return (fmt.get("json_schema") or {}).get("schema")

    def prompt_parts(self, body: dict[str, Any]) -> tuple[str, str]:
        messages = body.get("messages") or []
        # "The structured output schema serves as a prefix to the system message and can be
        # cached" (the prompt-caching guide): it is prompt, counted and cached with the system.
        schema = self.schema_in(body)
        system = (json.dumps(schema) if isinstance(schema, dict) else "") + "".join(
            text_of(m.get("content")) for m in messages if m.get("role") in _SYSTEM_ROLES
        )
        rest = "".join(
            text_of(m.get("content")) for m in messages if m.get("role") not in _SYSTEM_ROLES
        )
        return system, rest

    def strict_refusal(self, logged: LoggedRequest) -> Refusal | None:
        body = logged.body
        keys = request_keys(
            "openai.types.chat.completion_create_params", "CompletionCreateParamsNonStreaming"
        )
        if keys is not None:
            allowed, required = keys
            for key in sorted(set(body) - allowed):
                return Refusal(f"Unrecognized request argument supplied: {key}")
            for key in sorted(required - set(body)):
                msg = f"Missing required parameter: '{key}'."
                return Refusal(msg, param=key, code="missing_required_parameter")
        temperature = body.get("temperature")
        if temperature not in (None, 1) and _reasoning(logged.model):
            return Refusal(
                f"Unsupported value: 'temperature' does not support {temperature} with this "
                "model. Only the default (1) value is supported.",
                param="temperature",
                code="unsupported_value",
            )
        refused = (
            _logprobs_refusal(body, logged.model)
            or openai_images(body, logged.model)
            or model_refusal(body, logged.model, _reasoning(logged.model))
        )
        if refused is not None:
            return refused
        fmt = body.get("response_format") or {}
        spec = fmt.get("json_schema") or {}
        if fmt.get("type") == "json_schema" and spec.get("strict"):
            problem = _schema_problem(spec.get("schema"))
            if problem:
                return Refusal(
                    f"Invalid schema for response_format '{spec.get('name')}': {problem}",
                    param="response_format",
                    code="invalid_json_schema",
                )
        return None

    def thinking_tokens(self, logged: LoggedRequest) -> int:
        if not _reasoning(logged.model):
            return 0
        # "medium" when the request does not say (the reasoning guide's default).
        return THINKING.get(str(logged.body.get("reasoning_effort") or "medium"), 0)

    def output_limit(self, body: dict[str, Any]) -> int | None:
        limit = body.get("max_completion_tokens") or body.get("max_tokens")
        return int(limit) if isinstance(limit, int) else None

    def cache_minimum(self, model: str) -> int:
        return _CACHE_MINIMUM

    def cache_increment(self) -> int:
        return _CACHE_INCREMENT

    def limit_headers(self, limit: float, remaining: int, reset: float) -> dict[str, str]:
        # https://platform.openai.com/docs/guides/rate-limits#rate-limits-in-headers
        return {
            "x-ratelimit-limit-requests": f"{limit:g}",
            "x-ratelimit-remaining-requests": str(remaining),
            "x-ratelimit-reset-requests": f"{max(reset, 0.001) * 1000:.0f}ms",
        }

    def reply_body(
        self, logged: LoggedRequest, text: str, tokens: Tokens, *, truncated: bool
    ) -> dict[str, Any]:
        return self.ended_body(logged, text, tokens, "length" if truncated else "stop")

    def ended_body(
        self, logged: LoggedRequest, text: str, tokens: Tokens, ending: Ending
    ) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": text, "refusal": None}
        finish = {"length": "length", "filtered": "content_filter"}.get(ending, "stop")
        if ending == "refusal":
            # A refusal comes in its own field, the content empty (the SDK's
            # types/chat/chat_completion_message.py).
            message.update(content=None, refusal=text or "I can't help with that.")
        elif ending == "filtered":
            message["content"] = None
        logprobs = None
        if logged.body.get("logprobs") and message["content"]:
            logprobs = {"content": _token_logprobs(logged, text), "refusal": None}
        return {
            "id": f"chatcmpl-{logged.index}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": logged.model,
            "choices": [
                {"index": 0, "message": message, "logprobs": logprobs, "finish_reason": finish}
            ],
            "usage": {
                "prompt_tokens": tokens.input,
                "completion_tokens": tokens.output,
                "total_tokens": tokens.input + tokens.output,
                "prompt_tokens_details": {"cached_tokens": tokens.cached},
                "completion_tokens_details": {"reasoning_tokens": tokens.thinking},
            },
            "system_fingerprint": "fp_fake",
        }

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        kind = {401: "invalid_request_error", 429: "rate_limit_exceeded"}.get(status, "error")
        return {"error": {"message": message, "type": kind, "param": None, "code": None}}

    def refused_body(self, refusal: Refusal) -> dict[str, Any]:
        return {
            "error": {
                "message": refusal.message,
                "type": "invalid_request_error",
                "param": refusal.param,
                "code": refusal.code,
            }
        }

    def quota_exhausted(self, message: str) -> tuple[int, dict[str, Any]]:
        # https://platform.openai.com/docs/guides/error-codes/api-errors: 429 "You exceeded
        # your current quota, please check your plan and billing details".
        return 429, {
            "error": {
                "message": message
                or "You exceeded your current quota, please check your plan and billing details.",
                "type": "insufficient_quota",
                "param": None,
                "code": "insufficient_quota",
            }
        }

    def overloaded(self) -> tuple[int, dict[str, Any]]:
        # The error-codes page: 503 "The engine is currently overloaded, please try again
        # later".
        return 503, {
            "error": {
                "message": "The engine is currently overloaded, please try again later.",
                "type": "server_error",
                "param": None,
                "code": None,
            }
        }


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


class OpenAIModerations(_OpenAIAuth, WireProtocol):
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
