"""The learned jury: votes combined by a model fitted on labelled cases (`jury calibrate --fit`).

A fit file (TOML) holds one learned jury (a `Fit`) per *target*, the label keys the jury learned:
"pass" (the case's verdict) and/or the rubric's metrics (a 1-5 "correctness", a pairwise
"winner"...), one table ``[target.NAME]`` each. A fitted "pass" decides the verdict; otherwise
each fitted metric's learned value takes the place of its median and the rubric's own rule
(thresholds, pass rule) decides, as it does from medians (`Fits`). Each target has one model per
*stage*: the jurors of tier 1, then of tiers 1 and 2, and so on (one stage without a cascade).
A stage's model is a table: each *source* (a juror, or one presentation order of a pairwise
juror, so that position bias is learned rather than ignored) adds, for the value it gave, one
score per class of the target; the class scores, with the intercept, give probabilities by softmax.
Whether the table came from log-odds weights, a stacked logistic regression or Dawid-Skene,
deciding is the same sum.

A stage's *confidence* is its model's probability mapped through the fit's steps: the chance,
estimated on held-out cases, that the verdict agrees with the labels. Below the stage's
threshold the next tier is asked; at the last stage the case is INCONCLUSIVE, with the reason.

The engine's promises hold: a vote that is not readable (invalid, unavailable) is no source at
all, never a fail; fewer readable votes than the quorum decide nothing; sources are keyed by
juror name, so the verdict never depends on the order of the votes; two classes tied for the
top decide nothing. This module is pure Python: deciding imports no numpy.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .._errors import ConfigError
from .._verdict import Score, Verdict, Vote, VoteStatus

if TYPE_CHECKING:
    from ..adapters._rubric import Rubric
    from ..cases._case import Case

__all__ = [
    "PASS_TARGET",
    "SOFT",
    "Fit",
    "FitSource",
    "FitStage",
    "Fits",
    "Prediction",
    "SourceKey",
    "is_soft",
    "load_fit",
    "signals",
    "soft_values",
    "value_key",
    "vote_value",
]

#: The fit file's format: 2 holds a table per target; 1 (one target, at the top) is still read.
FORMAT = 2
#: The target that is the case's own verdict ("FAIL" or "PASS").
PASS_TARGET = "pass"
PASS_CLASSES: tuple[str, ...] = ("FAIL", "PASS")
Model = Literal["weights", "stacked", "dawid-skene"]
#: A source of evidence: a juror, and the presentation order for a pairwise juror's ballots.
SourceKey = tuple[str, str | None]
#: The "order" of a juror's soft vote, a source beside its hard vote: the probability it gave
#: the case passing (`Vote.distribution`, from log-probabilities or its samples), in bins of
#: `SOFT_BIN` spelt by their lower bound ("0.8": 0.8 to 1). Averaging judges' probabilities
#: beats the best judge where majority voting does not (issue 21); a bin keeps the table
#: model, so deciding stays the same sum. For a metric target (a pairwise winner, a 1-5
#: score) the sources are ``soft:<class>``, its probability of each class
#: (`Vote.value_distribution`).
SOFT = "soft"
SOFT_BIN = 0.2

_STRICT = ConfigDict(frozen=True, extra="forbid")


def value_key(value: Score | Verdict) -> str:
    """A vote's value as the fit file spells it (TOML keys are text)."""
    if isinstance(value, Verdict):
        return value.value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


class FitSource(BaseModel):
    """One source's row of a stage's table, and (for the weights model) how it was earned."""

    model_config = _STRICT

    juror: str
    order: str | None = None
    #: The value it gave -> the score it adds to each class (in the fit's class order).
    scores: dict[str, list[float]]
    #: Weights model: log-odds of its smoothed accuracy, the accuracy and the cases rated.
    weight: float | None = None
    accuracy: float | None = None
    rated: int | None = None

    @property
    def key(self) -> SourceKey:
        return (self.juror, self.order)

    @property
    def name(self) -> str:
        return self.juror if self.order is None else f"{self.juror} ({self.order})"


@dataclass(frozen=True, slots=True)
class Prediction:
    """A stage's answer: the most likely class (None when two tie for the top), its
    probability, and the confidence (estimated agreement with the labels)."""

    value: Score | None
    probability: float
    confidence: float


