"""The panel used when no jury file is given."""

from __future__ import annotations

from collections.abc import Mapping

from ._panel import Juror, Panel

__all__ = ["OFFLINE_JURORS", "default_panel"]

#: The offline reference jurors: three deterministic methods (see `providers.offline`).
OFFLINE_JURORS = ("offline/reference", "offline/evidence", "offline/facts")


def default_panel(env: Mapping[str, str] | None = None, rubric: str = "five-metric") -> Panel:
    """Offline reference jurors; real judges arrive with the provider adapters' keys."""
    del env  # read by the provider-aware default once adapters exist
    return Panel(jurors=tuple(Juror(model=name) for name in OFFLINE_JURORS), rubric=rubric)
