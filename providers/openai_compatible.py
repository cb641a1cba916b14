"""OpenAI-compatible servers: ``openai-api/<service>/<model>``, ``ollama/<model>``,
``vllm/<model>``.

``openai-api/<service>/<model>`` reads ``<SERVICE>_BASE_URL`` and ``<SERVICE>_API_KEY``
(the service upper-cased, ``-`` and ``.`` as ``_``); both must be set. ``ollama/<model>`` and
``vllm/<model>`` default to their usual local addresses (http://localhost:11434/v1 and
http://localhost:8000/v1), overridable with ``OLLAMA_BASE_URL``/``VLLM_BASE_URL``, and take
an optional ``OLLAMA_API_KEY``/``VLLM_API_KEY``.

Before its first call, a juror asks the server what it is (`jury.providers._servers`): how
it takes the reply's schema (``json_schema``, or llama-cpp-python's ``json_object`` with the
schema beside it), how many calls it serves at once, and what file is behind the model. Each
is in the juror's endpoint (so the cache keys replies by them) and said once in the run's
notes. ``<SERVICE>_RESPONSE_FORMAT`` (``json_schema``, ``json_object+schema``,
``json_object`` or ``none``) overrides what the server said; the jury file's
``[providers.<service>] concurrency`` overrides its slots. The schema is shaped for the
server's grammar (`jury.providers._grammar`). The output budget goes as ``max_tokens`` unless
``<SERVICE>_TOKENS_FIELD=max_completion_tokens``. A server that refuses one of these by name
stops the run at its first call, naming the variable (`jury.JurorUnusable`). The model family
comes from ``<SERVICE>_FAMILY``, else the model's name (``llama``, ``qwen``, ``mistral``...),
unless the jury file sets the juror's ``family``.
"""

from __future__ import annotations

import os
import re
from typing import Any

from jury import ConfigError, JurorUnusable, ProviderError, ProviderLimits
from jury.adapters import InvalidRequestError, JudgeReply, family_of

from ._servers import discover, is_local
from ._wire import read_key
from .openai import OpenAIJudge, OpenAIWire, ResponseFormat, build

__all__ = [
    "DEFAULT_BASE_URLS",
    "TEXT_LIMIT",
    "CompatibleJudge",
    "create",
    "create_ollama",
    "create_vllm",
    "family",
    "ollama_family",
    "ollama_output",
    "service_family",
    "service_output",
    "vllm_family",
    "vllm_output",
]

DEFAULT_BASE_URLS = {"ollama": "http://localhost:11434/v1", "vllm": "http://localhost:8000/v1"}
#: Calls in flight unless the server or the jury file says otherwise. Ollama runs a few
#: requests at once by default; vLLM batches many; a hosted compatible service gets a
#: moderate number, and a server on this machine or network that does not say how many it
#: serves gets one: a call that waits in the server's queue spends its timeout waiting.
SERVICE_LIMITS = ProviderLimits(concurrency=16)
ONE_SLOT = ProviderLimits(concurrency=1)
LOCAL_LIMITS = {"ollama": ProviderLimits(concurrency=4), "vllm": ProviderLimits(concurrency=32)}
#: The most characters of free text in a reply unless the juror's ``reason_length`` says:
#: a few sentences, where a small model left unbounded rambles until the output limit.
TEXT_LIMIT = 600
_FORMATS = ("json_schema", "json_object+schema", "json_object", "none")
#: How servers say a request does not fit their context: llama-server (tools/server,
#: "Context size has been exceeded.", "the request exceeds the available context size"),
#: vLLM ("This model's maximum context length is N tokens").
_CONTEXT = re.compile(r"context size|available context|maximum context length", re.I)