class FitStage(BaseModel):
    """One stage of the learned jury: the jurors asked so far, their table, and when the
    stage's verdict stands."""

    model_config = _STRICT

    jurors: tuple[str, ...] = Field(min_length=1)
    intercept: list[float]
    source: tuple[FitSource, ...] = ()
    #: (model probability, estimated agreement) steps, rising: a probability takes the
    #: agreement of the last step at or below it. Empty: the probability itself.
    confidence: tuple[tuple[float, float], ...] = ()
    #: The confidence a verdict needs here (inf: this stage never decides alone).
    threshold: float = Field(default=0.0, ge=0)
    #: What the threshold stands for, for the reasons ("85 % agreement").
    threshold_means: str = ""
    #: Reported by `jury calibrate`, not used to decide.
    held_out_accuracy: float | None = None
    coverage: float | None = None
    agreement: float | None = None

    def _table(self) -> dict[SourceKey, FitSource]:
        return {s.key: s for s in self.source}

    def predict(self, found: Mapping[SourceKey, str], classes: Sequence[Score]) -> Prediction:
        scores = list(self.intercept)
        table = self._table()
        # Summed in a fixed order, so that not even rounding depends on the order of the votes.
        for key, said in sorted(found.items(), key=lambda item: (item[0][0], item[0][1] or "")):
            row = table.get(key)
            added = row.scores.get(said) if row is not None else None
            if added is not None:
                scores = [a + b for a, b in zip(scores, added, strict=True)]
        top: float = max(scores)
        total = sum(math.exp(s - top) for s in scores)
        probability = 1.0 / total
        leaders = [c for c, s in zip(classes, scores, strict=True) if s == top]
        value = leaders[0] if len(leaders) == 1 else None
        return Prediction(value, probability, self.calibrated(probability))

    def calibrated(self, probability: float) -> float:
        agreement = None
        for bound, estimate in self.confidence:
            if probability >= bound:
                agreement = estimate
        if agreement is None:
            return self.confidence[0][1] if self.confidence else probability
        return agreement


class Fit(BaseModel):
    """The learned jury for one target, one stage per cascade tier."""

    model_config = _STRICT

    target: str
    classes: tuple[str | int | float | bool, ...] = Field(min_length=2)
    model: Model
    rubric: str
    fingerprint: str
    target_agreement: float | None = Field(default=None, gt=0, lt=1)
    risk: float | None = Field(default=None, gt=0, lt=1)
    stage: tuple[FitStage, ...] = Field(min_length=1)
    #: How it was fitted, for the reader (never used to decide).
    about: dict[str, Any] = {}

    def check_panel(self, jurors: Mapping[str, int], rubric: Rubric, source: str) -> None:
        """Refuse a fit that does not match the panel: other jurors, other tiers, another
        rubric, or stages that disagree with each other."""
        if rubric.fingerprint() != self.fingerprint:
            raise ConfigError(
                f"{source}: fitted on the rubric {self.rubric!r} ({self.fingerprint}); this "
                f"panel's is {rubric.name!r} ({rubric.fingerprint()}): calibrate again"
            )
        tiers = max(jurors.values())
        if len(self.stage) != tiers:
            raise ConfigError(
                f"{source}: {len(self.stage)} stage(s) fitted; the panel has {tiers} tier(s)"
            )
        for number, stage in enumerate(self.stage, start=1):
            wanted = sorted(j for j, tier in jurors.items() if tier <= number)
            if sorted(stage.jurors) != wanted:
                raise ConfigError(
                    f"{source}: stage {number} was fitted for jurors "
                    f"{', '.join(sorted(stage.jurors))}; the panel's tiers 1-{number} are "
                    f"{', '.join(wanted)}: calibrate again with this panel"
                )
            for row in stage.source:
                if row.juror not in stage.jurors or any(
                    len(v) != len(self.classes) for v in row.scores.values()
                ):
                    raise ConfigError(f"{source}: stage {number}: source {row.name} is malformed")
            if len(stage.intercept) != len(self.classes):
                raise ConfigError(f"{source}: stage {number}: one intercept per class is needed")


class TargetTable(BaseModel):
    """One target's table in a fit file (``[target.NAME]``)."""

    model_config = _STRICT

    classes: tuple[str | int | float | bool, ...] = Field(min_length=2)
    model: Model
    stage: tuple[FitStage, ...] = Field(min_length=1)
    about: dict[str, Any] = {}


