"""The agent settings of a jury file, and the agent a SPEC names.

A placeholder for the pipeline branch: the `agents` branch brings the full resolver (HTTP
endpoints, model agents, trace shapes); this one resolves only Python callables
(``path/to/file.py:function`` and ``package.module:function``) returning a string or an
`AgentReply`, with the same names, so that the pipeline can be built and tested against them.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .._errors import ConfigError
from ..adapters._agent import Agent, AgentReply
from ..cases._case import Case

__all__ = ["AgentSettings", "resolve_agent"]


class AgentSettings(BaseModel):
    """How the system under test is called (the ``agent*`` keys of a jury file)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    agent: str | None = None
    agent_prompt: str | None = None
    agent_family: str | None = None
    agent_concurrency: int = Field(default=8, ge=1)
    agent_timeout: float = Field(default=60.0, gt=0)
    agent_headers: dict[str, str] = {}
    agent_body: dict[str, Any] | None = None
    agent_fields: dict[str, str] = {}


class _CallableAgent(Agent):
    def __init__(self, name: str, function: Callable[[Case], Any], family: str | None) -> None:
        self.name = name
        self.family = family
        self._function = function
        self._async = inspect.iscoroutinefunction(function)

    async def respond(self, case: Case) -> AgentReply:
        if self._async:
            reply = await self._function(case)
        else:
            # A sync agent blocks: it runs in a worker thread, off the event loop.
            reply = await asyncio.to_thread(self._function, case)
        if isinstance(reply, AgentReply):
            return reply
        if isinstance(reply, str):
            return AgentReply(answer=reply)
        raise TypeError(f"returned {type(reply).__name__}, expected a str or an AgentReply")


def resolve_agent(
    spec: str, settings: AgentSettings | None = None, *, base_dir: str | Path | None = None
) -> Agent:
    """The agent `spec` names; `ConfigError` for a missing file, module or function."""
    settings = settings or AgentSettings()
    where, colon, attribute = spec.rpartition(":")
    if not colon or not where or not attribute:
        raise ConfigError(f"--agent {spec}: expected path/to/file.py:function or module:function")
    if where.endswith(".py"):
        path = Path(where)
        if base_dir is not None and not path.is_absolute():
            path = Path(base_dir) / path
        module = _load_file(spec, path)
    elif "/" not in where:
        try:
            module = importlib.import_module(where)
        except ImportError as exc:
            raise ConfigError(f"--agent {spec}: cannot import {where}: {exc}") from None
    else:
        raise ConfigError(f"--agent {spec}: only Python callables are supported here")
    function = getattr(module, attribute, None)
    if not callable(function):
        raise ConfigError(f"--agent {spec}: {where} has no function {attribute}")
    return _CallableAgent(spec, function, settings.agent_family)


def _load_file(spec: str, path: Path) -> Any:
    if not path.is_file():
        raise ConfigError(f"--agent {spec}: no file {path}")
    name = f"_jury_agent_{abs(hash(str(path.resolve())))}"
    loader = importlib.util.spec_from_file_location(name, path)
    if loader is None or loader.loader is None:
        raise ConfigError(f"--agent {spec}: cannot load {path}")
    module = importlib.util.module_from_spec(loader)
    sys.modules[name] = module
    try:
        loader.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise ConfigError(f"--agent {spec}: importing {path} failed: {exc!r}") from None
    return module