class CompatibleJudge(OpenAIJudge):
    """A judge on an OpenAI-compatible server, which it asks what it is before its first
    call (`prepare`)."""

    #: The server the provider names ("Ollama", "vLLM"); "" for ``openai-api/<service>``.
    kind = ""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: The response format ``<SERVICE>_RESPONSE_FORMAT`` sets, which outranks the server.
        self.chosen: ResponseFormat | None = None
        self._asked = False
        self._learned: tuple[str, ...] = ()

    @property
    def learned(self) -> tuple[str, ...]:
        return self._learned

    def fix_for(self, error: ProviderError) -> str:
        """A context the calls do not fit (llama-server: "Context size has been exceeded";
        vLLM: "maximum context length") is the server's size, or its calls in flight sharing
        one context (llama-server's slots do): say both ways out."""
        if _CONTEXT.search(str(error)):
            return (
                "the prompts and replies of the calls in flight do not fit the server's "
                "context: start it with a larger one (llama-server -c, shared by its slots; "
                f'vLLM --max-model-len), or set [providers."{self.wire.provider}"] '
                "concurrency = 1 in the jury file"
            )
        return super().fix_for(error)

    def price(self, reply: JudgeReply) -> float | None:
        """$0 on a model runtime the user runs (the server said it is llama-server, Ollama,
        vLLM...: nobody bills its calls); unknown for any other compatible service, whose
        prices no table here holds (never guessed as zero)."""
        wire = self.wire
        assert isinstance(wire, OpenAIWire)
        if self.kind or (wire.server is not None and wire.server.kind):
            return 0.0
        return super().price(reply)

    async def prepare(self) -> None:
        if self._asked:
            return
        wire = self.wire
        assert isinstance(wire, OpenAIWire)
        server = await discover(self.base_url, self.model, wire.headers(), kind=self.kind)
        # Asked only once answered: a discovery cancelled by a case's deadline is asked again.
        self._asked = True
        if server is None:
            return  # nothing answered: the first call says why
        wire.server = server
        said = [f"{self.name}: {server.describe()} at {self.base_url}"]
        if self.chosen is None:
            wire.response_format = server.schema
        elif self.chosen != server.schema:
            said.append(
                f"{self.name}: response format {self.chosen}, as {wire.prefix}_RESPONSE_FORMAT "
                f"says (the server takes {server.schema})"
            )
        if server.slots is not None:
            self.default_limits = ProviderLimits(concurrency=server.slots)
        elif server.kind in ("llama-cpp-python", "LM Studio") or (
            not server.kind and is_local(self.base_url)
        ):
            self.default_limits = ONE_SLOT
        pinned = self.pinned
        if pinned is not None:
            if server.model_file is None:
                said.append(
                    f"{self.name}: pinned to {pinned}, which cannot be checked: "
                    f"{server.kind or 'the server'} does not say which file it serves"
                )
            elif pinned not in server.model_file:
                raise JurorUnusable(
                    self.name,
                    self.base_url,
                    InvalidRequestError(
                        f"the server serves {server.model_file}, the jury file pins {pinned}"
                    ),
                    "load the pinned file on the server, or pin what it serves",
                )
        self._learned = tuple(said)


def _variable(service: str, suffix: str) -> str:
    return re.sub(r"[^A-Z0-9]", "_", service.upper()) + suffix


def family(spec: str) -> str | None:
    """The family ``<SERVICE>_FAMILY`` names for a juror's ``provider/model`` (None: not set):
    every model of a local server may be of one family its names do not tell."""
    prefix, _, rest = spec.partition("/")
    service = rest.partition("/")[0] if prefix == "openai-api" else prefix
    return os.environ.get(_variable(service, "_FAMILY"), "").strip().lower() or None


def _response_format(service: str) -> ResponseFormat | None:
    """The format ``<SERVICE>_RESPONSE_FORMAT`` sets, or None: the server's own."""
    variable = _variable(service, "_RESPONSE_FORMAT")
    value = os.environ.get(variable, "").strip().lower()
    if not value:
        return None
    if value not in _FORMATS:
        raise ConfigError(f"{variable}: expected {', '.join(_FORMATS)}, got {value!r}")
    return value  # type: ignore[return-value]


def _held(service: str) -> str:
    """How a server of `service` holds a reply to the schema, as far as is known before it is
    asked (`jury.adapters.ModelProfile.structured_output`): ``<SERVICE>_RESPONSE_FORMAT``,
    else to the schema (json_schema, or json_object with the schema where the server takes
    that, as llama-cpp-python does: `CompatibleJudge.prepare` learns which)."""
    chosen = _response_format(service)
    return "json_schema" if chosen in (None, "json_object+schema") else str(chosen)


