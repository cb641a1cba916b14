"""Jurors and the panel, and the jury file (TOML) that describes them."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    ValidationError,
    field_validator,
    model_validator,
)

from .._errors import JuryFileError
from .._verdict import TiePolicy
from ..adapters._account import ProviderLimits
from ..checks._settings import CheckSettings
from ._batch_settings import BatchSettings
from ._gate import CompareRules, Gate
from ._juror import Juror

__all__ = [
    "CompareRules",
    "Gate",
    "Juror",
    "Panel",
    "RetrySettings",
    "load_panel",
]

_STRICT = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)


class RetrySettings(BaseModel):
    """How the engine retries transient failures (exponential backoff with full jitter)."""

    model_config = _STRICT

    #: Attempts per call, the first included.
    attempts: int = Field(default=4, ge=1)
    base_delay: float = Field(default=1.0, ge=0)
    max_delay: float = Field(default=30.0, ge=0)
    #: A server's retry-after longer than this is not waited for: the call gives up instead.
    retry_after_cap: float = Field(default=120.0, ge=0)
    #: Seconds one call may spend waiting out rate limits (429s), counted from its first 429.
    #: Rate limits do not use up `attempts`: those are for failures (5xx, timeouts...).
    rate_limit_wait: float = Field(default=300.0, ge=0)
    #: A vote left unavailable by transient errors (5xx, timeouts, 429s past their wait) is
    #: asked once more at the end of the run, when its case's verdict depends on it.
    second_chance: StrictBool = True
    #: Seconds between such a vote's failure and its second asking: an outage of a few
    #: seconds to a minute is over by then, and a long run has usually waited longer anyway.
    cool_down: float = Field(default=30.0, ge=0)


class Panel(BaseModel):
    """The jury: who judges, with which rubric, and how their votes combine."""

    model_config = _STRICT

    jurors: tuple[Juror, ...] = Field(min_length=1)
    #: A built-in rubric's name or a rubric file's path.
    rubric: str = "five-metric"
    #: Override the rubric's pass thresholds: a number for every metric, or per metric.
    thresholds: dict[str, float] = {}
    #: Valid votes a verdict needs; default a majority of the jurors.
    quorum: int | None = Field(default=None, ge=1)
    #: A reducer, or "learned": the jury fitted on labels in the `calibration` file.
    aggregation: Literal["median", "mean", "minimum", "majority", "learned"] = "median"
    #: The fit file `jury calibrate --fit` wrote, for ``aggregation = "learned"``.
    calibration: str | None = None
    #: Selective verdicts: the agreement with the labels that decided cases must reach, with
    #: probability at least 1 - `risk`; a verdict less sure than that is INCONCLUSIVE.
    target_agreement: float | None = Field(default=None, gt=0, lt=1)
    risk: float = Field(default=0.1, gt=0, lt=1)
    ties: TiePolicy = "inconclusive"
    #: A metric whose scores spread this far apart flags disagreement (default: the rubric's).
    disagreement_spread: float | None = Field(default=None, gt=0)
    samples: int = Field(default=1, ge=1)
    temperature: float = Field(default=0.0, ge=0)
    max_tokens: int = Field(default=1024, ge=1)
    #: Times an invalid reply is asked again before the vote is recorded as invalid.
    reasks: int = Field(default=2, ge=0)
    #: Cases judged at once.
    concurrency: int = Field(default=32, ge=1)
    #: Seconds for one attempt of one call, and for all of one case.
    timeout: float = Field(default=60.0, gt=0)
    case_timeout: float | None = Field(default=600.0, gt=0)
    retry: RetrySettings = RetrySettings()
    #: "family": a juror's alternates of a family not already on the panel are tried first;
    #: "listed": in the order the jury file lists them.
    fallback_order: Literal["family", "listed"] = "family"
    providers: dict[str, ProviderLimits] = {}
    #: The model under test (``provider/model``), to warn when a juror shares its family.
    system_under_test: str | None = None
    #: The system under test, called for each case before its checks and jury (``--agent``):
    #: ``file.py:function``, ``module:function``, an ``http(s)://`` endpoint or
    #: ``provider/model``. The keys are `jury.panel._agent_spec.AgentSettings`'s.
    agent: str | None = None
    agent_prompt: str | None = None
    agent_family: str | None = None
    #: Agent calls at once (apart from the judges' limits), and seconds for one.
    agent_concurrency: int = Field(default=8, ge=1)
    agent_timeout: float = Field(default=60.0, gt=0)
    agent_headers: dict[str, str] = {}
    agent_body: dict[str, Any] | None = None
    agent_fields: dict[str, str] = {}
    agent_images: StrictBool = False
    gate: Gate = Gate()
    #: The rules `jury compare` applies (the ``[compare]`` table).
    compare: CompareRules = CompareRules()
    #: The deterministic checks run before the judges (the ``[checks]`` table).
    checks: CheckSettings = CheckSettings()
    #: Where a case's fields are in the cases file (the ``[fields]`` table, ``--map``):
    #: a case field -> a dotted path in each record (``golden_answer = "expected.answer"``).
    fields: dict[str, str] = {}
    #: Judge with a model its provider has retired (refused otherwise: its calls would fail,
    #: or be served by another model at another price).
    allow_retired: StrictBool = False
    #: Provider batch APIs for every juror (the ``[batch]`` table); None: online, unless a
    #: juror says ``batch = true`` or the run is started with ``--batch``.
    batch: BatchSettings | None = None
    #: Where a request that errored or expired inside a batch is tried again.
    batch_fallback: Literal["batch", "online"] = "batch"

    @field_validator("jurors", mode="before")
    @classmethod
    def _jurors_from_strings(cls, value: object) -> object:
        if isinstance(value, (list, tuple)):
            return [{"model": item} if isinstance(item, str) else item for item in value]
        return value

    @field_validator("thresholds", mode="before")
    @classmethod
    def _one_threshold_for_all(cls, value: object) -> object:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return {"*": value}
        return value

    @field_validator("fields")
    @classmethod
    def _fields_of_a_case(cls, value: dict[str, str]) -> dict[str, str]:
        from ..cases import field_map_problems

        found = field_map_problems(value)
        if found:
            raise ValueError("; ".join(found))
        return value

    @model_validator(mode="after")
    def _learned_needs_a_fit(self) -> Panel:
        if (self.aggregation == "learned") != (self.calibration is not None):
            raise ValueError('aggregation = "learned" and calibration = "<fit file>" go together')
        tiers = sorted({juror.tier for juror in self.jurors})
        if tiers != list(range(1, len(tiers) + 1)):
            raise ValueError(f"tiers must run 1, 2, ... without a gap; got {tiers}")
        return self

    @model_validator(mode="after")
    def _one_seat_each(self) -> Panel:
        # A seat's name keys its records, fits and reports: two seats of one name (the same
        # model with the same strategy) would be counted as one juror.
        first: dict[str, int] = {}
        for index, juror in enumerate(self.jurors):
            if juror.id in first:
                raise ValueError(
                    f"jurors[{index}] is the seat {juror.id!r} again (jurors[{first[juror.id]}] "
                    "is the same model with the same strategy); give it another strategy, or "
                    "a 'name' to seat the same model twice"
                )
            first[juror.id] = index
        return self

    @property
    def tiers(self) -> int:
        return max(juror.tier for juror in self.jurors)

    @property
    def effective_quorum(self) -> int:
        return self.quorum if self.quorum is not None else len(self.jurors) // 2 + 1

    def samples_for(self, juror: Juror) -> int:
        return juror.samples if juror.samples is not None else self.samples


def panel_from_mapping(data: Mapping[str, Any], source: str = "<jury>") -> Panel:
    """Build a panel from parsed TOML, naming every offending key on any problem."""
    data = dict(data)
    found: list[tuple[str, str]] = []
    # The TOML spelling of a juror list: [[juror]] tables read better than [[jurors]].
    if "juror" in data:
        if "jurors" in data:
            found.append(("juror", "give jurors either as 'jurors' or as [[juror]]"))
        data["jurors"] = data.pop("juror")
    if "tier" in data:
        data["jurors"] = _tiered_jurors(data, source)
    if "threshold" in data:
        if "thresholds" in data:
            found.append(("threshold", "give either 'threshold' or 'thresholds'"))
        data["thresholds"] = data.pop("threshold")
    try:
        panel = Panel.model_validate(data)
    except ValidationError as exc:
        from .._problems import problems

        found += problems(exc, Panel)
    if found:
        raise JuryFileError(source, found)
    return panel


def _tiered_jurors(data: dict[str, Any], source: str) -> list[Any]:
    """``[[tier]]`` groups, each with its ``jurors``, as jurors with their `tier` set."""
    tiers = data.pop("tier")
    if "jurors" in data:
        raise JuryFileError(source, "tier", "give jurors either in [[tier]] groups or as jurors")
    if not isinstance(tiers, list) or not tiers:
        raise JuryFileError(source, "tier", "expected [[tier]] tables, each with its jurors")
    jurors: list[Any] = []
    for number, group in enumerate(tiers, start=1):
        where = f"tier[{number - 1}]"
        if not isinstance(group, dict) or set(group) != {"jurors"}:
            raise JuryFileError(source, where, "a [[tier]] table holds one key, jurors")
        members = group["jurors"]
        if not isinstance(members, list) or not members:
            raise JuryFileError(source, f"{where}.jurors", "expected a list of jurors")
        for member in members:
            juror = {"model": member} if isinstance(member, str) else member
            if not isinstance(juror, dict) or juror.get("tier", number) != number:
                raise JuryFileError(
                    source, f"{where}.jurors", "a juror of this tier, with no other tier"
                )
            jurors.append({**juror, "tier": number})
    return jurors


def load_panel(path: str | Path) -> Panel:
    """Read a jury file. A rubric given as a relative path is taken from the file's folder."""
    from .._problems import read_toml

    path = Path(path)
    data = read_toml(path, lambda reason: JuryFileError(str(path), "", reason))
    panel = panel_from_mapping(data, str(path))
    rubric = panel.rubric
    update: dict[str, Any] = {"checks": panel.checks.relative_to(path.parent)}
    if rubric.endswith(".toml") and not os.path.isabs(rubric):
        update["rubric"] = str(path.parent / rubric)
    if panel.calibration is not None and not os.path.isabs(panel.calibration):
        update["calibration"] = str(path.parent / panel.calibration)
    panel = panel.model_copy(update=update)
    problem = thresholds_problem(panel)
    if problem is not None:
        raise JuryFileError(str(path), *problem)
    refused = strategy_problems(panel)
    if refused:
        raise JuryFileError(str(path), refused)
    return panel


def strategy_problems(panel: Panel) -> list[tuple[str, str]]:
    """(key, reason) for each seat whose strategy cannot judge with the panel's rubric
    (``rules`` on a rubric that is not pairwise)."""
    if all(juror.strategy == "plain" for juror in panel.jurors):
        return []
    from ..adapters._registry import load_rubric
    from ..adapters._strategy import strategy_named

    rubric = load_rubric(panel.rubric)
    found = []
    for index, juror in enumerate(panel.jurors):
        reason = strategy_named(juror.strategy).refuses(rubric)
        if reason is not None:
            found.append((f"jurors[{index}].strategy", reason))
    return found


def thresholds_problem(panel: Panel) -> tuple[str, str] | None:
    """(key, reason) when the panel's thresholds do not fit its rubric (a threshold off the
    rubric's scale fails every case without a word)."""
    if not panel.thresholds:
        return None
    from ..adapters._registry import load_rubric

    rubric = load_rubric(panel.rubric)
    try:
        rubric.with_thresholds(panel.thresholds)
    except (KeyError, ValueError) as exc:
        key = "threshold" if set(panel.thresholds) == {"*"} else "thresholds"
        return key, str(exc.args[0])
    return None
