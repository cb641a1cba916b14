"""A reader that stops reading ends the output, not the command.

``jury agreement --json | head`` closes the pipe after ten lines; writing more raises
`BrokenPipeError`. The command's work (a run's records and reports, its exit code) is not the
reader's to cut short: from the first broken write on, standard output goes to the null
device (Python's own advice, https://docs.python.org/3/library/signal.html#note-on-sigpipe),
so the command finishes, exits with its own code, and prints no traceback.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, TextIO

__all__ = ["closed_pipe_is_quiet"]


class _QuietStdout:
    """Standard output that, once its reader has gone, writes to the null device."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def _reader_gone(self) -> None:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)
        except (OSError, ValueError):
            pass  # not a file descriptor: nothing more will be written to it anyway

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._reader_gone()
            return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._reader_gone()
            # What was buffered goes to the null device (or, with no descriptor to point
            # elsewhere, is lost with the reader).
            with suppress(BrokenPipeError):
                self._stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextmanager
def closed_pipe_is_quiet() -> Iterator[None]:
    """Within the block, a closed standard output is not an error (see the module)."""
    stream = sys.stdout
    sys.stdout = _QuietStdout(stream)
    try:
        yield
    finally:
        try:
            sys.stdout.flush()
        finally:
            sys.stdout = stream
