"""Check-quotes (the RAG-agent evals seed article): every point's ``quote``, the words that
prove it, occurs word for word in the sources, so that anyone can check a gold without being
an expert, and a gold that misquotes its source is caught before a judge is paid.

A quote is found in a source when it occurs there verbatim, differences of whitespace aside
(case, punctuation and spelling count). An ellipsis (``…`` or ``...``) in a quote marks words
left out: the parts around it must each occur, in order, in one source.

The sources of a case are what its agent retrieved (``trace.context``) and what its tools
returned; `jury check-quotes` adds a library of source files given on the command line (the
seed article's Acts). As a check before the judges (``check_quotes``), it reads the case's
own sources and is advisory by default: a quote missing from what the agent retrieved is a
retrieval miss or a gold to fix, which a reader decides.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..cases._case import Case, Point
from ._core import Finding, clip, failed, not_applicable, passed

__all__ = [
    "QuoteCheck",
    "case_sources",
    "check_quotes",
    "quote_source",
    "quoted_points",
    "read_library",
]

_ELLIPSIS = re.compile(r"\s*(?:…|\.\.\.)\s*")


def _squash(text: str) -> str:
    return " ".join(text.split())


def quote_source(quote: str, sources: Sequence[tuple[str, str]]) -> str | None:
    """The name of the first source (name, text) that holds `quote` (rules above), or None."""
    parts = [_squash(p) for p in _ELLIPSIS.split(quote) if p.strip()]
    if not parts:
        return None
    for name, text in sources:
        body = _squash(text)
        at = 0
        for part in parts:
            found = body.find(part, at)
            if found < 0:
                break
            at = found + len(part)
        else:
            return name
    return None


def quoted_points(case: Case) -> list[Point]:
    """The case's points that carry a quote: its points, shared points given in full, and
    penalties."""
    shared = [p for p in case.shared if isinstance(p, Point)]
    return [p for p in (*case.points, *shared, *case.penalties) if p.quote]


def case_sources(case: Case) -> list[tuple[str, str]]:
    """What the case's agent saw, named: each retrieved context, each tool result."""
    sources = [(f"context {n}", text) for n, text in enumerate(case.trace.context, start=1)]
    sources += [
        (f"{call.name} result", str(call.result))
        for call in case.trace.tool_calls
        if call.result is not None
    ]
    return sources


def check_quotes(case: Case) -> Finding:
    """The check: every quoted point's quote is in the case's own sources."""
    points = quoted_points(case)
    if not points:
        return not_applicable("no point carries a quote")
    sources = case_sources(case)
    missing = [p.id for p in points if p.quote and quote_source(p.quote, sources) is None]
    if missing:
        listed = ", ".join(missing)
        return failed(
            f"{len(missing)} of {len(points)} quotes not in what the agent retrieved: "
            f"{clip(listed, 80)}",
            listed,
        )
    return passed(f"all {len(points)} quotes found word for word")


def read_library(paths: Iterable[str | Path]) -> list[tuple[str, str]]:
    """Source files by path: a file, or every file under a folder (read as UTF-8 text;
    a file that is not text is an error that names it)."""
    sources = []
    for given in paths:
        path = Path(given)
        files: Iterator[Path] = (
            (p for p in sorted(path.rglob("*")) if p.is_file()) if path.is_dir() else iter([path])
        )
        for file in files:
            try:
                sources.append((str(file), file.read_text(encoding="utf-8")))
            except UnicodeDecodeError:
                raise ValueError(f"{file}: not a UTF-8 text file") from None
            except OSError as exc:
                raise ValueError(f"{file}: {exc.strerror or exc}") from None
    return sources


@dataclass(frozen=True, slots=True)
class QuoteCheck:
    """One quoted point of one case: where its quote was found, if anywhere."""

    case_id: str
    point: str
    quote: str
    found_in: str | None
