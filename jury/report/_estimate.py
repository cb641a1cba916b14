"""The estimate of a run, printed: calls, tokens and cost per juror (`jury estimate`,
`jury run --dry-run`)."""

from __future__ import annotations

import sys
from collections.abc import Iterable

from .._case import Case
from .._estimate import CHARS_PER_TOKEN, estimate
from .._jury import Jury

__all__ = ["print_estimate"]


def _usd(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.4f}"


def print_estimate(jury: Jury, cases: Iterable[Case]) -> int:
    """Print what a run of `cases` would cost; the exit code (0)."""
    from rich.console import Console
    from rich.table import Table

    rows = estimate(jury, cases)
    table = Table(title="Estimate (no call made)", title_justify="left")
    for column in ("juror", "model", "calls", "input tokens", "output tokens", "cost", "at most"):
        table.add_column(column, justify="left" if column in ("juror", "model") else "right")
    for row in rows:
        table.add_row(
            row.juror + (" (offline)" if row.offline else ""),
            row.model,
            f"{row.calls:,}",
            f"{row.input_tokens:,}",
            f"{row.output_tokens:,} (max {row.max_output_tokens:,})",
            _usd(row.cost),
            _usd(row.max_cost),
        )
    costs = [r.cost for r in rows]
    ceilings = [r.max_cost for r in rows]
    total = None if None in costs else sum(c for c in costs if c is not None)
    ceiling = None if None in ceilings else sum(c for c in ceilings if c is not None)
    console = Console(file=sys.stdout, width=None if sys.stdout.isatty() else 120)
    console.print(table)
    console.print(
        f"Total: {sum(r.calls for r in rows):,} calls, {_usd(total)} expected, at most "
        f"{_usd(ceiling)}. Input tokens at {CHARS_PER_TOKEN} characters a token; first-choice "
        "models, no re-asks, retries or cache hits counted."
    )
    unknown = [r.model for r in rows if r.cost is None]
    if unknown:
        console.print(f"No price is known for: {', '.join(sorted(set(unknown)))}.")
    return 0
