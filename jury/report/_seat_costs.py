"""`calibrate --select`: each seat's cost per 1000 cases, and where it came from (the tokens
its votes recorded, or the estimate), printed beside the ranked seat sets."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..agreement._select import SeatCost

__all__ = ["print_seat_costs"]


def _one(seat: str, found: SeatCost) -> str:
    cost = "price unknown" if found.cost is None else f"${1000 * found.cost:.4f}"
    why = f": {found.why}" if found.why else ""
    source = "" if found.cost is None else f", {found.source}"
    return f"  {seat}: {cost}{source} ({found.model}{why})"


def print_seat_costs(costs: Mapping[str, SeatCost], out: Any) -> None:
    """One line per seat: its cost per 1000 cases, its source and the model it is priced
    as ("measured tokens": its votes' tokens priced by the model's table; "estimated":
    `jury estimate`'s expected figure, where its votes recorded no tokens)."""
    if not costs:
        return
    print("Seat costs per 1000 cases, from the price tables:", file=out)
    for seat in sorted(costs):
        print(_one(seat, costs[seat]), file=out)
