"""The rows of the terminal report's jurors table: each juror's record and the calls of the
checks that ask a model, with the columns that say nothing for any juror left out."""

from __future__ import annotations

from .._verdict import CallStats
from ._summary import JurorStats, RunSummary
from ._views import probability_text

__all__ = ["cost_text", "juror_rows"]


def cost_text(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.4f}"


def _tokens(calls: CallStats) -> str:
    tokens = f"{calls.input_tokens:,}/{calls.output_tokens:,}"
    return tokens + (f" ({calls.cached_tokens:,} cached)" if calls.cached_tokens else "")


def _named(name: str, calls: CallStats) -> str:
    """A row's name, with FAKE when the fake provider server answered some of its calls."""
    return f"{name} (FAKE)" if calls.fake else name


def _sure(record: JurorStats) -> str:
    """The mean probability of the juror's own verdict and over how many votes: only votes
    that carried one count (a juror with none says "-", never 0 or 1)."""
    mean = record.mean_probability
    return "-" if mean is None else f"{probability_text(mean)} ({record.probability_votes})"


def juror_rows(summary: RunSummary) -> tuple[list[str], list[list[str]]]:
    """The jurors table's columns and rows."""
    # "served by" only when a fallback served some votes: otherwise it repeats the juror.
    failover = any(
        record.calls.served_by not in ((), (name,)) for name, record in summary.jurors.items()
    )
    records = summary.jurors.values()
    # Columns that are 0 for every juror are left out, except the two that say whether the
    # jurors could be heard at all (invalid, unavailable). Soft confidence is short enough
    # for a column: how sure each juror was of its own verdicts, on average.
    optional = {
        "abstained": any(r.abstained for r in records),
        "re-asks": any(r.calls.reasks for r in records),
        "cached": any(r.calls.cache_hits for r in records)
        or any(c.cache_hits for c in summary.check_calls.values()),
        "served by": failover,
        "mean p (votes)": any(r.probability_votes for r in records),
    }
    columns = ["juror", "votes", "valid", "invalid", "unavailable", "abstained", "re-asks"]
    columns += ["attempts", "cached", "tokens in/out", "cost", "served by", "mean p (votes)"]
    rows: list[list[str]] = []
    for juror, record in summary.jurors.items():
        # Offline jurors are named in the banner above and carry "offline/" in their name;
        # a juror the fake answered is named so here too.
        tokens = _tokens(record.calls)
        cells = [
            _named(juror, record.calls),
            record.votes,
            record.valid,
            record.invalid,
            record.unavailable,
        ]
        cells += [record.abstained, record.calls.reasks, record.calls.attempts]
        cells += [record.calls.cache_hits, tokens, cost_text(record.calls.cost)]
        # A juror no call of which was answered was served by nobody: "-", not a blank.
        cells += [", ".join(record.calls.served_by) or "-", _sure(record)]
        rows.append([str(cell) for cell in cells])
    rows += _check_rows(summary)
    keep = [i for i, column in enumerate(columns) if optional.get(column, True)]
    return [columns[i] for i in keep], [[row[i] for i in keep] for row in rows]


def _check_rows(summary: RunSummary) -> list[list[str]]:
    """The jurors table's rows for the checks that ask a model: their calls, no votes."""
    return [
        [
            _named(name, calls),
            *("-" * 6),
            str(calls.attempts),
            str(calls.cache_hits),
            _tokens(calls),
            cost_text(calls.cost),
            ", ".join(calls.served_by),
            "-",
        ]
        for name, calls in summary.check_calls.items()
    ]
