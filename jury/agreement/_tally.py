"""A run's agreement gathered one verdict at a time for its page: each rating kept as three
array entries (case, juror, value) per metric, not the verdicts, then the figures the page
shows computed as `summarize_agreement` computes them over the same verdicts in case-ID
order, without NumPy (`_plain`)."""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from itertools import chain

from .._verdict import CaseVerdict, Metric, Score, VoteStatus
from ._plain import Coded, PageAgreement, cohen_points, figures
from ._values import VERDICT, encode, observed_level

__all__ = ["AgreementTally"]


class _Column:
    """One metric's ratings: parallel arrays of case index, juror index and value."""

    __slots__ = ("jurors", "units", "values")

    def __init__(self) -> None:
        self.units = array("i")
        self.jurors = array("i")
        self.values: list[Score] = []


class AgreementTally:
    """Add verdicts in any order; `page` gives the figures of `summarize_agreement` (without
    labels) for them sorted by case ID that a run's page shows."""

    def __init__(self) -> None:
        self.units: list[str] = []
        self.jurors: dict[str, int] = {}
        #: By metric name; None: the jurors' own pass/fail verdicts.
        self.columns: dict[str | None, _Column] = {}

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

    def _order(self) -> tuple[tuple[str, ...], list[int]]:
        """The jurors sorted, and the cases in case-ID order."""
        return tuple(sorted(self.jurors)), sorted(
            range(len(self.units)), key=self.units.__getitem__
        )

    def _rows(
        self, metric: Metric, order: Sequence[int], raters: Sequence[str]
    ) -> list[list[Score | None]]:
        position = {unit: index for index, unit in enumerate(order)}
        columns = [self.jurors[name] for name in raters]
        where = {juror: index for index, juror in enumerate(columns)}
        rows: list[list[Score | None]] = [[None] * len(raters) for _ in order]
        column = self.columns.get(None if metric is VERDICT else metric.name)
        if column is not None:
            for unit, juror, value in zip(column.units, column.jurors, column.values, strict=True):
                rows[position[unit]][where[juror]] = value
        return rows

    def page(
        self,
        metrics: Sequence[Metric] | None,
        *,
        bootstrap: int,
        confidence: float,
        seed: int | None,
    ) -> PageAgreement:
        """Each metric's and the verdict's alpha (with its interval), Fleiss' kappa, AC1 and
        percent agreement, and the jurors' Cohen's kappas on their verdicts."""
        metrics = tuple(metrics) if metrics is not None else self._metrics()
        raters, order = self._order()

        def coded(metric: Metric) -> Coded:
            codes, domain = encode(
                self._rows(metric, order, raters), metric.values, metric.level, metric.name
            )
            return Coded(metric.name, metric.level, domain, codes)

        verdict = coded(VERDICT)
        pairwise = cohen_points(verdict, raters)
        # One metric's codes at a time: a column per metric, held at once, was 2 MB of a
        # 5,000-case run's peak memory (issue 36).
        found = figures(
            chain((verdict,), map(coded, metrics)),
            resamples=bootstrap,
            confidence=confidence,
            seed=seed,
        )
        return PageAgreement(
            jurors=raters,
            verdict=found[0],
            metrics={figure.metric: figure for figure in found[1:]},
            pairwise=pairwise,
        )
