"""Warnings about a panel before it is trusted: shared families, model aliases, and models
their provider has deprecated or retired.

A jury's strength is its diversity (Verga et al. 2024), and a judge tends to prefer answers
like its own: two jurors of one family, or a juror of the family under test, weaken both.
A seat is a model and a way of judging: several seats of one model are of one family (and
one model) however differently they are prompted, and the warnings name them as such, once
per model rather than once per seat.
Nothing pins a model's weights but a snapshot ID: an alias ("gpt-4o", "...-latest", an Ollama
tag) can be re-pointed to another model without notice, which shows up as judge drift. A
snapshot is told by its date, or by its provider saying it is pinned (`ModelStatus.pinned`:
Anthropic's dateless IDs since Claude 4.6, Gemini's stable IDs). A deprecated model will stop
answering on a known date (`jury.panel._lifecycle`).
"""

from __future__ import annotations

import re

from ..adapters._agent import Agent
from ..adapters._model import JudgeModel
from ..adapters._registry import family_of, logprobs_refusal, pin_refusal
from ._lifecycle import lifecycle_warnings, look_up, today
from ._panel import Juror, Panel

__all__ = ["is_snapshot", "juror_family", "juror_model", "panel_warnings", "seat_table"]

#: Families that are not LLMs (or not known): the family rules say nothing about them.
_NOT_LLM = frozenset({"offline", "replay", "scripted", "unknown"})

# A date (20241022, 2024-10-22) or a short version suffix (-001, -0613, @002) marks a snapshot.
_DATE = re.compile(r"(?<!\d)(?:19|20)\d{2}-?(?:0[1-9]|1[0-2])-?(?:0[1-9]|[12]\d|3[01])(?!\d)")
_VERSION = re.compile(r"[-@](?:v?\d{3,4})(?:[-:].*)?$")


def is_snapshot(model_id: str) -> bool:
    """Whether a model ID names a dated snapshot rather than an alias (a heuristic on the ID).

    "claude-3-5-sonnet-20241022", "gpt-4o-2024-08-06", "gpt-4-0613", "gemini-1.5-pro-002"
    are snapshots; "gpt-4o", "claude-3-5-sonnet-latest", "llama3.1:8b" (a mutable tag) are not.
    """
    name = model_id.rsplit("/", 1)[-1]
    if _DATE.search(name):
        return True
    if name.endswith("latest") or ":" in name:
        return False
    return bool(_VERSION.search(name))


def juror_family(juror: Juror) -> str:
    """The family of a seat's model: the jury file's ``family``, else the model's own, else
    what its name tells (`family_of`)."""
    if juror.family:
        return juror.family
    model = juror.model
    if isinstance(model, JudgeModel):
        return model.family if model.family != "unknown" else family_of(model.name)
    return family_of(model)


def juror_model(juror: Juror) -> str:
    """The model a seat judges with, as the jury file names it (``provider/model``)."""
    return juror.model if isinstance(juror.model, str) else juror.model.name


def seat_table(panel: Panel) -> dict[str, dict[str, str]]:
    """Each seat's model and family, as a run's manifest records them (``seats``): what the
    analyses of a recorded run know of which seats share a model."""
    return {
        juror.id: {"model": juror_model(juror), "family": juror_family(juror)}
        for juror in panel.jurors
    }


def _named(jurors: list[Juror]) -> str:
    """Seats by name, and, where several are seats of one model, that model."""
    shared: dict[str, list[str]] = {}
    for juror in jurors:
        shared.setdefault(juror_model(juror), []).append(juror.id)
    text = ", ".join(juror.id for juror in jurors)
    many = [(model, seats) for model, seats in shared.items() if len(seats) > 1]
    if len(shared) == 1 and many:
        text += f" (seats of one model, {many[0][0]})"
    elif many:
        text += " (" + "; ".join(f"{', '.join(s)}: seats of one model, {m}" for m, s in many) + ")"
    return text


def _live_id(model: str | JudgeModel) -> str | None:
    """The model ID of a live judge, or None for offline, replayed and scripted ones."""
    if isinstance(model, JudgeModel):
        # A model whose class names no family takes its provider's (an outside adapter's
        # model object is as live as the built-ins').
        family = model.family if model.family != "unknown" else family_of(model.name)
        if model.offline or family in _NOT_LLM:
            return None
        model = model.name
    elif family_of(model) in _NOT_LLM:
        return None
    return model.partition("/")[2]


