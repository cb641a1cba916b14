"""``openai/<model>``: OpenAI through Chat Completions, with a strict JSON schema.

Strict structured outputs need ``additionalProperties: false`` and every property required;
rubric schemas are written that way. The rubric goes first (the system message) so that
OpenAI's automatic prompt caching applies; cached tokens come back in
``usage.prompt_tokens_details.cached_tokens``.

Which sampling settings a model takes depends on its family (`FAMILIES`): reasoning models
refuse a temperature other than their default, and spend output tokens reasoning, so they are
asked for little reasoning and given room for it. A reply cut at the limit
(``finish_reason: "length"``), stopped by the content filter or refused (``message.refusal``)
says so in `JudgeReply.finish`. A 429 ``insufficient_quota`` (no credit, a spend limit) is not
a rate limit: no retry clears it, and it stops the run.

Reads ``OPENAI_API_KEY`` and ``OPENAI_BASE_URL``. The same wire serves every
OpenAI-compatible server (see `jury.providers.openai_compatible`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any, Literal

from jury import AuthenticationError, ProviderError, ProviderLimits, QuotaExhaustedError
from jury.adapters import (
    TOP_LOGPROBS,
    Endpoint,
    Finish,
    InvalidRequestError,
    JudgeReply,
    JudgeRequest,
    TokenLogprob,
    TransientError,
    Usage,
)

from ._grammar import grammar_schema
from ._images import openai_content
from ._openai_efforts import default_effort, efforts
from ._openai_sdk import OpenAISdkTransport, sdk_message
from ._openai_shutdown import shutdown_said
from ._servers import Server
from ._wire import (
    MalformedReplyError,
    Wire,
    WireModel,
    read_key,
)

__all__ = [
    "FAMILIES",
    "Family",
    "OpenAIJudge",
    "OpenAIWire",
    "ResponseFormat",
    "create",
    "family",
    "logprobs_refusal",
]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
KEY_VARIABLE = "OPENAI_API_KEY"


@dataclass(frozen=True, slots=True)
class Family:
    """What a family of OpenAI models takes: a sampling `temperature`, and whether it reasons
    (then it is sent ``reasoning_effort`` and given `REASONING_ROOM` more output tokens, since
    its reasoning counts against ``max_completion_tokens``)."""

    pattern: str
    temperature: bool
    reasoning: bool
    source: str


_REASONING_GUIDE = "https://platform.openai.com/docs/guides/reasoning#limitations"
#: Model families by name pattern, the first match winning. A model of the API that matches
#: none is taken to be of the newest kind (reasoning, no temperature): the API is moving that
#: way, and a temperature sent to such a model is a 400 on every call.
FAMILIES: tuple[Family, ...] = (
    # The chat (non-reasoning) snapshots of GPT-5 take a temperature.
    Family("gpt-5*-chat-latest", True, False, "https://github.com/BerriAI/litellm/issues/13781"),
    Family("gpt-6*", False, True, "openai SDK 3.57 types/shared/chat_model.py; issue 11"),
    Family("gpt-5*", False, True, _REASONING_GUIDE),
    Family("o[1-9]*", False, True, _REASONING_GUIDE),
    Family("gpt-4*", True, False, "openai SDK types/chat/completion_create_params.py"),
    Family("gpt-3.5*", True, False, "openai SDK types/chat/completion_create_params.py"),
    Family("chatgpt-*", True, False, "openai SDK types/chat/completion_create_params.py"),
)
_NEWEST = Family("*", False, True, "assumed for a model of no known family")
#: Output tokens added for a reasoning model's reasoning, on top of the reply's own budget.
REASONING_ROOM = 2048


def family(model: str) -> Family:
    """The family of an OpenAI model (by `FAMILIES`)."""
    return next((f for f in FAMILIES if fnmatchcase(model, f.pattern)), _NEWEST)


def output_room(model: str, effort: str | None = None) -> int:
    """The output tokens added to a juror's max tokens for a reasoning model's reasoning
    (billed as output), as `OpenAIWire.body` sends them; read by `jury estimate`."""
    return REASONING_ROOM if family(model).reasoning else 0


def logprobs_refusal(model: str) -> str | None:
    """Why an OpenAI model gives no token log-probabilities (None when it does): reasoning
    models answer 403 "You are not allowed to request logprobs from this model"
    (https://github.com/confident-ai/deepeval/pull/2184; "logprobs are not supported for
    reasoning models", https://github.com/UKGovernmentBEIS/inspect_ai/pull/2739)."""
    if family(model).reasoning:
        return "OpenAI's reasoning models give no log-probabilities (403 on request)"
    return None


def effort_refusal(model: str, effort: str) -> str | None:
    """Why an OpenAI model does not take a juror's `effort` (None when it does): only the
    reasoning models take ``reasoning_effort``, and each only its own values
    (`jury.providers._openai_efforts`)."""
    if not family(model).reasoning:
        return "it is not a reasoning model"
    taken = efforts(model)
    if effort not in taken:
        return f"{model} takes {', '.join(taken)}"
    return None


#: OpenAI's reasons for a 429 that waiting does not clear (``error.code``; the type is
#: ``insufficient_quota``): https://platform.openai.com/docs/guides/error-codes/api-errors and
#: https://learn.microsoft.com/microsoft-cloud/dev/dev-proxy/concepts/openai-insufficient-quota
_QUOTA_CODES = frozenset(
    {
        "insufficient_quota",
        "credit_balance_exhausted",
        "organization_spend_limit_exceeded",
        "project_spend_limit_exceeded",
        "organization_usage_limit_exceeded",
    }
)
_FINISH: dict[str, Finish] = {"length": "length", "content_filter": "filtered"}

#: How a reply is constrained: a strict JSON schema, a JSON object with the schema beside
#: it (llama-cpp-python's server), any JSON object, or only the prompt.
ResponseFormat = Literal["json_schema", "json_object+schema", "json_object", "none"]
#: What `OpenAIWire.fix` suggests after each format, when a server refuses it by name.
_NEXT_FORMAT: dict[str, str] = {
    "json_schema": "json_object+schema",
    "json_object+schema": "json_object",
    "json_object": "none",
}


class OpenAIWire(Wire):
    # As the SDK does (openai/_base_client.py, ``_should_retry``).
    retry_hints = True

    def __init__(
        self,
        *,
        provider: str,
        base_url: str,
        key: str,
        key_variable: str,
        response_format: ResponseFormat = "json_schema",
        tokens_field: str = "max_completion_tokens",
        prefix: str | None = None,
        text_limit: int | None = None,
    ) -> None:
        self.provider = provider
        self.key_variable = key_variable
        self.base_url = base_url.rstrip("/")
        self.response_format = response_format
        self.tokens_field = tokens_field
        #: The prefix of the variables that set this wire (``LOCAL`` of LOCAL_BASE_URL,
        #: LOCAL_RESPONSE_FORMAT...), for a compatible server; None for OpenAI itself.
        self.prefix = prefix
        self.url_variable = f"{prefix}_BASE_URL" if prefix else "OPENAI_BASE_URL"
        self._key = key
        #: A compatible server's schemas are shaped for a grammar (`grammar_schema`): free
        #: text held to this many characters unless the juror says otherwise; None: as is.
        self.text_limit = text_limit
        #: What the server said of itself (`jury.providers._servers.discover`), once asked.
        self.server: Server | None = None

    def url(self, model: str) -> str:
        return f"{self.base_url}/chat/completions"

    def fix(self, setting: str) -> str | None:
        """A compatible server's response format and tokens field are its variables'."""
        if self.prefix is not None and setting == "response_format":
            other = _NEXT_FORMAT.get(self.response_format, "none")
            return (
                f"set {self.prefix}_RESPONSE_FORMAT={other} (the server refuses "
                f"response_format {self.response_format}; the prompt still asks for the JSON "
                "the rubric reads, and every reply is validated)"
            )
        if self.prefix is not None and setting in ("max_tokens", "max_completion_tokens"):
            other = "max_completion_tokens" if setting == "max_tokens" else "max_tokens"
            return f"set {self.prefix}_TOKENS_FIELD={other}"
        return super().fix(setting)

    def endpoint(self, model: str) -> Endpoint:
        """The base URL, and what shapes `body`: the response format, the tokens field and,
        for OpenAI's own models, what the model's family is sent (a temperature or not; a
        reasoning effort and the output room for it; log-probabilities or not)."""
        settings = [
            "chat/completions",
            f"response_format={self.response_format}",
            f"tokens={self.tokens_field}",
            f"top_logprobs={TOP_LOGPROBS}",
        ]
        if self.text_limit is not None:
            settings.append(f"grammar=enum,maxLength{self.text_limit}")
        if self.server is not None:
            settings.append(f"server={self.server.kind or 'unrecognised'}/{self.server.version}")
            if self.server.model_file:
                settings.append(f"file={self.server.model_file}")
        if self.provider == "openai":
            kind = family(model)
            settings.append(f"temperature={'sent' if kind.temperature else 'not-sent'}")
            if kind.reasoning:
                settings.append(f"reasoning_effort={default_effort(model)}+{REASONING_ROOM}")
            if logprobs_refusal(model) is not None:
                settings.append("logprobs=not-sent")
        return Endpoint(self.base_url, " ".join(settings))

    def headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self._key}"} if self._key else {}

    def body(self, model: str, request: JudgeRequest) -> dict[str, Any]:
        messages: list[dict[str, Any]] = [{"role": "system", "content": request.system}]
        messages += [{"role": m.role, "content": openai_content(m)} for m in request.messages]
        # Compatible servers (Ollama, vLLM...) take the classic settings whatever the model.
        kind = family(model) if self.provider == "openai" else None
        tokens = request.max_tokens + (output_room(model) if kind is not None else 0)
        body: dict[str, Any] = {"model": model, "messages": messages, self.tokens_field: tokens}
        if request.temperature is not None and (kind is None or kind.temperature):
            body["temperature"] = request.temperature
        if kind is not None and kind.reasoning:
            # The juror's own effort, when it sets one (checked against the model's values when
            # the jury file loads), else the least of "low" and above the model takes.
            body["reasoning_effort"] = request.effort or default_effort(model)
        if request.seed is not None:
            body["seed"] = request.seed
        # Compatible servers (vLLM; Ollama from 0.12.11) take them for any model; OpenAI's
        # reasoning models refuse them, and are not asked (the panel warns at load).
        if request.logprobs and (kind is None or logprobs_refusal(model) is None):
            body["logprobs"] = True
            body["top_logprobs"] = TOP_LOGPROBS
        schema = request.schema
        if self.text_limit is not None:
            schema = grammar_schema(schema, request.text_limit or self.text_limit)
        if self.response_format == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": _schema_name(request.schema_name),
                    "schema": schema,
                    "strict": True,
                },
            }
        elif self.response_format == "json_object+schema":
            # llama-cpp-python's server: the schema beside the type, turned into a grammar
            # (llama_cpp/llama_types.py, ``ChatCompletionRequestResponseFormat``).
            body["response_format"] = {"type": "json_object", "schema": schema}
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
        finish = _FINISH.get(str(choices[0].get("finish_reason")), "stop")
        if message.get("refusal"):
            # A refusal is the judge's answer: kept as the raw reply, read as invalid.
            text, finish = message["refusal"], "refusal"
        usage = data.get("usage") or {}
        details = usage.get("prompt_tokens_details") or {}
        reasoning = (usage.get("completion_tokens_details") or {}).get("reasoning_tokens")
        return JudgeReply(
            text=str(text or ""),
            model=str(data.get("model") or model),
            usage=Usage(
                input_tokens=int(usage.get("prompt_tokens") or 0),
                output_tokens=int(usage.get("completion_tokens") or 0),
                cached_tokens=int(details.get("cached_tokens") or 0),
                thinking_tokens=int(reasoning or 0),
            ),
            finish=finish,
            logprobs=_token_logprobs(choices[0].get("logprobs")) if finish != "refusal" else None,
        )

    def error(
        self, status: int, body: Any, headers: Mapping[str, str] | None
    ) -> ProviderError | None:
        error = body.get("error", body) if isinstance(body, Mapping) else None
        if status != 429 or not isinstance(error, Mapping):
            return None
        # The code names the cause more precisely than the type, when it names one.
        code = next((c for c in (error.get("code"), error.get("type")) if c in _QUOTA_CODES), None)
        if code is None:
            return None
        return QuotaExhaustedError(
            f"{self.provider}: HTTP 429 {code}: {error.get('message') or 'no quota left'} "
            "(no retry clears it: add credit or raise the limit)",
            status=429,
        )


