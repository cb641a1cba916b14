"""The estimate of a run, printed: which cases reach the judges, and the calls, tokens and cost
per juror as a range (`jury estimate`, `jury run --dry-run`)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..cases._case import Case
from ..panel._panel import Panel
from ..runs._estimate import CHARS_PER_TOKEN, Checks, JurorEstimate, RunEstimate, estimate
from ._console import console_for

__all__ = ["Estimated", "estimated"]


def _usd(value: float | int | None) -> str:
    return "unknown" if value is None else f"${value:,.4f}"


def _count(value: float | int | None) -> str:
    return "unknown" if value is None else f"{value:,}"


@dataclass(frozen=True, slots=True)
class Estimated:
    """What a run of some cases would cost (`RunEstimate`), with what its report says of
    it: the panel, whether checks ran, whether the judges are asked on every case, and
    whether the batch price is asked for too."""

    panel: Panel
    result: RunEstimate
    checks: bool
    judge_all: bool = False
    batch: bool = False

    def print(self, stream: Any = None) -> None:
        _render(self, stream)


def estimated(
    panel: Panel,
    cases: Iterable[Case],
    *,
    checks: Checks | None,
    judge_all: bool = False,
    batch: bool = False,
) -> Estimated:
    """What a run of `cases` would cost (with `batch`, also through the providers' batch
    APIs), without a call or a key."""
    result = estimate(panel, cases, checks=checks, judge_all=judge_all)
    return Estimated(panel, result, checks is not None, judge_all, batch)


def _render(found: Estimated, stream: Any) -> None:
    from rich.markup import escape
    from rich.table import Table

    panel, result, batch, judge_all = found.panel, found.result, found.batch, found.judge_all
    console = console_for(stream or sys.stdout)
    console.print(_cases_line(result, found.checks, judge_all))
    table = Table(title="Estimate (no call made)", title_justify="left")
    columns = ["seat", "calls", "input tokens", "output tokens", "cost", "at most"]
    columns += ["batch cost", "batch at most"] if batch else []
    for column in columns:
        table.add_column(column, justify="left" if column == "seat" else "right")
    for row in result.jurors:
        table.add_row(
            escape(_seat(row) + (" (offline)" if row.offline else "")),
            f"{row.calls:,} to {row.max_calls:,}",
            f"{row.input_tokens:,} to {row.max_input_tokens:,}",
            f"{row.output_tokens:,} to {row.max_output_tokens:,}",
            _usd(row.cost),
            _usd(row.max_cost),
            *([_usd(row.batch_cost), _usd(row.batch_max_cost)] if batch else []),
        )
    console.print(table)
    unknown = sorted({r.model for r in result.jurors if r.cost is None})
    cost = f"{_usd(result.total('cost'))} expected, at most {_usd(result.total('max_cost'))}"
    if unknown:
        known = [r for r in result.jurors if r.cost is not None]
        others = (
            f"; the others: {_usd(sum(r.cost or 0.0 for r in known if r.always))}, at most "
            f"{_usd(sum(r.max_cost or 0.0 for r in known))}"
            if known
            else ""
        )
        cost = f"cost unknown (no price for {', '.join(unknown)}{others})"
    console.print(
        f"Total: {_count(result.total('calls'))} calls, at most "
        f"{_count(result.total('max_calls'))}; {escape(cost)}. The least: every reply valid at "
        "once; the most: "
        f"every reply as long as its seat may write ({_limits(panel, result)}) and re-asked "
        f"{panel.reasks} time(s). Input tokens at {CHARS_PER_TOKEN} characters a token, of the "
        "prompts each seat is sent (its strategy's included); first-choice models; retries, "
        "fallbacks and cache hits not counted."
    )
    for line in _seat_lines(result, panel.max_tokens):
        console.print(escape(line))
    if batch:
        console.print(
            f"Through the providers' batch APIs: {_usd(result.total('batch_cost'))} expected, "
            f"at most {_usd(result.total('batch_max_cost'))} (a model without a batch API is "
            "counted online)."
        )
    if panel.tiers > 1:
        tier = {juror.id: juror.tier for juror in panel.jurors}
        first = [r for r in result.jurors if tier.get(r.juror) == 1]
        low = None if any(r.cost is None for r in first) else sum(r.cost or 0.0 for r in first)
        full = (
            None
            if any(r.cost is None for r in result.jurors)
            else sum(r.cost or 0.0 for r in result.jurors)
        )
        console.print(
            f"Cascade of {panel.tiers} tiers: from {sum(r.calls for r in first):,} calls "
            f"({_usd(low)}), when tier 1 decides every case, to "
            f"{sum(r.calls for r in result.jurors):,} ({_usd(full)}), when every case reaches "
            "the last tier."
        )
    for note in result.notes:
        console.print(f"Note: {escape(note)}")


def _seat(row: JurorEstimate) -> str:
    """The seat's name, and its model and strategy where the name does not say them."""
    plain = row.model if row.strategy == "plain" else f"{row.model}+{row.strategy}"
    return row.juror if row.juror == plain else f"{row.juror} ({plain})"


def _limits(panel: Panel, result: RunEstimate) -> str:
    sizes = {(r.max_tokens, r.thinking_room) for r in result.jurors}
    if sizes == {(panel.max_tokens, 0)}:
        return f"{panel.max_tokens:,} tokens"
    return "its max_tokens and thinking room, below"


def _per_call(total: int, calls: int) -> int:
    return round(total / calls) if calls else 0


def _seat_lines(result: RunEstimate, default: int) -> list[str]:
    """What each seat's strategy adds, and what one of its calls may write: said for the
    seats where it differs from a plain prompt with the panel's max_tokens."""
    lines = []
    for row in result.jurors:
        said = []
        if row.strategy != "plain":
            added = (
                f"its strategy ({row.strategy}) adds its instructions, about "
                f"{_per_call(row.strategy_input_tokens, row.calls):,} input tokens a call"
            )
            if row.generated:
                added += (
                    f", and writes {', '.join(row.generated)} before its verdict, about "
                    f"{_per_call(row.strategy_output_tokens, row.calls):,} output tokens a "
                    "call expected (within its max_tokens at most)"
                )
            said.append(added)
        if row.thinking_room:
            said.append(
                f"max_tokens {row.max_tokens:,} a call plus {row.thinking_room:,} its adapter "
                f"adds for thinking: at most {row.max_tokens + row.thinking_room:,} output "
                "tokens a call, thinking billed as output (not counted in the expected figure)"
            )
        if said or row.max_tokens != default:
            said = said or [f"max_tokens {row.max_tokens:,} a call"]
            lines.append(f"{_seat(row)}: {'; '.join(said)}.")
    return lines


def _cases_line(result: RunEstimate, checked: bool, judge_all: bool) -> str:
    if not checked:
        parts = ["checks not run (--no-checks)"]
    elif judge_all:
        parts = ["--judge-all: a failed check spares no judge"]
    else:
        parts = [f"{result.spared:,} spared by a failed required check (checks cost nothing)"]
    if result.unjudgeable:
        parts.append(f"{result.unjudgeable:,} the rubric cannot judge")
    return (
        f"{result.cases:,} case(s), {result.judged:,} would reach the judges; "
        + "; ".join(parts)
        + "."
    )
