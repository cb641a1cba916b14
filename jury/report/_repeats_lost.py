"""What a run of repeats (``jury run --repeat N``) says of what its repeats' judges lost.

Each repeat's own reports say what degraded in it (FAKE replies, OFFLINE reference jurors, a
juror's missed cases and errors, cases decided without a family of the panel); the repeats'
outputs as a whole (``stability.json``, their JUnit file, the terminal's stability block,
`jury.Run.stability`) say each of those once, with the repeats it happened in, so that a
gate read from the repeats alone is never read as the jury that was configured. The figures
are the repeats' own summaries added up, and every line is made by the functions the single
run's reports use (`offline_line`, `fake_line`, `juror_line`, `error_line`, `family_line`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ._judge_errors import error_line, family_line, juror_line, losses_json
from ._lines import fake_line, offline_line
from ._losses import FamilyLoss, JudgeError
from ._summary import JurorStats, RunSummary

__all__ = ["degraded", "degraded_lines"]


@dataclass(slots=True)
class _Seen:
    """Names met in some repeats (FAKE jurors, OFFLINE jurors), and those repeats."""

    names: dict[str, None] = field(default_factory=dict)
    repeats: list[int] = field(default_factory=list)

    def add(self, repeat: int, names: Iterable[str]) -> None:
        found = list(names)
        if found:
            self.names.update(dict.fromkeys(found))
            self.repeats.append(repeat)

    def json(self) -> dict[str, Any]:
        return {"jurors": list(self.names), "repeats": self.repeats}


@dataclass(slots=True)
class _Lost:
    """One juror's losses over the repeats: its record added up, the repeats it missed cases
    in, and the repeat where each kind of error was first met."""

    stats: JurorStats = field(default_factory=JurorStats)
    repeats: list[int] = field(default_factory=list)
    first_in: dict[str, int] = field(default_factory=dict)

    def add(self, repeat: int, stats: JurorStats) -> None:
        self.stats.votes += stats.votes
        self.stats.unavailable += stats.unavailable
        self.stats.invalid += stats.invalid
        if not stats.missed:  # the same test as the single run's section (`lost`)
            return
        self.repeats.append(repeat)
        for kind, error in stats.errors.items():
            known = self.stats.errors.get(kind)
            if known is None:
                self.stats.errors[kind] = JudgeError(kind, error.first, error.case_id, error.count)
                self.first_in[kind] = repeat
            else:
                known.count += error.count


def degraded(summaries: Mapping[int, RunSummary]) -> dict[str, Any]:
    """What degraded in the repeats (`summaries` by repeat number), each said once with the
    repeats it happened in: ``fake``, ``offline``, ``judge_errors``, ``decided_without`` (each
    only when it happened) and ``lines``, what the terminal and the JUnit file say of them."""
    fake, offline = _Seen(), _Seen()
    jurors: dict[str, _Lost] = {}
    families: dict[str, tuple[FamilyLoss, list[int]]] = {}
    for repeat, summary in sorted(summaries.items()):
        fake.add(repeat, _fake_jurors(summary))
        offline.add(repeat, summary.offline_jurors)
        # Every repeat's votes are counted, so that "missed k of n" is over all the repeats.
        for name, stats in summary.jurors.items():
            jurors.setdefault(name, _Lost()).add(repeat, stats)
        for family, loss in summary.decided_without.items():
            total, repeats = families.setdefault(family, (FamilyLoss(), []))
            total.cases += loss.cases
            total.jurors += [j for j in loss.jurors if j not in total.jurors]
            repeats.append(repeat)
    jurors = {name: found for name, found in jurors.items() if found.repeats}
    found: dict[str, Any] = {}
    if fake.repeats:
        found["fake"] = fake.json()
    if offline.repeats:
        found["offline"] = offline.json()
    if jurors:
        found["judge_errors"] = {name: _lost_json(one) for name, one in jurors.items()}
    if families:
        found["decided_without"] = {
            family: {**asdict(loss), "repeats": repeats}
            for family, (loss, repeats) in sorted(families.items())
        }
    found["lines"] = _lines(fake, offline, jurors, families)
    return found


def _fake_jurors(summary: RunSummary) -> list[str]:
    """The jurors and model checks some of whose replies came from `jury.testing`'s fake, as
    the single run's header names them."""
    return [
        *(name for name, stats in summary.jurors.items() if stats.fake),
        *(name for name, calls in summary.check_calls.items() if calls.fake),
    ]


def _lost_json(one: _Lost) -> dict[str, Any]:
    """One juror's losses as ``summary.json``'s ``judge_errors`` keeps them, with the repeats
    they happened in (and the repeat where each kind of error was first met)."""
    stats = one.stats
    found = {"repeats": one.repeats, "votes": stats.votes, **losses_json(stats)}
    found["errors"] = [
        {**error, "repeat": one.first_in[error["kind"]]} for error in found["errors"]
    ]
    return found


def _in(repeats: Sequence[int]) -> str:
    return f"repeat{'s' * (len(repeats) != 1)} {', '.join(map(str, repeats))}"


def _lines(
    fake: _Seen,
    offline: _Seen,
    jurors: Mapping[str, _Lost],
    families: Mapping[str, tuple[FamilyLoss, list[int]]],
) -> list[str]:
    lines = []
    if fake.repeats:
        lines.append(f"In {_in(fake.repeats)}: {fake_line(list(fake.names))}")
    if offline.repeats:
        lines.append(f"In {_in(offline.repeats)}: {offline_line(list(offline.names))}")
    for name, one in jurors.items():
        lines.append(f"Judge errors in {_in(one.repeats)}: {juror_line(name, one.stats)}")
        lines += [
            f"    {error_line(error)} (repeat {one.first_in[kind]})"
            for kind, error in one.stats.errors.items()
        ]
    for family, (loss, repeats) in families.items():
        lines.append(f"In {_in(repeats)}: {family_line(family, loss)}")
    return lines


def degraded_lines(stability: Mapping[str, Any]) -> list[str]:
    """What the repeats' outputs say of what degraded (none for a stability without it)."""
    return [str(line) for line in stability.get("degraded", {}).get("lines", [])]
