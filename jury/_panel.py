"""Jurors and the panel, and the jury file (TOML) that describes them."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ._batch_settings import BatchSettings
from ._decide import Aggregation, TiePolicy
from ._errors import JuryFileError
from ._limits import ProviderLimits
from ._model import JudgeModel
from .checks._settings import CheckSettings

__all__ = [
    "CompareRules",
    "Gate",
    "Juror",
    "Panel",
    "RetrySettings",
    "load_panel",
]

_STRICT = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)


class Juror(BaseModel):
    """One seat on the panel: a model (``provider/model`` or a `JudgeModel`) and its settings."""

    model_config = _STRICT

    model: str | JudgeModel
    #: How the juror is named in reports; defaults to the model's name.
    name: str | None = None
    weight: float = Field(default=1.0, gt=0)
    #: Samples per case for this juror (overrides the panel's).
    samples: int | None = Field(default=None, ge=1)
    temperature: float | None = Field(default=None, ge=0)
    #: Models to try, in order, when this one is unavailable after its retries.
    fallbacks: tuple[str | JudgeModel, ...] = ()
    #: The model family, when it cannot be inferred from the name.
    family: str | None = None
    #: Through the provider's batch API (True), online (False), or as the panel says (None).
    batch: bool | None = None

    @field_validator("model")
    @classmethod
    def _provider_slash_model(cls, value: str | JudgeModel) -> str | JudgeModel:
        if isinstance(value, str) and ("/" not in value or value.startswith("/")):
            raise ValueError(f"expected 'provider/model', got {value!r}")
        return value

    @property
    def id(self) -> str:
        if self.name:
            return self.name
        return self.model if isinstance(self.model, str) else self.model.name


class RetrySettings(BaseModel):
    """How the engine retries transient failures (exponential backoff with full jitter)."""

    model_config = _STRICT

    #: Attempts per call, the first included.
    attempts: int = Field(default=4, ge=1)
    base_delay: float = Field(default=1.0, ge=0)
    max_delay: float = Field(default=30.0, ge=0)
    #: A server's retry-after longer than this is not waited for: the call gives up instead.
    retry_after_cap: float = Field(default=120.0, ge=0)


class Gate(BaseModel):
    """When a run passes as a release gate."""

    model_config = _STRICT

    #: The share of cases that must pass. Inconclusive cases count as neither.
    min_pass_rate: float = Field(default=1.0, ge=0, le=1)


class CompareRules(BaseModel):
    """How `jury compare` decides whether a change is real, written down before any result.

    A change is called better or worse only when its paired test is significant at
    `significance` and it moves by more than both the noise (the largest movement between
    repeated runs of the same side, or the floor given here) and the minimum effect.
    """

    model_config = _STRICT

    significance: float = Field(default=0.05, gt=0, lt=1)
    #: Smallest change in pass rate that counts (0.05 = five points).
    min_effect: float = Field(default=0.0, ge=0, le=1)
    #: Smallest change in a metric's or the score's mean that counts, in its own units.
    min_score_effect: float = Field(default=0.0, ge=0)
    #: A pass-rate noise floor measured before (used as the noise when no side has repeats).
    noise: float = Field(default=0.0, ge=0, le=1)
    #: The same for metric and score means.
    score_noise: float = Field(default=0.0, ge=0)


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
    aggregation: Aggregation = "median"
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
    gate: Gate = Gate()
    #: The rules `jury compare` applies (the ``[compare]`` table).
    compare: CompareRules = CompareRules()
    #: The deterministic checks run before the judges (the ``[checks]`` table).
    checks: CheckSettings = CheckSettings()
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

    @property
    def effective_quorum(self) -> int:
        return self.quorum if self.quorum is not None else len(self.jurors) // 2 + 1

    def samples_for(self, juror: Juror) -> int:
        return juror.samples if juror.samples is not None else self.samples


def _key_path(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or "(file)"


def panel_from_mapping(data: Mapping[str, Any], source: str = "<jury>") -> Panel:
    """Build a panel from parsed TOML, naming the offending key on any problem."""
    data = dict(data)
    # The TOML spelling of a juror list: [[juror]] tables read better than [[jurors]].
    if "juror" in data:
        if "jurors" in data:
            raise JuryFileError(source, "juror", "give jurors either as 'jurors' or as [[juror]]")
        data["jurors"] = data.pop("juror")
    if "threshold" in data:
        if "thresholds" in data:
            raise JuryFileError(source, "threshold", "give either 'threshold' or 'thresholds'")
        data["thresholds"] = data.pop("threshold")
    try:
        return Panel.model_validate(data)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        loc = tuple(err["loc"])
        # A juror given as a string fails inside the string's union branch: drop that noise.
        loc = tuple(p for p in loc if p not in ("str", "JudgeModel", "is-instance[JudgeModel]"))
        reason = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
        if err["type"] == "missing":
            reason = "missing"
        raise JuryFileError(source, _key_path(loc), reason) from None


def load_panel(path: str | Path) -> Panel:
    """Read a jury file. A rubric given as a relative path is taken from the file's folder."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise JuryFileError(str(path), "(file)", exc.strerror or str(exc)) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise JuryFileError(str(path), "(file)", f"not valid TOML: {exc}") from None
    panel = panel_from_mapping(data, str(path))
    rubric = panel.rubric
    update: dict[str, Any] = {"checks": panel.checks.relative_to(path.parent)}
    if rubric.endswith(".toml") and not os.path.isabs(rubric):
        update["rubric"] = str(path.parent / rubric)
    return panel.model_copy(update=update)
