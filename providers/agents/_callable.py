"""``path/to/file.py:function`` and ``package.module:function``: a Python callable as the agent.

The callable takes one argument, the `jury.Case`, and returns what `jury.adapters.reply_from`
reads (a string, a mapping in a trace shape, an `AgentReply`), with the jury file's field map
(``agent_fields``) for a mapping of its own shape. An ``async def`` (or anything
whose call returns an awaitable) is awaited on the loop; a plain function runs in a daemon
thread of its own, so a blocking agent does not stall the run, and a run interrupted while it
works ends at once (`asyncio.to_thread`'s pool is waited for when the loop closes and when the
interpreter exits: a run stopped by Ctrl-C would wait for the agent to return). Either way the call
runs inside `jury.trace.recording()`: what it records with `jury.trace`'s helpers, and the
OpenTelemetry spans it makes, are this case's trace alone (the worker thread runs in a copy
of the caller's context, so it sees the same recording). An exception it raises is left as
it is: the engine fails the case at the stage "agent" with it.

The case is the one the judges read, images and all: ``case.images`` holds each image of its
messages (a `jury.adapters.Image`: base64 ``data`` with its ``media_type``, or a ``url``;
``data_uri`` gives either as one string), numbered as the text marks them (``[image 1]``).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import importlib
import importlib.util
import inspect
import sys
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import jury.trace
from jury import Case, ConfigError
from jury.adapters import Agent, AgentReply, reply_from

__all__ = ["CallableAgent", "create", "load_callable"]

# Files loaded by path, so that two agents naming one file share its module (and its state).
_files: dict[Path, Any] = {}


def _load_file(path: Path) -> Any:
    # A name of its own per path, registered before it runs: dataclasses and pickling look
    # the module up in sys.modules by the name its classes carry.
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    name = f"_jury_agent_{path.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def load_callable(spec: str, base_dir: Path | None = None) -> Callable[..., Any]:
    """The callable a ``where:function`` SPEC names; `ConfigError` naming what is missing."""
    where, _, attr = spec.rpartition(":")
    path = None
    if where.endswith(".py"):
        path = Path(where)
        if base_dir is not None and not path.is_absolute():
            path = base_dir / path
        path = path.resolve()
        if not path.is_file():
            raise ConfigError(f"agent {spec!r}: no such file: {path}")
    try:
        if path is not None:
            module = _files.get(path)
            if module is None:
                module = _files[path] = _load_file(path)
        else:
            module = importlib.import_module(where)
    except ModuleNotFoundError as exc:
        if exc.name == where or (exc.name and where.startswith(f"{exc.name}.")):
            raise ConfigError(f"agent {spec!r}: no module named {where!r}") from None
        raise ConfigError(
            f"agent {spec!r}: cannot import {where}: ModuleNotFoundError: {exc}"
        ) from None
    except Exception as exc:  # the agent's own module failed as it was imported
        raise ConfigError(
            f"agent {spec!r}: cannot import {where}: {type(exc).__name__}: {exc}"
        ) from None
    found = getattr(module, attr, None)
    if found is None:
        raise ConfigError(f"agent {spec!r}: {where} has no {attr!r}")
    if not callable(found):
        raise ConfigError(f"agent {spec!r}: {attr} is not a function")
    return found  # type: ignore[no-any-return]


def _is_async(function: Callable[..., Any]) -> bool:
    call = getattr(function, "__call__", None)  # noqa: B004 - an object with async __call__
    return inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(call)


class CallableAgent(Agent):
    """A function of the case as the agent (see the module's text)."""

    def __init__(
        self,
        name: str,
        function: Callable[..., Any],
        *,
        family: str | None = None,
        fields: dict[str, str] | None = None,
    ) -> None:
        self.name = name
        self.family = family
        self.function = function
        self.fields = fields
        self._async = _is_async(function)

    async def respond(self, case: Case) -> AgentReply:
        with jury.trace.recording() as recorded:
            if self._async:
                value = await self.function(case)
            else:
                value = await _in_thread(self.function, case)
            if inspect.isawaitable(value):
                value = await value
        return recorded.applied(reply_from(value, case, self.fields), case)


async def _in_thread(function: Callable[..., Any], case: Case) -> Any:
    """`function(case)` in a daemon thread, in a copy of the caller's context (as
    `asyncio.to_thread` runs it: the thread sees the case's trace recording)."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def settle(outcome: Callable[[], None]) -> None:
        if not done.done():  # cancelled meanwhile: nobody waits for it
            outcome()

    def work() -> None:
        try:
            value = context.run(function, case)
        except BaseException as exc:  # handed to the waiting coroutine, which decides
            result: Callable[[], None] = partial(done.set_exception, exc)
        else:
            result = partial(done.set_result, value)
        with contextlib.suppress(RuntimeError):  # the loop is closed: the run has ended
            loop.call_soon_threadsafe(settle, result)

    threading.Thread(target=work, name="jury-agent", daemon=True).start()
    return await done


def create(
    spec: str,
    *,
    base_dir: Path | None = None,
    family: str | None = None,
    fields: dict[str, str] | None = None,
) -> Agent:
    """The agent of ``path/to/file.py:function`` or ``package.module:function``; `fields`
    maps a mapping it returns (as for an HTTP agent's JSON)."""
    return CallableAgent(spec, load_callable(spec, base_dir), family=family, fields=fields)


def from_function(
    function: Callable[..., Any],
    *,
    family: str | None = None,
    fields: dict[str, str] | None = None,
) -> Agent:
    """The agent of a function given in code (``Jury.evaluate(cases, agent=answer)``), named
    as ``--agent`` would name it: ``module:function``."""
    name = getattr(function, "__qualname__", None) or type(function).__qualname__
    module = getattr(function, "__module__", None) or type(function).__module__
    return CallableAgent(f"{module}:{name}", function, family=family, fields=fields)
