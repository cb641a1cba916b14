"""Log configuration for the CLI. The library only asks structlog for loggers; configuring
them is the application's business (here, the `jury` command's)."""

from __future__ import annotations

import logging
import os
import re
import sys
from collections.abc import Mapping, MutableMapping
from typing import Any, TextIO

__all__ = ["configure_logging", "redact", "secret_values"]

# Shapes of provider keys, for values that reach a log without being a known variable.
_KEY_SHAPES = re.compile(
    r"sk-ant-[A-Za-z0-9_-]{8,}|sk-(?:proj-)?[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{30,}|"
    r"AKIA[0-9A-Z]{16}|(?i:bearer)\s+[A-Za-z0-9._~+/-]{16,}"
)
_SECRET_NAMES = re.compile(r"(?:API_KEY|_KEY|_TOKEN|_SECRET|PASSWORD)$")


def secret_values(env: Mapping[str, str]) -> tuple[str, ...]:
    """Values of variables named like credentials (``*_API_KEY``, ``*_TOKEN``...)."""
    return tuple(v for k, v in env.items() if _SECRET_NAMES.search(k) and len(v) >= 8)


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """Replace credential values and anything shaped like a provider key."""
    for secret in secrets:
        text = text.replace(secret, "[redacted]")
    return _KEY_SHAPES.sub("[redacted]", text)


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
