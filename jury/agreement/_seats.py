"""Seats and the models behind them, for the analyses.

A seat is a model and a way of judging. Every analysis keys its sources by seat name (two seats
of one model are two sources, never merged) and needs to know which seats share a model, and a
family: three seats of one model are one model's judgement asked three ways, not three
independent judges.

Where a seat's model comes from:

- a panel at hand (`jury calibrate`): each juror's model as the jury file names it
  (``provider/model``) and its family (the jury file's ``family``, else the model's);
- a run directory (`jury agreement RUN`): the manifest's ``seats`` table, which `jury run`
  writes from the panel in the same way; a manifest written before that table has the recorded
  jury's jurors, whose model is there and whose family follows from it;
- a replayed seat (``replay/<file>``) is the record of another model's replies: its model is the
  one its records name (each vote's ``served_by``), when they name one, and that model's family.

A seat found nowhere is its own model, of an unknown family.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._verdict import CaseVerdict

if TYPE_CHECKING:
    from ..panel._panel import Panel

__all__ = ["Seat", "Seats"]

#: The family of a recorded replay: its records name the model that really judged.
_REPLAY = "replay"


@dataclass(frozen=True, slots=True)
class Seat:
    name: str
    model: str
    family: str


class Seats:
    """Which model (and family) each seat judges with."""

    def __init__(self, seats: Iterable[Seat] = ()) -> None:
        self._by = {seat.name: seat for seat in seats}

    def __getitem__(self, name: str) -> Seat:
        return self._by.get(name) or Seat(name, name, "unknown")

    def __contains__(self, name: object) -> bool:
        return name in self._by

    def same_model(self, a: str, b: str) -> bool:
        return self[a].model == self[b].model

    def models(self, names: Iterable[str]) -> int:
        return len({self[name].model for name in names})

    def families(self, names: Iterable[str]) -> int:
        return len({self[name].family for name in names})

    def sharing(self, names: Sequence[str]) -> dict[str, list[str]]:
        """Each model that two or more of `names` judge with, and those seats."""
        by_model: dict[str, list[str]] = {}
        for name in names:
            by_model.setdefault(self[name].model, []).append(name)
        return {model: seats for model, seats in by_model.items() if len(seats) > 1}

    def record(self, names: Iterable[str]) -> dict[str, dict[str, str]]:
        return {n: {"model": self[n].model, "family": self[n].family} for n in names}

    @classmethod
    def of_panel(cls, panel: Panel, verdicts: Iterable[CaseVerdict] = ()) -> Seats:
        from ..panel._warnings import seat_table

        return cls._of_table(seat_table(panel), verdicts)

    @classmethod
    def of_manifest(
        cls, manifest: Mapping[str, Any] | None, verdicts: Iterable[CaseVerdict] = ()
    ) -> Seats:
        """The seats a run's manifest records (`seat_table`, or its jury's jurors)."""
        manifest = manifest or {}
        table = manifest.get("seats")
        if not isinstance(table, Mapping):
            table = _from_jurors(manifest.get("jury"))
        return cls._of_table(table, verdicts)

    @classmethod
    def _of_table(cls, table: Mapping[str, Any], verdicts: Iterable[CaseVerdict]) -> Seats:
        from ..adapters import family_of

        served: dict[str, set[str]] = {}
        for verdict in verdicts:
            for vote in verdict.votes:
                if vote.served_by:
                    served.setdefault(vote.juror, set()).add(vote.served_by)
        seats = []
        for name, entry in table.items():
            if not isinstance(entry, Mapping) or not isinstance(entry.get("model"), str):
                continue
            model, family = entry["model"], str(entry.get("family") or family_of(entry["model"]))
            recorded = served.get(name, set()) - {model}
            if family == _REPLAY and len(recorded) == 1:
                # As the replay provider reads a record's family (providers/replay.py).
                model = recorded.pop()
                found = family_of(f"replay-of/{model}")
                family = found if found != "unknown" else _REPLAY
            seats.append(Seat(str(name), model, family))
        return cls(seats)


def _from_jurors(jury: Any) -> dict[str, dict[str, Any]]:
    """The seats of a recorded jury (`panel_record`): each juror's name (or model) and model."""
    table: dict[str, dict[str, Any]] = {}
    jurors = jury.get("jurors") if isinstance(jury, Mapping) else None
    for juror in jurors if isinstance(jurors, list) else ():
        if isinstance(juror, Mapping) and isinstance(juror.get("model"), str):
            name = juror.get("name") or juror["model"]
            table[str(name)] = {"model": juror["model"], "family": juror.get("family")}
    return table
