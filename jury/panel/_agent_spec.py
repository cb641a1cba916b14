"""The system under test as the jury file and ``--agent`` name it: a SPEC, and its settings.

A SPEC is read in this order:

- a URL when it starts with ``http://`` or ``https://``: an HTTP endpoint the case is POSTed to;
- a Python callable when the part before its last ``:`` ends in ``.py`` (a file, loaded by its
  path: relative paths from `base_dir`, the jury file's folder, else the working folder) or
  is a dotted name without ``/`` (``package.module:function``, imported);
- otherwise ``provider/model``: a model as the system under test (model IDs may hold a ``:``,
  as Ollama's ``ollama/llama3:8b`` does), resolved by the judges' provider registry.

The built-in agents live in ``providers/`` and are found by name through the table its
package declares (``providers.AGENTS``), as judge models are: the engine names no provider
module. `resolve_agent` raises `jury.ConfigError` for anything that cannot work before a
single case is run: a missing file, module or function, an import error, an unknown
provider, an environment variable a header needs that is not set.

**Headers** (``agent_headers``) are literal text in which ``${NAME}`` is replaced by the
environment variable ``NAME`` when the agent is made (``Authorization = "Bearer
${SHOP_TOKEN}"``). The resolved value lives only in the agent object: records and reports
name the agent by its SPEC, never by its headers.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from .._errors import ConfigError
from ..adapters._agent import Agent
from ..adapters._registry import PROVIDERS_PACKAGE, resolve_model

__all__ = ["AgentLike", "AgentSettings", "agent_kind", "as_agent", "resolve_agent"]

#: What may be the system under test, wherever one is given (``Jury.evaluate(agent=...)``,
#: the pytest plugin, ``jury run --agent``): an `Agent`, a SPEC, or a sync or async callable
#: of the case.
AgentLike = Agent | str | Callable[..., Any]


class AgentSettings(BaseModel):
    """The jury file's agent keys (``agent = "..."`` and its ``agent_*`` companions)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: The SPEC (see the module's text); ``--agent`` on the command line wins over it.
    agent: str | None = None
    #: A prompt template for a ``provider/model`` agent (promptfoo's ``{{var}}`` syntax).
    agent_prompt: str | None = None
    #: The model family of a callable or an endpoint, for the judge-family warning.
    agent_family: str | None = None
    agent_concurrency: int = Field(default=8, ge=1)
    #: Seconds one agent call may take before its case fails at the stage "agent".
    agent_timeout: float = Field(default=60.0, gt=0)
    #: HTTP headers; ``${NAME}`` in a value is the environment variable NAME.
    agent_headers: dict[str, str] = Field(default_factory=dict)
    #: The JSON body an HTTP agent is sent, in place of ``{id, question, messages, metadata}``:
    #: strings in it may hold ``{{id}}``, ``{{question}}``, ``{{messages}}`` (the whole value
    #: becomes the conversation), ``{{metadata.KEY}}`` or ``{{vars.KEY}}``.
    agent_body: dict[str, Any] | None = None
    #: Where the case's fields are in the agent's reply (``{"answer": "data.reply"}``).
    agent_fields: dict[str, str] = Field(default_factory=dict)
    #: A ``provider/model`` agent's model takes images, whatever its provider's table says
    #: (an OpenAI-compatible server's vision model), as a juror's ``images = true``.
    agent_images: StrictBool = False


_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_VARIABLE = re.compile(r"\$\{([A-Za-z_]\w*)\}")


def agent_kind(spec: str) -> str:
    """``"http"``, ``"callable"`` or ``"model"``: which form a SPEC is (see above)."""
    if spec.startswith(("http://", "https://")):
        return "http"
    head, sep, tail = spec.rpartition(":")
    if sep and head and (head.endswith(".py") or ("/" not in head and _DOTTED.fullmatch(head))):
        if not tail:
            raise ConfigError(f"agent {spec!r}: name the function after the ':'")
        return "callable"
    prefix, slash, model = spec.partition("/")
    if slash and prefix and model:
        return "model"
    raise ConfigError(
        f"agent {spec!r}: expected path/to/file.py:function, package.module:function, "
        "an http:// or https:// URL, or provider/model"
    )


