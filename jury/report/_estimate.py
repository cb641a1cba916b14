"""The estimate of a run, printed: calls, tokens and cost per juror (`jury estimate`,
`jury run --dry-run`)."""

from __future__ import annotations

import sys

from .._case import iter_cases
from .._estimate import CHARS_PER_TOKEN, estimate
from .._jury import Jury

__all__ = ["print_estimate"]


def _usd(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.4f}"


def _total(values: list[float | None]) -> float | None:
    return None if None in values else sum(v for v in values if v is not None)


def print_estimate(jury: Jury, path: str, *, batch: bool = False) -> int:
    """Print what a run of the cases in `path` would cost (with `batch`, also through the
    providers' batch APIs); the exit code (0)."""
    from rich.console import Console
    from rich.table import Table

    rows = estimate(jury, iter_cases(path))
    table = Table(title="Estimate (no call made)", title_justify="left")
    columns = ["juror", "model", "calls", "input tokens", "output tokens", "cost", "at most"]
    columns += ["batch cost", "batch at most"] if batch else []
    for column in columns:
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
            *([_usd(row.batch_cost), _usd(row.batch_max_cost)] if batch else []),
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
    if batch:
        console.print(
            f"Through the providers' batch APIs: {_usd(_total([r.batch_cost for r in rows]))} "
            f"expected, at most {_usd(_total([r.batch_max_cost for r in rows]))} (a model "
            "without a batch API is counted online)."
        )
    unknown = [r.model for r in rows if r.cost is None]
    if unknown:
        console.print(f"No price is known for: {', '.join(sorted(set(unknown)))}.")
    return 0
