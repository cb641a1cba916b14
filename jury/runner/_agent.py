"""A run's agent: the system under test called for each case, and its answers kept.

The agent's options (``agent``, ``agent_prompt``; ``agent = "..."`` and the other ``agent_*``
keys of a jury file), judging the answers a run recorded (``answers``), what a run directory
records about its agent, and the refusal of a file with nothing to judge.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .._errors import ConfigError
from ..adapters._agent import Agent
from ..cases._case import Case
from ..panel._agent_spec import AgentSettings, as_agent
from ..panel._panel import Panel
from ..runs._estimate import NO_ANSWER
from ._options import RunOptions

__all__ = [
    "NO_ANSWER",
    "AnswerNotice",
    "agent_for",
    "agent_record",
    "answers_source",
    "refuse_nothing_to_judge",
    "resumed_agent",
    "same_agent",
]

#: Case IDs named in the notice of cases without an answer (the rest are counted).
NAMED = 20


def answers_source(options: RunOptions) -> None:
    """``--answers RUN``: the run's recorded cases are the cases to judge."""
    if not options.answers:
        return
    if options.agent or options.cases or options.resume:
        raise ConfigError("--answers RUN: give neither a cases file, --agent nor --resume")
    run = Path(options.answers)
    if not (run / "cases.jsonl").is_file():
        raise ConfigError(f"--answers {run}: not a run directory (no cases.jsonl)")
    options.cases = str(run / "cases.jsonl")
    options.no_agent = True


def resumed_agent(options: RunOptions) -> None:
    """A run resumed by its directory calls the agent it started with (its spec as given, a
    relative path taken from where the run started)."""
    run = options.resume or (
        options.out if options.out and (Path(options.out) / "manifest.json").exists() else None
    )
    if run is None or options.agent:
        return
    from ..runs._records import require_manifest

    manifest = require_manifest(run)
    recorded = (manifest.get("agent") or {}).get("name")
    if recorded is None or (manifest.get("jury") or {}).get("agent"):
        return  # no agent, or the jury file's (read again from the jury file)
    where, _, _ = recorded.rpartition(":")
    if where.endswith(".py") and not Path(where).is_absolute():
        recorded = str(Path(manifest.get("cwd") or ".") / recorded)
    options.agent = recorded


def settings_of(panel: Panel) -> AgentSettings:
    return AgentSettings(**{name: getattr(panel, name) for name in AgentSettings.model_fields})


def agent_for(options: RunOptions, panel: Panel) -> tuple[Agent | None, AgentSettings]:
    """The agent the options or the jury file name (the options win), resolved before
    anything is judged: a missing file, module or function stops the run here. The options'
    agent may be anything `jury.panel._agent_spec.as_agent` takes (an `Agent`, a function)."""
    settings = settings_of(panel)
    if options.no_agent:
        return None, settings
    if options.agent is not None and not isinstance(options.agent, str):
        return as_agent(options.agent, settings), settings
    spec, base = options.agent, None
    if spec is None and settings.agent is not None:
        spec = settings.agent
        # A jury file's relative paths are its folder's.
        base = Path(options.jury).parent if options.jury else None
    if spec is None:
        if options.agent_prompt:
            raise ConfigError("--agent-prompt: only with an agent (--agent provider/model)")
        return None, settings
    update: dict[str, Any] = {"agent": spec}
    if options.agent_prompt:
        update["agent_prompt"] = options.agent_prompt
    settings = settings.model_copy(update=update)
    return as_agent(spec, settings, base_dir=base), settings


def agent_record(agent: Agent, settings: AgentSettings) -> dict[str, Any]:
    """What a run directory records about its agent (never its headers: they hold keys)."""
    return {
        "name": agent.name,
        "family": agent.family,
        "prompt": settings.agent_prompt,
        "concurrency": settings.agent_concurrency,
        "timeout": settings.agent_timeout,
    }


def same_agent(manifest: dict[str, Any], agent: Agent | None) -> str | None:
    """What changed about the agent since the run started, or None."""
    then = (manifest.get("agent") or {}).get("name")
    now = agent.name if agent is not None else None
    if then == now:
        return None
    return f"the agent ({then or 'none'} -> {now or 'none'})"


def refuse_nothing_to_judge(cases: Iterator[Case]) -> None:
    """Without an agent, a file in which no case has an answer is a usage error: judging it
    would fail every case and pay for nothing. Reads only up to the first answer."""
    for case in cases:
        if case.answer is not None:
            return
    raise ConfigError(NO_ANSWER)


class AnswerNotice:
    """Collects the IDs of cases judged without an answer, for one notice at the end."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.count = 0

    def see(self, case: Case) -> Case:
        if case.answer is None:
            self.count += 1
            if len(self.ids) < NAMED:
                self.ids.append(case.id)
        return case

    def said(self) -> str | None:
        """The notice, or None when every case had an answer."""
        if not self.count:
            return None
        more = f" and {self.count - len(self.ids)} more" if self.count > len(self.ids) else ""
        return (
            f"{self.count} case(s) have no answer and fail answer_present: "
            f"{', '.join(self.ids)}{more}"
        )
