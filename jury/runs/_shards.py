"""Shards of one run: ``jury run CASES --shard i/n`` judges the i-th of n slices of the cases.

A case's shard is a hash of its ID modulo n, so the slices are the same on every machine and
in every process, whatever the order of the file, and adding cases moves none of the cases
already there. Each shard is a run of its own (its run directory's manifest names the shard),
with the jury file's account limits divided by n, since the shards share the accounts; and
`jury merge` joins the shards' run directories into one (``jury.runs._merge``).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any, Literal

from .._errors import ConfigError
from ..adapters._account import ProviderLimits
from ..cases._case import Case
from ..cases._subset import Selection
from ..panel._panel import Panel

__all__ = ["Shard", "shard_of"]

_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


def shard_of(case_id: str, count: int) -> int:
    """The shard (1 to `count`) a case belongs to, from a hash of its ID."""
    digest = hashlib.sha256(case_id.encode()).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


@dataclass(frozen=True, slots=True)
class Shard:
    """The `index`-th of `count` shards (1-based, as ``--shard 1/4``)."""

    index: int
    count: int
    #: "divided": the jury file's account limits divided by `count`; "whole": as written.
    limits: Literal["divided", "whole"] = "divided"

    @classmethod
    def parse(cls, text: str, limits: Literal["divided", "whole"] = "divided") -> Shard:
        found = _SHARD.match(text)
        if found is None:
            raise ConfigError(f"--shard: expected i/n (such as 1/4), got {text!r}")
        index, count = int(found[1]), int(found[2])
        if count < 1 or not 1 <= index <= count:
            raise ConfigError(f"--shard {text}: i must be between 1 and n")
        return cls(index, count, limits)

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def select(self, cases: Iterable[Case]) -> Iterator[Case]:
        return (case for case in cases if shard_of(case.id, self.count) == self.index)

    def narrow(self, selection: Selection) -> Selection:
        """The cases of `selection` (the whole run's subset) that are this shard's."""
        ids = frozenset(case.id for case in self.select(selection.cases()))
        return replace(selection, ids=ids, count=len(ids))

    def record(self, cases: int) -> dict[str, Any]:
        """What the manifest says of the shard."""
        return {"index": self.index, "count": self.count, "cases": cases, "limits": self.limits}

    def panel(self, panel: Panel) -> Panel:
        """The panel with its account limits divided among the shards (unless "whole")."""
        if self.limits == "whole" or self.count == 1 or not panel.providers:
            return panel
        divided = {name: self._divide(limits) for name, limits in panel.providers.items()}
        return panel.model_copy(update={"providers": divided})

    def _divide(self, limits: ProviderLimits) -> ProviderLimits:
        set_ = limits.model_dump(exclude_unset=True)
        if limits.concurrency is not None:
            set_["concurrency"] = max(1, math.floor(limits.concurrency / self.count))
        for rate in ("rpm", "tpm"):
            value = getattr(limits, rate)
            if value is not None:
                set_[rate] = value / self.count
        return ProviderLimits(**set_)
