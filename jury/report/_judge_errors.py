"""The "judge errors" section, said the same way in every report (terminal, HTML, JUnit; the
summary's JSON holds the same figures): each juror that missed cases, how many and how (its
unavailable and invalid votes), the first error of each kind with the case where it was first
seen; and the cases decided without a family of the panel, said in the report's last lines.

A juror lost mid-run leaves the verdicts to the others (the quorum's business): what matters
is that nobody reads a gate's outcome without seeing that the jury was not the one configured.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from ._losses import FamilyLoss, JudgeError
from ._summary import JurorStats, RunSummary

__all__ = [
    "error_line",
    "family_line",
    "family_lines",
    "judge_error_lines",
    "juror_line",
    "losses_json",
    "lost",
    "probability_lines",
]


def lost(summary: RunSummary) -> list[tuple[str, JurorStats]]:
    """The jurors that missed cases (unavailable or invalid votes), by name."""
    return [(name, stats) for name, stats in summary.jurors.items() if stats.missed]


def losses_json(stats: JurorStats) -> dict[str, Any]:
    """A juror's losses as ``summary.json``'s ``judge_errors`` keeps them."""
    return {
        "missed": stats.missed,
        "unavailable": stats.unavailable,
        "invalid": stats.invalid,
        "errors": [asdict(error) for error in stats.errors.values()],
    }


def juror_line(name: str, stats: JurorStats) -> str:
    how = [f"{stats.unavailable} unavailable"] * bool(stats.unavailable)
    how += [f"{stats.invalid} invalid"] * bool(stats.invalid)
    return f"{name}: missed {stats.missed} of {stats.votes} case(s) ({', '.join(how)})"


def error_line(error: JudgeError) -> str:
    return f"{error.kind} x{error.count}, first on {error.case_id}: {error.first}"


def family_line(family: str, loss: FamilyLoss) -> str:
    return (
        f"{loss.cases} case(s) decided without the {family} family "
        f"({', '.join(loss.jurors)}: no valid vote); [gate] require_every_juror = true holds "
        "such cases INCONCLUSIVE"
    )


def family_lines(summary: RunSummary) -> list[str]:
    return [family_line(family, loss) for family, loss in summary.decided_without.items()]


def probability_lines(summary: RunSummary) -> list[str]:
    """Each juror that asked for log-probabilities and did not get readable ones on every
    valid vote (or got doubtful ones), with each note and how many votes had it."""
    lines: list[str] = []
    for name, stats in summary.jurors.items():
        if not stats.probability_notes:
            continue
        count = sum(stats.probability_notes.values())
        lines.append(
            f"{name}: logprobs = true, but {count} of {stats.valid} valid vote(s) have no "
            "probability or a doubtful one"
        )
        lines += [f"    {note} x{n}" for note, n in stats.probability_notes.items()]
    return lines


def judge_error_lines(summary: RunSummary) -> list[str]:
    """The section as plain lines (empty when no juror missed a case or lost a probability)."""
    lines: list[str] = []
    for name, stats in lost(summary):
        lines.append(juror_line(name, stats))
        lines += [f"    {error_line(error)}" for error in stats.errors.values()]
    return lines + probability_lines(summary)
