"""Model lifecycle: whether a juror's model is current, deprecated or retired.

Providers retire models on dates they announce: a retired model's calls fail, or are quietly
served by another model at another price, and a judge swapped under a gate is judge drift.
Each provider adapter says what it knows of its models' lifecycles (from the lifecycle data its
SDK ships, or a table of the provider's announcements), as a `ModelStatus`; the engine reaches
it by the model's name, like the models themselves (`jury.adapters._registry.model_status`).

`jury run`, `jury calibrate` and the pytest plugin warn about a deprecated model
(`panel_warnings`), and `Jury` refuses a retired one unless the panel allows it
(``allow_retired = true``): one rule for the library, the plugin and the CLI.

The date is today's in UTC, or ``JURY_TODAY`` (``YYYY-MM-DD``) when set: a run can be checked
as it would have been on another day, and tests do not change verdict with the calendar.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING

from .._errors import ConfigError
from ..adapters._account import ModelStatus

if TYPE_CHECKING:
    from ..adapters._agent import Agent
    from ._panel import Panel

__all__ = [
    "agent_lifecycle",
    "lifecycle_warnings",
    "look_up",
    "refuse_retired",
    "statuses",
    "today",
]


def today() -> date:
    """The day lifecycle checks use: ``JURY_TODAY`` if set, else today in UTC."""
    given = os.environ.get("JURY_TODAY")
    if given:
        try:
            return date.fromisoformat(given.strip())
        except ValueError:
            raise ConfigError(f"JURY_TODAY: expected YYYY-MM-DD, got {given!r}") from None
    return datetime.now(UTC).date()


def _specs(panel: Panel) -> Iterator[tuple[str, str]]:
    """Each juror's id and the ``provider/model`` name of each of its models."""
    from ..adapters._model import JudgeModel

    for juror in panel.jurors:
        for model in (juror.model, *juror.fallbacks):
            yield juror.id, model.name if isinstance(model, JudgeModel) else model


#: Each model of a panel: its juror, its ``provider/model`` name and its status (or None).
Looked = list[tuple[str, str, ModelStatus | None]]


def look_up(panel: Panel, on: date | None = None) -> Looked:
    """Every model on the panel (first choices and fallbacks) with the juror it serves and
    its status, each looked up once (`panel_warnings` reads the list twice)."""
    from ..adapters._registry import model_status

    day = on or today()
    return [(juror, spec, model_status(spec, day)) for juror, spec in _specs(panel)]


def statuses(
    panel: Panel, on: date | None = None, looked: Looked | None = None
) -> list[tuple[str, ModelStatus]]:
    """The known status of every model on the panel (first choices and fallbacks), with the
    juror it serves (from `looked`, when the panel's models were already looked up)."""
    looked = look_up(panel, on) if looked is None else looked
    return [(juror, status) for juror, _, status in looked if status is not None]


def lifecycle_warnings(
    panel: Panel, on: date | None = None, looked: Looked | None = None
) -> list[str]:
    """A warning for each model that is deprecated, or retired on a panel that allows it, and
    one for each model its provider's lifecycle table does not know (a model of a provider
    that keeps none, such as a local server's, is the user's to know)."""
    from ..adapters._registry import tracks_lifecycle

    looked = look_up(panel, on) if looked is None else looked
    said = [
        f"{juror}: {status.describe()}"
        for juror, _, status in looked
        if status is not None and status.state != "active"
    ]
    unknown = {spec: juror for juror, spec, status in looked if status is None}
    said += [
        f"{juror}: {spec} is not in aiojury's lifecycle table: whether its provider has "
        "retired it cannot be checked (`jury doctor` shows the model that serves it)"
        for spec, juror in unknown.items()
        if tracks_lifecycle(spec)
    ]
    return said


def refuse_retired(panel: Panel, on: date | None = None) -> None:
    """Raise `ConfigError` naming every retired model of the panel, unless it allows them."""
    if panel.allow_retired:
        return
    retired = [
        f"{juror}: {status.describe()}"
        for juror, status in statuses(panel, on)
        if status.state == "retired"
    ]
    if retired:
        listed = "\n  ".join(retired)
        raise ConfigError(
            f"retired model{'s' * (len(retired) > 1)} on the panel (its calls would fail or be "
            f"served by another model; set allow_retired = true to judge anyway):\n  {listed}"
        )


def agent_lifecycle(agent: Agent, panel: Panel, on: date | None = None) -> str | None:
    """The lifecycle rule for a model that is the system under test (an agent made of a
    ``provider/model``): a retired one is refused unless the panel allows retired models, as
    a juror's would be; a deprecated one (or a retired one allowed) is a warning."""
    if agent.model is None:
        return None
    from ..adapters._registry import model_status

    status = model_status(agent.model.name, on or today())
    if status is None or status.state == "active":
        return None
    said = f"agent {agent.name}: {status.describe()}"
    if status.state == "retired" and not panel.allow_retired:
        raise ConfigError(
            f"retired model as the agent (its calls would fail or be served by another model; "
            f"set allow_retired = true to run it anyway): {said}"
        )
    return said
