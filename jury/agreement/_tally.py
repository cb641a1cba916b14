"""A run's agreement gathered one verdict at a time: each rating kept as three array entries
(case, juror, value) per metric, not the verdicts, then computed exactly as
`summarize_agreement` computes it over the same verdicts in case-ID order."""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Literal

from .._verdict import CaseVerdict, Metric, Score, VoteStatus
from ._panel_stats import (
    AgreementSummary,
    MetricAgreement,
    metric_agreement,
    observed_level,
    stability,
)
from ._ratings import VERDICT, Ratings
from ._reliability import Bootstrap

__all__ = ["AgreementTally"]


class _Column:
    """One metric's ratings: parallel arrays of case index, juror index and value."""

    __slots__ = ("jurors", "units", "values")

    def __init__(self) -> None:
        self.units = array("q")
        self.jurors = array("q")
        self.values: list[Score] = []


class AgreementTally:
    """Add verdicts in any order; `summary` gives what `summarize_agreement` gives for them
    sorted by case ID (without labels)."""

    def __init__(self) -> None:
        self.units: list[str] = []
        self.jurors: dict[str, int] = {}
        #: By metric name; None: the jurors' own pass/fail verdicts.
        self.columns: dict[str | None, _Column] = {}
        #: The votes that kept several samples (stability), slimmed to those votes.
        self.sampled: list[CaseVerdict] = []

    def add(self, verdict: CaseVerdict) -> None:
        unit = len(self.units)
        self.units.append(verdict.case_id)
        for vote in verdict.votes:
            juror = self.jurors.setdefault(vote.juror, len(self.jurors))
            if vote.status is not VoteStatus.VALID:
                continue
            if vote.verdict is not None and vote.verdict.value in ("PASS", "FAIL"):
                self._rate(None, unit, juror, vote.verdict.value)
            for name, value in vote.scores.items():
                self._rate(name, unit, juror, value)
        sampled = tuple(vote for vote in verdict.votes if len(vote.samples) > 1)
        if sampled:
            self.sampled.append(verdict.model_copy(update={"votes": sampled}))

    def _rate(self, name: str | None, unit: int, juror: int, value: Score) -> None:
        column = self.columns.get(name)
        if column is None:
            column = self.columns[name] = _Column()
        column.units.append(unit)
        column.jurors.append(juror)
        column.values.append(value)

    def _metrics(self) -> tuple[Metric, ...]:
        """The metrics as the votes show them, as `infer_metrics` infers them."""
        return tuple(
            Metric(name=name, level=observed_level(column.values))
            for name, column in self.columns.items()
            if name is not None
        )

    def _ratings(self, metric: Metric, order: Sequence[int], raters: Sequence[str]) -> Ratings:
        position = {unit: index for index, unit in enumerate(order)}
        columns = [self.jurors[name] for name in raters]
        where = {juror: index for index, juror in enumerate(columns)}
        rows: list[list[Score | None]] = [[None] * len(raters) for _ in order]
        column = self.columns.get(None if metric is VERDICT else metric.name)
        if column is not None:
            for unit, juror, value in zip(column.units, column.jurors, column.values, strict=True):
                rows[position[unit]][where[juror]] = value
        return Ratings.from_rows(
            rows,
            level=metric.level,
            values=metric.values,
            raters=raters,
            units=[self.units[unit] for unit in order],
            name=metric.name,
        )

    def summary(
        self,
        metrics: Sequence[Metric] | None,
        *,
        bootstrap: int,
        confidence: float,
        seed: int | None,
        widest: int,
        interval: Literal["percentile", "bca"] = "percentile",
    ) -> AgreementSummary:
        boot = Bootstrap(bootstrap, confidence, seed, interval)
        metrics = tuple(metrics) if metrics is not None else self._metrics()
        raters = tuple(sorted(self.jurors))
        order = sorted(range(len(self.units)), key=self.units.__getitem__)

        def one(metric: Metric) -> MetricAgreement:
            ratings = self._ratings(metric, order, raters)
            return metric_agreement(ratings, labels=None, bootstrap=boot, widest=widest)

        sampled = sorted(self.sampled, key=lambda verdict: verdict.case_id)
        return AgreementSummary(
            jurors=raters,
            cases=len(self.units),
            verdict=one(VERDICT),
            metrics={metric.name: one(metric) for metric in metrics},
            stability=stability(sampled, metrics, bootstrap=boot),
            resamples=bootstrap,
            confidence=confidence,
            seed=seed,
        )
