"""OpenAI-compatible servers: ``openai-api/<service>/<model>``, ``ollama/<model>``,
``vllm/<model>``.

``openai-api/<service>/<model>`` reads ``<SERVICE>_BASE_URL`` and ``<SERVICE>_API_KEY``
(the service upper-cased, ``-`` and ``.`` as ``_``); both must be set. ``ollama/<model>`` and
``vllm/<model>`` default to their usual local addresses (http://localhost:11434/v1 and
http://localhost:8000/v1), overridable with ``OLLAMA_BASE_URL``/``VLLM_BASE_URL``, and take
an optional ``OLLAMA_API_KEY``/``VLLM_API_KEY``.

Replies are constrained with a JSON schema (Ollama and vLLM enforce it). A server that
rejects ``response_format`` can be told ``<SERVICE>_RESPONSE_FORMAT=json_object`` or
``none``: the prompt asks for JSON anyway, and the engine validates and re-asks. The output
budget goes as ``max_tokens`` unless ``<SERVICE>_TOKENS_FIELD=max_completion_tokens``. A server
that refuses one of these by name stops the run at its first call, naming the variable
(`jury.JurorUnusable`). The model
family comes from the model's name (``llama``, ``qwen``, ``mistral``...) unless the jury
file sets the juror's ``family``.
"""

from __future__ import annotations

import os
import re

from jury import ConfigError, ProviderLimits
from jury.adapters import family_of

from ._wire import read_key
from .openai import OpenAIJudge, ResponseFormat, build

__all__ = [
    "DEFAULT_BASE_URLS",
    "create",
    "create_ollama",
    "create_vllm",
    "ollama_output",
    "service_output",
    "vllm_output",
]

DEFAULT_BASE_URLS = {"ollama": "http://localhost:11434/v1", "vllm": "http://localhost:8000/v1"}
#: Calls in flight unless the jury file says otherwise. Ollama runs a few requests at once
#: by default; vLLM batches many; an unknown compatible server gets a moderate number.
SERVICE_LIMITS = ProviderLimits(concurrency=16)
LOCAL_LIMITS = {"ollama": ProviderLimits(concurrency=4), "vllm": ProviderLimits(concurrency=32)}


def _variable(service: str, suffix: str) -> str:
    return re.sub(r"[^A-Z0-9]", "_", service.upper()) + suffix


def _response_format(service: str) -> ResponseFormat:
    variable = _variable(service, "_RESPONSE_FORMAT")
    value = os.environ.get(variable, "json_schema").strip().lower()
    if value not in ("json_schema", "json_object", "none"):
        raise ConfigError(f"{variable}: expected json_schema, json_object or none, got {value!r}")
    return value  # type: ignore[return-value]


def service_output(model: str) -> ResponseFormat:
    """The structured output of ``openai-api/<service>/<model>`` (`model` is
    ``<service>/<model>``): ``<SERVICE>_RESPONSE_FORMAT``, json_schema by default."""
    return _response_format(model.partition("/")[0])


def ollama_output(model: str) -> ResponseFormat:
    """The structured output of ``ollama/<model>``: ``OLLAMA_RESPONSE_FORMAT``."""
    return _response_format("ollama")


def vllm_output(model: str) -> ResponseFormat:
    """The structured output of ``vllm/<model>``: ``VLLM_RESPONSE_FORMAT``."""
    return _response_format("vllm")


def _tokens_field(service: str) -> str:
    variable = _variable(service, "_TOKENS_FIELD")
    value = os.environ.get(variable, "max_tokens").strip().lower()
    if value not in ("max_tokens", "max_completion_tokens"):
        raise ConfigError(
            f"{variable}: expected max_tokens or max_completion_tokens, got {value!r}"
        )
    return value


def create(spec: str, *, transport: str | None = None) -> OpenAIJudge:
    """``openai-api/<service>/<model>``; the model may itself contain ``/``."""
    _, service, model = ([*spec.split("/", 2), "", ""])[:3]
    if not service or not model:
        raise ConfigError(f"expected 'openai-api/<service>/<model>', got {spec!r}")
    url_variable = _variable(service, "_BASE_URL")
    key_variable = _variable(service, "_API_KEY")
    base_url = read_key(f"openai-api/{service}", url_variable)
    return build(
        spec,
        provider=f"openai-api/{service}",
        model=model,
        family=family_of(f"openai-api/{model}"),
        base_url=base_url,
        key=read_key(f"openai-api/{service}", key_variable),
        key_variable=key_variable,
        response_format=_response_format(service),
        # Compatible servers know the older name; few know max_completion_tokens.
        tokens_field=_tokens_field(service),
        transport=transport,
        limits=SERVICE_LIMITS,
        prefix=_variable(service, ""),
    )


def _local(server: str, spec: str, transport: str | None) -> OpenAIJudge:
    model = spec.partition("/")[2]
    base_url = os.environ.get(_variable(server, "_BASE_URL")) or DEFAULT_BASE_URLS[server]
    key_variable = _variable(server, "_API_KEY")
    return build(
        spec,
        provider=server,
        model=model,
        family=family_of(spec),
        base_url=base_url,
        key=os.environ.get(key_variable, ""),
        key_variable=key_variable,
        response_format=_response_format(server),
        tokens_field=_tokens_field(server),
        transport=transport,
        limits=LOCAL_LIMITS[server],
        prefix=_variable(server, ""),
    )


def create_ollama(spec: str, *, transport: str | None = None) -> OpenAIJudge:
    """``ollama/<model>`` on http://localhost:11434/v1 unless OLLAMA_BASE_URL says otherwise."""
    return _local("ollama", spec, transport)


def create_vllm(spec: str, *, transport: str | None = None) -> OpenAIJudge:
    """``vllm/<model>`` on http://localhost:8000/v1 unless VLLM_BASE_URL says otherwise."""
    return _local("vllm", spec, transport)