def panel_warnings(panel: Panel, agent: Agent | None = None) -> list[str]:
    """Every warning the panel deserves, one sentence each (empty when there is none). The
    system under test is the jury file's ``system_under_test``, else the `agent` that answers
    the cases (its family: its model's, or the jury file's ``agent_family``)."""
    warnings: list[str] = []
    by_family: dict[str, list[Juror]] = {}
    for juror in panel.jurors:
        family = juror_family(juror)
        if family not in _NOT_LLM:
            by_family.setdefault(family, []).append(juror)
    for family, jurors in by_family.items():
        if len(jurors) > 1:
            one_model = len({juror_model(j) for j in jurors}) == 1
            warnings.append(
                f"jurors {_named(jurors)} are all of the {family} family: "
                + ("ways of judging of one model share its blind spots; " if one_model else "")
                + "a jury's strength is jurors from different families"
            )
    tested, named = "unknown", panel.system_under_test
    if panel.system_under_test:
        tested = family_of(panel.system_under_test)
    elif agent is not None and agent.family:
        tested, named = agent.family, agent.name
    # One warning per model: three seats of one model are one judge of that family.
    like_tested: dict[str, list[Juror]] = {}
    for juror in by_family.get(tested, []):
        like_tested.setdefault(juror_model(juror), []).append(juror)
    warnings.extend(
        f"{'jurors' if len(seats) > 1 else 'juror'} {_named(seats)} "
        f"{'are' if len(seats) > 1 else 'is'} of the {tested} family, like the system under "
        f"test ({named}): judges tend to prefer answers like their own"
        for seats in like_tested.values()
    )
    day = today()
    # One lookup per model serves both the alias and the lifecycle warnings.
    looked = look_up(panel, day)
    status_of = {(juror, spec): status for juror, spec, status in looked}
    aliases: dict[str, list[str]] = {}
    local: set[str] = set()
    for juror in panel.jurors:
        for model in (juror.model, *juror.fallbacks):
            model_id = _live_id(model)
            if model_id is None or is_snapshot(model_id):
                continue
            spec = model.name if isinstance(model, JudgeModel) else model
            if model is juror.model and juror.pinned is not None:
                continue  # pinned to its file: the name does not matter
            status = status_of[juror.id, spec]
            if status is None or not status.pinned:
                seats = aliases.setdefault(model_id, [])
                if juror.id not in seats:
                    seats.append(juror.id)
                if pin_refusal(spec) is None:
                    local.add(model_id)
    # One warning per alias, naming every seat that uses it.
    warnings.extend(
        f"{', '.join(seats)}: {model_id} is "
        + (
            "only what its server calls a model file, which it can serve another under; "
            'pin the file with `pinned = "..."` on the juror (`jury doctor` shows what the '
            "server reports)"
            if model_id in local
            else "an alias, not a dated snapshot; it can be re-pointed to another model "
            "without notice (use a dated model ID)"
        )
        for model_id, seats in aliases.items()
    )
    warnings.extend(lifecycle_warnings(panel, day, looked))
    warnings.extend(_logprobs_warnings(panel))
    warnings.extend(_cascade_warnings(panel))
    return warnings


def _cascade_warnings(panel: Panel) -> list[str]:
    """A cascade whose first tier is one juror under a reducer: one vote is never split, so
    its verdict is never unsure and the later tiers are asked only when that vote is missing
    or invalid. Legal, and surely not what a cascade was written for: said, not refused."""
    first = [juror for juror in panel.jurors if juror.tier == 1]
    if panel.tiers < 2 or len(first) != 1 or panel.aggregation == "learned" or panel.quorum:
        return []
    return [
        f"tier 1 is one juror ({first[0].id}): under aggregation = "
        f'"{panel.aggregation}" one vote is never split, so tier 2 is asked only when that '
        "vote is missing or invalid; put two jurors or more in tier 1 (a split escalates), "
        'or use aggregation = "learned" (a low confidence escalates)'
    ]


def _logprobs_warnings(panel: Panel) -> list[str]:
    """A juror that asks for log-probabilities of a model that cannot give them: warned once
    here, and its adapter does not send the ask (so no call fails for it); its votes carry a
    probability only from its samples, if it has several."""
    warnings = []
    for juror in panel.jurors:
        if not juror.logprobs:
            continue
        for model in (juror.model, *juror.fallbacks):
            if _live_id(model) is None:
                continue
            spec = model.name if isinstance(model, JudgeModel) else model
            why = logprobs_refusal(spec)
            if why is not None:
                warnings.append(
                    f"{juror.id}: logprobs = true, but {why}: its votes carry no "
                    "probability from log-probabilities (samples = N gives the share of samples)"
                )
    return warnings