class FitFile(BaseModel):
    """A fit file as written: what every target shares, then a table per target."""

    model_config = _STRICT

    format: Literal[2]
    rubric: str
    fingerprint: str
    target_agreement: float | None = Field(default=None, gt=0, lt=1)
    risk: float | None = Field(default=None, gt=0, lt=1)
    target: dict[str, TargetTable] = Field(min_length=1)
    #: Targets the labels named but `jury calibrate --fit` could not learn, and why.
    skipped: dict[str, str] = {}


class _FirstFormat(Fit):
    """A fit file of format 1: one target, its fields at the top."""

    format: Literal[1]


@dataclass(frozen=True, slots=True)
class Fits:
    """The learned jury of a fit file: one `Fit` per target, for one rubric and one panel.

    A fitted "pass" decides the verdict directly; the fitted metrics then only show their
    learned values. Without it, every fitted metric of the case decides: its learned value
    takes the place of its median and the rubric's rule decides from the metrics, and the
    verdict's confidence is the lowest of theirs (each is that metric's estimated agreement
    with its own labels, so the verdict's is no higher than its least sure input's; it is not
    a certified agreement of the verdict itself).
    """

    fits: tuple[Fit, ...]
    #: Targets the labels named that could not be learned, and why (their medians decide).
    skipped: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.fits:
            raise ValueError("a fit file learns at least one target")

    @classmethod
    def of(cls, fit: Fit | Fits) -> Fits:
        return fit if isinstance(fit, Fits) else cls((fit,))

    @property
    def targets(self) -> tuple[str, ...]:
        return tuple(f.target for f in self.fits)

    @property
    def target_agreement(self) -> float | None:
        return self._leading.target_agreement

    @property
    def risk(self) -> float | None:
        return self._leading.risk

    @property
    def _leading(self) -> Fit:
        """The fit whose guarantee the file states: "pass" when fitted (a metric beside it
        only shows its value and is calibrated for nothing)."""
        return self.get(PASS_TARGET) or self.fits[0]

    def get(self, target: str) -> Fit | None:
        return next((f for f in self.fits if f.target == target), None)

    def skipped_warnings(self, source: str | Path) -> list[str]:
        """What a run using this fit says of the targets it did not learn (`skipped`)."""
        return [
            f"{source}: {target} was not learned ({why}); "
            + (
                "the fitted metrics decide the verdict by the rubric's rule"
                if target == PASS_TARGET
                else "its median decides"
            )
            for target, why in self.skipped.items()
        ]

    def check_panel(self, jurors: Mapping[str, int], rubric: Rubric, source: str) -> None:
        for fit in self.fits:
            fit.check_panel(
                jurors, rubric, source if len(self.fits) == 1 else f"{source} (target {fit.target})"
            )

    def applying(self, rubric: Rubric, case: Case) -> tuple[Fit, ...]:
        """The fits that say something about this case: "pass", and the case's metrics."""
        names = {m.name for m in rubric.metrics(case)} | {PASS_TARGET}
        return tuple(f for f in self.fits if f.target in names)

    def deciding(self, rubric: Rubric, case: Case) -> tuple[Fit, ...]:
        """The fits the verdict comes from: "pass" alone when fitted, else the case's metrics."""
        fitted = self.get(PASS_TARGET)
        return (fitted,) if fitted is not None else self.applying(rubric, case)

    def dump(self) -> dict[str, Any]:
        """The fit file's content (format 2): the shared keys, then a table per target."""
        shared = self._leading.model_dump(
            include={"rubric", "fingerprint", "target_agreement", "risk"}, exclude_none=True
        )
        fields = set(TargetTable.model_fields)
        tables = {f.target: f.model_dump(include=fields, exclude_none=True) for f in self.fits}
        skipped = {"skipped": dict(self.skipped)} if self.skipped else {}
        return {"format": FORMAT, **shared, "target": tables, **skipped}


