"""The console a command prints its report on: as wide as the terminal (or ``COLUMNS``).

Rich alone falls back to 80 columns off a terminal; a report piped through ``less`` or ``tee``
still has a terminal on stderr, and CI logs set ``COLUMNS`` or have no width at all.
"""

from __future__ import annotations

import os
import sys
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["LOG_WIDTH", "console_for", "terminal_width"]

#: Off a terminal, with no ``COLUMNS``: a CI log's usual width.
LOG_WIDTH = 120


def terminal_width(stream: IO[str] | None = None) -> int:
    """``COLUMNS`` when set; else the width of the terminal `stream` (then stderr, then stdin)
    is on; else `LOG_WIDTH`."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    for candidate in (stream, sys.stderr, sys.stdin):
        try:
            if candidate is not None and candidate.isatty():
                width = os.get_terminal_size(candidate.fileno()).columns
                if width > 0:
                    return width
        except (AttributeError, ValueError, OSError):
            continue
    return LOG_WIDTH


def console_for(stream: IO[str] | None = None) -> Console:
    """A rich console on `stream` (stdout by default) at `terminal_width`."""
    from rich.console import Console

    stream = stream or sys.stdout
    return Console(file=stream, width=terminal_width(stream))
