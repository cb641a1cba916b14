"""Logging. The library emits structlog events only once its user has configured structlog
(`Events`): an unconfigured structlog would print every event to stdout, and a library prints
nothing unless asked. Configuring it is the application's business (`configure_logging` is
the `jury` command's)."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping, MutableMapping
from typing import Any, TextIO

from ._redact import redact, secret_values

__all__ = ["Events", "configure_logging"]


class Events:
    """The library's structlog events, dropped until the application configures structlog.

    The library never imports structlog itself (it pulls in its console renderer, which
    `import jury` should not pay for): an application that has not imported it has not
    configured it either. The logger is bound at the first event after structlog is
    configured, once (a lazy proxy would resolve the configuration again on every event, a
    cost per case): configure structlog before judging.
    """

    __slots__ = ("_logger", "_name")

    def __init__(self, name: str = "jury") -> None:
        self._name = name
        self._logger: Any = None

    @property
    def enabled(self) -> bool:
        """Whether an event would be emitted: check it before building a costly one."""
        structlog = sys.modules.get("structlog")
        if structlog is None or not structlog.is_configured():
            return False
        if self._logger is None:
            self._logger = structlog.get_logger(self._name).bind()
        return True

    def info(self, event: str, **fields: Any) -> None:
        if self.enabled:
            self._logger.info(event, **fields)

    def warning(self, event: str, **fields: Any) -> None:
        if self.enabled:
            self._logger.warning(event, **fields)

    def exception(self, event: str, **fields: Any) -> None:
        if self.enabled:
            self._logger.exception(event, **fields)


class _Redactor:
    """A structlog processor: no value in an event ever carries a credential."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.secrets = secret_values(env)

    def __call__(
        self, logger: Any, method: str, event: MutableMapping[str, Any]
    ) -> MutableMapping[str, Any]:
        for key, value in event.items():
            if isinstance(value, str):
                event[key] = redact(value, self.secrets)
            elif not isinstance(value, (int, float, bool, type(None))):
                text = str(value)
                cleaned = redact(text, self.secrets)
                if cleaned != text:
                    event[key] = cleaned
        return event


def configure_logging(
    verbosity: int = 0, *, json: bool = False, stream: TextIO | None = None
) -> None:
    """Warnings only by default; ``-v`` adds one event per case, ``-vv`` everything."""
    import structlog

    level = {0: logging.WARNING, 1: logging.INFO}.get(verbosity, logging.DEBUG)
    stream = stream or sys.stderr
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if json
        else structlog.dev.ConsoleRenderer(colors=stream.isatty())
    )
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            _Redactor(os.environ),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(stream),
        cache_logger_on_first_use=False,
    )