def load_fit(path: str | Path) -> Fits:
    """Read a fit file (format 2, or the single-target format 1); a bad one raises
    `ConfigError` naming the key."""
    from .._problems import problems, read_toml

    data = read_toml(Path(path), lambda reason: ConfigError(f"{path}: {reason}"))
    schema: type[BaseModel] = _FirstFormat if data.get("format") == 1 else FitFile
    try:
        parsed = schema.model_validate(data)
    except ValidationError as exc:
        key, reason = problems(exc, schema)[0]
        raise ConfigError(f"{path}: {key}: {reason}") from None
    if isinstance(parsed, _FirstFormat):
        return Fits((Fit.model_validate(parsed.model_dump(exclude={"format"})),))
    assert isinstance(parsed, FitFile)
    shared = parsed.model_dump(include={"rubric", "fingerprint", "target_agreement", "risk"})
    return Fits(
        tuple(Fit(target=name, **shared, **dict(table)) for name, table in parsed.target.items()),
        parsed.skipped,
    )


def signals(case: Case, votes: Sequence[Vote], rubric: Rubric, target: str) -> dict[SourceKey, str]:
    """What each source said about the target on this case.

    A pairwise juror's vote keeps the ballot of each presentation order (an abstention too:
    its two orders disagreed, which is what position bias looks like), and each order is a
    source of its own. Any other readable vote is one source. Invalid and unavailable votes
    say nothing: they are no source, never a fail.
    """
    found: dict[SourceKey, str] = {}
    for vote in votes:
        ballots = vote.details.get("ballots")
        if vote.status in (VoteStatus.VALID, VoteStatus.ABSTAINED) and isinstance(ballots, Mapping):
            for order, scores in ballots.items():
                value = vote_value(case, rubric, target, scores, None)
                if value is not None:
                    found[(vote.juror, str(order))] = value
        elif vote.status is VoteStatus.VALID:
            value = vote_value(case, rubric, target, vote.scores, vote.verdict)
            if value is not None:
                found[(vote.juror, None)] = value
        if target == PASS_TARGET:
            soft = soft_value(vote)
            if soft is not None:
                found[(vote.juror, SOFT)] = soft
        elif vote.value_distribution and target in vote.value_distribution:
            # Only a vote that carries the metric's distribution looks the classes up (most
            # carry none, and deciding reads every vote of every case).
            found.update(soft_values(vote, target, _classes_of(case, rubric, target)))
    return found


def is_soft(order: str | None) -> bool:
    """Whether a source's order is a soft vote (a probability bin, never a class)."""
    return order is not None and (order == SOFT or order.startswith(SOFT + ":"))


def _classes_of(case: Case, rubric: Rubric, target: str) -> tuple[str, ...]:
    metric = next((m for m in rubric.metrics(case) if m.name == target), None)
    return () if metric is None else tuple(value_key(v) for v in metric.values)


def _binned(share: float) -> str:
    bins = round(1 / SOFT_BIN)
    return f"{min(math.floor(share * bins), bins - 1) * SOFT_BIN:.1f}"


def soft_values(vote: Vote, target: str, classes: Sequence[str]) -> dict[SourceKey, str]:
    """A valid vote's probability of each class of a metric target, binned: one source
    ``soft:<class>`` per class (one, the last class's, for two classes: the other is its
    complement); nothing without the metric's distribution or its declared values."""
    odds = (vote.value_distribution or {}).get(target)
    if vote.status is not VoteStatus.VALID or not odds or len(classes) < 2:
        return {}
    mass = sum(odds.get(c, 0.0) for c in classes)
    if mass <= 0:
        return {}
    shown = classes[-1:] if len(classes) == 2 else classes
    return {(vote.juror, f"{SOFT}:{c}"): _binned(odds.get(c, 0.0) / mass) for c in shown}


def soft_value(vote: Vote) -> str | None:
    """A valid vote's probability of PASS, binned (`SOFT`); None without a distribution."""
    odds = vote.distribution
    if vote.status is not VoteStatus.VALID or not odds:
        return None
    decided = odds.get("PASS", 0.0) + odds.get("FAIL", 0.0)
    if decided <= 0:
        return None
    # Of the mass that decides: an abstaining alternative says nothing about which side.
    return _binned(odds.get("PASS", 0.0) / decided)


def vote_value(
    case: Case,
    rubric: Rubric,
    target: str,
    scores: Mapping[str, Score],
    verdict: Verdict | None,
) -> str | None:
    """One ballot's (or valid vote's) value of the target, as the fit spells it."""
    if target == PASS_TARGET:
        if verdict is None:
            verdict = rubric.verdict_of(case, scores)
        return None if verdict is Verdict.INCONCLUSIVE else verdict.value
    value = scores.get(target)
    return None if value is None else value_key(value)