# The profile's functions of the model ID, one per provider: ``openai-api``'s model ID is
# ``<service>/<model>``, Ollama's and vLLM's are served by the server of that name.
def service_output(model: str) -> str:
    """The structured output of ``openai-api/<service>/<model>``."""
    return _held(model.partition("/")[0])


def ollama_output(model: str) -> str:
    """The structured output of ``ollama/<model>``."""
    return _held("ollama")


def vllm_output(model: str) -> str:
    """The structured output of ``vllm/<model>``."""
    return _held("vllm")


def service_family(model: str) -> str | None:
    """The family ``<SERVICE>_FAMILY`` names for ``openai-api/<service>/<model>``."""
    return family(f"openai-api/{model}")


def ollama_family(model: str) -> str | None:
    """The family ``OLLAMA_FAMILY`` names for ``ollama/<model>``."""
    return family(f"ollama/{model}")


def vllm_family(model: str) -> str | None:
    """The family ``VLLM_FAMILY`` names for ``vllm/<model>``."""
    return family(f"vllm/{model}")


def _compatible(
    spec: str,
    *,
    service: str,
    provider: str,
    model: str,
    family: str,
    base_url: str,
    key: str,
    key_variable: str,
    transport: str | None,
    limits: ProviderLimits,
    kind: str = "",
) -> CompatibleJudge:
    chosen = _response_format(service)
    judge = build(
        spec,
        provider=provider,
        model=model,
        family=family,
        base_url=base_url,
        key=key,
        key_variable=key_variable,
        response_format=chosen or "json_schema",
        # Compatible servers know the older name; few know max_completion_tokens.
        tokens_field=_tokens_field(service),
        transport=transport,
        limits=limits,
        prefix=_variable(service, ""),
        text_limit=TEXT_LIMIT,
        judge=CompatibleJudge,
    )
    assert isinstance(judge, CompatibleJudge)
    judge.chosen, judge.kind = chosen, kind
    return judge


def _tokens_field(service: str) -> str:
    variable = _variable(service, "_TOKENS_FIELD")
    value = os.environ.get(variable, "max_tokens").strip().lower()
    if value not in ("max_tokens", "max_completion_tokens"):
        raise ConfigError(
            f"{variable}: expected max_tokens or max_completion_tokens, got {value!r}"
        )
    return value


def create(spec: str, *, transport: str | None = None) -> CompatibleJudge:
    """``openai-api/<service>/<model>``; the model may itself contain ``/``."""
    _, service, model = ([*spec.split("/", 2), "", ""])[:3]
    if not service or not model:
        raise ConfigError(f"expected 'openai-api/<service>/<model>', got {spec!r}")
    url_variable = _variable(service, "_BASE_URL")
    key_variable = _variable(service, "_API_KEY")
    base_url = read_key(f"openai-api/{service}", url_variable)
    return _compatible(
        spec,
        service=service,
        provider=f"openai-api/{service}",
        model=model,
        family=family(spec) or family_of(f"openai-api/{model}"),
        base_url=base_url,
        key=read_key(f"openai-api/{service}", key_variable),
        key_variable=key_variable,
        transport=transport,
        limits=SERVICE_LIMITS,
    )


def _local(server: str, kind: str, spec: str, transport: str | None) -> CompatibleJudge:
    model = spec.partition("/")[2]
    key_variable = _variable(server, "_API_KEY")
    return _compatible(
        spec,
        service=server,
        provider=server,
        model=model,
        family=family(spec) or family_of(spec),
        base_url=os.environ.get(_variable(server, "_BASE_URL")) or DEFAULT_BASE_URLS[server],
        key=os.environ.get(key_variable, ""),
        key_variable=key_variable,
        transport=transport,
        limits=LOCAL_LIMITS[server],
        kind=kind,
    )


def create_ollama(spec: str, *, transport: str | None = None) -> CompatibleJudge:
    """``ollama/<model>`` on http://localhost:11434/v1 unless OLLAMA_BASE_URL says otherwise."""
    return _local("ollama", "Ollama", spec, transport)


def create_vllm(spec: str, *, transport: str | None = None) -> CompatibleJudge:
    """``vllm/<model>`` on http://localhost:8000/v1 unless VLLM_BASE_URL says otherwise."""
    return _local("vllm", "vLLM", spec, transport)