def _headers(headers: dict[str, str]) -> dict[str, str]:
    out = {}
    for name, value in headers.items():
        missing = [v for v in _VARIABLE.findall(value) if v not in os.environ]
        if missing:
            raise ConfigError(
                f"agent_headers.{name}: the environment variable {missing[0]} is not set"
            )
        out[name] = _VARIABLE.sub(lambda m: os.environ[m.group(1)], value)
    return out


def _factory(kind: str) -> Any:
    """The built-in agent factory of `kind`, from the providers package's `AGENTS` table."""
    package = importlib.import_module(PROVIDERS_PACKAGE)
    table: dict[str, str] = getattr(package, "AGENTS", {})
    target = table.get(kind)
    if target is None:
        raise ConfigError(f"no built-in agent of the kind {kind!r} is installed")
    module, _, attr = target.partition(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except ModuleNotFoundError as exc:
        raise ConfigError(
            f"the {kind} agent needs a package that is not installed ({exc.name})"
        ) from None


def resolve_agent(
    spec: str, settings: AgentSettings | None = None, *, base_dir: str | Path | None = None
) -> Agent:
    """The `Agent` a SPEC names, with `settings` (the defaults when None); `ConfigError` when
    it cannot work."""
    settings = settings or AgentSettings()
    base_dir = None if base_dir is None else Path(base_dir)
    spec = spec.strip()
    kind = agent_kind(spec)
    if kind != "model" and settings.agent_prompt is not None:
        raise ConfigError(
            f"agent_prompt: a prompt template is for a provider/model agent, not {spec!r}"
        )
    if kind != "model" and settings.agent_images:
        raise ConfigError(
            f"agent_images: for a provider/model agent, not {spec!r} (a callable gets the "
            "case's images; an endpoint is POSTed them)"
        )
    agent: Agent
    if kind == "callable":
        agent = _factory(kind)(
            spec,
            base_dir=base_dir,
            family=settings.agent_family,
            fields=settings.agent_fields or None,
        )
    elif kind == "http":
        agent = _factory(kind)(
            spec,
            headers=_headers(settings.agent_headers),
            body=settings.agent_body,
            fields=settings.agent_fields or None,
            timeout=settings.agent_timeout,
            family=settings.agent_family,
        )
    else:
        template = None
        if settings.agent_prompt is not None:
            path = Path(settings.agent_prompt)
            if base_dir is not None and not path.is_absolute():
                path = base_dir / path
            try:
                template = path.read_text(encoding="utf-8")
            except OSError as exc:
                raise ConfigError(f"agent_prompt: cannot read {path}: {exc.strerror}") from None
        model = resolve_model(spec)
        agent = _factory(kind)(
            spec,
            model,
            template=template,
            family=settings.agent_family,
            images=settings.agent_images,
        )
    return agent


def as_agent(
    agent: AgentLike, settings: AgentSettings | None = None, *, base_dir: str | Path | None = None
) -> Agent:
    """The `Agent` of anything `AgentLike`: an `Agent` as it is, a SPEC resolved as
    `resolve_agent` does, and a sync or async callable of the case wrapped as ``--agent
    file.py:function`` wraps the function it loads (same threads, same trace, same reply
    reading). Anything else is a `ConfigError` naming what it got."""
    if isinstance(agent, Agent):
        return agent
    if isinstance(agent, str):
        return resolve_agent(agent, settings, base_dir=base_dir)
    if callable(agent):
        settings = settings or AgentSettings()
        wrapped: Agent = _factory("function")(
            agent, family=settings.agent_family, fields=settings.agent_fields or None
        )
        return wrapped
    raise ConfigError(
        f"agent: expected an Agent, a SPEC (file.py:function, package.module:function, a URL, "
        f"provider/model) or a callable of the case, got {type(agent).__name__}"
    )