def _token_logprobs(given: Any) -> tuple[TokenLogprob, ...] | None:
    """``choices[].logprobs.content`` (the SDK's ChatCompletionTokenLogprob: ``token``,
    ``logprob``, ``top_logprobs``) as the seam's tokens; None when there are none."""
    content = given.get("content") if isinstance(given, Mapping) else None
    if not isinstance(content, list) or not content:
        return None
    try:
        return tuple(
            TokenLogprob(
                str(item["token"]),
                float(item["logprob"]),
                tuple(
                    (str(t["token"]), float(t["logprob"])) for t in item.get("top_logprobs") or ()
                ),
            )
            for item in content
        )
    except (KeyError, TypeError, ValueError):
        # Log-probabilities are a bonus: a reply whose list is not as documented is still
        # a reply, read without them.
        return None


def _schema_name(name: str) -> str:
    """OpenAI names a schema with ``[a-zA-Z0-9_-]{1,64}``."""
    cleaned = "".join(c if c.isalnum() or c in "_-" else "_" for c in name)[:64]
    return cleaned or "verdict"


class OpenAIJudge(WireModel):
    sdk = OpenAISdkTransport
    default_limits = ProviderLimits(concurrency=32)
    #: What OpenAI said of the model's shutdown before its first call (`prepare`).
    said: tuple[str, ...] = ()
    _asked = False

    async def prepare(self) -> None:
        """Ask OpenAI for the model's ``shutdown_date`` once (`_openai_shutdown`)."""
        if not self._asked:
            self._asked = True
            self.said = await shutdown_said(self)

    @property
    def learned(self) -> tuple[str, ...]:
        return self.said

    def classify_sdk_error(self, exc: Exception) -> ProviderError | None:
        errors = sys.modules.get("openai._exceptions")
        if errors is None or not isinstance(exc, errors.OpenAIError):
            return None
        if isinstance(exc, errors.APIStatusError):
            # The SDK keeps the body's ``error`` object as `body`.
            body = {"error": exc.body} if isinstance(exc.body, Mapping) else exc.body
            return self.status_error(exc.status_code, sdk_message(exc), exc.response, body)
        if isinstance(exc, errors.APIResponseValidationError):
            return TransientError(f"malformed reply (HTTP {exc.status_code})")
        if isinstance(exc, (errors.APIConnectionError, errors.WebSocketConnectionClosedError)):
            return TransientError(f"{type(exc).__name__}: {exc}")
        if isinstance(exc, errors.SubjectTokenProviderError):
            return AuthenticationError(str(exc), variable=self.wire.key_variable)
        # Finish-reason errors (length, content filter) come from the SDK's parse helpers,
        # which this adapter does not use; anything else is a request that cannot work.
        return InvalidRequestError(f"{type(exc).__name__}: {exc}")


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
    prefix: str | None = None,
    text_limit: int | None = None,
    judge: type[OpenAIJudge] | None = None,
) -> OpenAIJudge:
    """An OpenAI-protocol judge on any base URL (used by the compatible servers too)."""
    wire = OpenAIWire(
        provider=provider,
        base_url=base_url,
        key=key,
        key_variable=key_variable,
        response_format=response_format,
        tokens_field=tokens_field,
        prefix=prefix,
        text_limit=text_limit,
    )
    return (judge or OpenAIJudge)(
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
