"""Agreement of a panel: juror x juror, each juror against the rest and against human labels,
how independent the jurors' errors are, how stable each juror is across its samples, and the
run-level summary that reports render."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from .._verdict import CaseVerdict, Score, VoteStatus
from ..adapters._rubric import Level, Metric
from ._ratings import Ratings
from ._reliability import (
    Bootstrap,
    Convention,
    Weights,
    _as_bootstrap,
    _estimate,
    cohen_kappa,
    default_weights,
    fleiss_kappa,
    gwet_ac1,
    identical_share,
    krippendorff_alpha,
    percent_agreement,
    unit_disagreement,
)
from ._seat_errors import SeatErrors, seat_errors
from ._values import VERDICT, Estimate, observed_level, undefined

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from ._seats import Seats

__all__ = [
    "AgreementSummary",
    "CaseSpread",
    "EffectiveJudges",
    "JurorAgreement",
    "JurorStability",
    "LabelAgreement",
    "MetricAgreement",
    "PairwiseMatrix",
    "effective_judges",
    "juror_agreement",
    "label_agreement",
    "pairwise",
    "stability",
    "summarize_agreement",
]

_MODEL = ConfigDict(frozen=True)

#: The column that holds human labels when they are set beside the jurors.
HUMAN = "(human)"

Statistic = Literal["cohen", "alpha", "agreement"]


# --- juror x juror ----------------------------------------------------------------------------


class PairwiseMatrix(BaseModel):
    """One statistic for every pair of raters (symmetric; the diagonal is left out)."""

    model_config = _MODEL

    statistic: str
    raters: tuple[str, ...]
    #: ``cells[a][b]`` for a != b.
    cells: dict[str, dict[str, Estimate]]

    def get(self, a: str, b: str) -> Estimate:
        return self.cells[a][b]

    def mean(self, rater: str) -> float | None:
        """The mean of the rater's defined cells (Light's 1971 mean of pairwise kappas)."""
        values = [e.value for e in self.cells[rater].values() if e.value is not None]
        return float(np.mean(values)) if values else None


def pairwise(
    ratings: Ratings,
    *,
    statistic: Statistic = "cohen",
    weights: Weights | Literal["auto"] = "auto",
    convention: Convention = "declared",
    bootstrap: Bootstrap | int | None = None,
    seed: int | None = 0,
) -> PairwiseMatrix:
    """Every pair of raters compared on the units both rated.

    ``"cohen"``: Cohen's kappa, weighted to fit the level by default (none for nominal, linear
    for ordinal, quadratic for interval and ratio); ``"alpha"``: Krippendorff's alpha at the
    ratings' level; ``"agreement"``: percent agreement.
    """
    boot = _as_bootstrap(bootstrap, seed)
    chosen = default_weights(ratings) if weights == "auto" else weights
    cells: dict[str, dict[str, Estimate]] = {r: {} for r in ratings.raters}
    for i, a in enumerate(ratings.raters):
        for b in ratings.raters[i + 1 :]:
            pair = ratings.select([a, b])
            if statistic == "cohen":
                estimate = cohen_kappa(pair, weights=chosen, convention=convention, bootstrap=boot)
            elif statistic == "alpha":
                estimate = krippendorff_alpha(pair, bootstrap=boot)
            else:
                estimate = percent_agreement(pair, bootstrap=boot)
            cells[a][b] = cells[b][a] = estimate
    name = {
        "cohen": "cohen_kappa" + (f"[{chosen}]" if chosen else ""),
        "alpha": f"krippendorff_alpha[{ratings.level}]",
        "agreement": "percent_agreement",
    }[statistic]
    return PairwiseMatrix(statistic=name, raters=ratings.raters, cells=cells)


# --- each juror against the panel -------------------------------------------------------------


class JurorAgreement(BaseModel):
    """How one juror agrees with the rest of the panel."""

    model_config = _MODEL

    juror: str
    #: Cases on which the juror gave a rating.
    rated: int
    #: Mean of its pairwise statistic with each other juror.
    mean_pairwise: float | None
    #: The panel's alpha with this juror left out; above the panel's alpha, the juror lowers
    #: agreement.
    alpha_without: Estimate


def juror_agreement(
    ratings: Ratings,
    matrix: PairwiseMatrix,
    *,
    bootstrap: Bootstrap | int | None = None,
    seed: int | None = 0,
) -> tuple[JurorAgreement, ...]:
    """Each juror against the rest, the one that agrees least with the panel first."""
    boot = _as_bootstrap(bootstrap, seed)
    out = []
    for juror in ratings.raters:
        column = ratings.raters.index(juror)
        if len(ratings.raters) > 2:
            without = krippendorff_alpha(ratings.without(juror), bootstrap=boot)
        else:
            without = undefined(
                f"krippendorff_alpha[{ratings.level}]", "one juror left: nothing to agree with"
            )
        out.append(
            JurorAgreement(
                juror=juror,
                rated=int((ratings.codes[:, column] >= 0).sum()),
                mean_pairwise=matrix.mean(juror),
                alpha_without=without,
            )
        )
    return tuple(
        sorted(
            out,
            key=lambda j: (j.mean_pairwise is None, j.mean_pairwise or 0.0, j.juror),
        )
    )


# --- against human labels ---------------------------------------------------------------------


class EffectiveJudges(BaseModel):
    """How many independent judges the panel is worth, judging by its errors against labels.

    With m jurors whose errors have mean pairwise correlation r, the variance of their mean
    error is that of m / (1 + (m - 1) r) independent jurors: Kish's design effect
    deff = 1 + (m - 1) r (Kish, L. 1965, Survey Sampling, Wiley, chapter 5, with the
    intraclass correlation as r). A panel of nine whose errors correlate at 0.5 is worth
    9 / 5 = 1.8 judges.
    """

    model_config = _MODEL

    jurors: int
    #: Mean over juror pairs of the correlation of their errors (Pearson, on cases both rated).
    mean_error_correlation: Estimate
    effective: Estimate
    #: Juror pairs whose error correlation is defined (both errors vary on shared cases).
    pairs: int
    #: The distinct models and families the jurors (seats) judge with, when the seats' models
    #: are known (`jury.agreement._seats`); None when not. Three seats of one model are one
    #: model asked three ways: how independent their errors are is `same_model`.
    models: int | None = None
    families: int | None = None
    #: The mean error correlation over pairs of seats of one model, and of different models
    #: (undefined where no such pair has a defined correlation).
    same_model: Estimate | None = None
    other_models: Estimate | None = None


class LabelAgreement(BaseModel):
    """The jurors against human labels (gold)."""

    model_config = _MODEL

    labelled: int
    #: Per juror: chance-corrected agreement with the labels (kappa, weighted to fit the level).
    kappa: dict[str, Estimate]
    #: Per juror: share of cases where its rating equals the label.
    accuracy: dict[str, Estimate]
    effective: EffectiveJudges
    #: Each pair of seats' error correlation, and the seats that add little.
    errors: SeatErrors | None = None


def with_labels(ratings: Ratings, labels: Mapping[str, Score]) -> Ratings:
    """The ratings with one more rater, `HUMAN`, holding each unit's label (missing when the
    unit has none)."""
    rows = [
        [*row, labels.get(unit)] for unit, row in zip(ratings.units, ratings.rows(), strict=True)
    ]
    return Ratings.from_rows(
        rows,
        level=ratings.level,
        values=ratings.values if ratings.declared else (),
        raters=[*ratings.raters, HUMAN],
        units=ratings.units,
        name=ratings.name,
    )


def _errors(ratings: Ratings) -> NDArray[np.float64]:
    """Each juror's error against the `HUMAN` column (NaN where either is missing): a 0/1
    miss at the nominal level, the signed distance in scale steps (ordinal) or in value
    (interval, ratio)."""
    codes = ratings.codes
    gold = codes[:, -1]
    jurors = codes[:, :-1]
    if ratings.level == "nominal":
        errors = (jurors != gold[:, None]).astype(np.float64)
    else:
        position = (
            np.arange(len(ratings.values), dtype=np.float64)
            if ratings.level == "ordinal"
            else ratings.numeric()
        )
        errors = position[np.clip(jurors, 0, None)] - position[np.clip(gold, 0, None)][:, None]
    missing = (jurors < 0) | (gold[:, None] < 0)
    return np.where(missing, np.nan, errors)


def effective_judges(
    ratings: Ratings,
    labels: Mapping[str, Score],
    *,
    bootstrap: Bootstrap | int | None = None,
    seed: int | None = 0,
    seats: Seats | None = None,
) -> EffectiveJudges:
    """The effective number of independent judges (see `EffectiveJudges`).

    Pairs whose errors do not vary on their shared cases (a juror never, or always, wrong
    there) have no correlation and are left out of the mean; the count used is `pairs`.
    With `seats` (which model each rater judges with), the models and families are counted
    and the mean error correlation is also given within and between models.
    """
    boot = _as_bootstrap(bootstrap, seed)
    jurors = len(ratings.raters)
    errors = _errors(with_labels(ratings, labels))
    pairs = [(a, b) for a in range(jurors) for b in range(a + 1, jurors)]
    names = ratings.raters
    shared = np.array(
        [seats.same_model(names[a], names[b]) for a, b in pairs] if seats is not None else [],
        dtype=bool,
    )
    known: dict[str, Any] = {}
    if seats is not None:
        known = {"models": seats.models(names), "families": seats.families(names)}
    blocks = []
    for a, b in pairs:
        ea, eb = errors[:, a], errors[:, b]
        both = ~(np.isnan(ea) | np.isnan(eb))
        ea, eb = np.where(both, ea, 0.0), np.where(both, eb, 0.0)
        blocks.append(np.column_stack([both.astype(np.float64), ea, eb, ea**2, eb**2, ea * eb]))
    keep = (
        np.any(np.column_stack([block[:, 0] for block in blocks]) > 0, axis=1)
        if blocks
        else np.zeros(len(errors), dtype=bool)
    )
    units = int(keep.sum())
    name_r, name_n = "mean_error_correlation", "effective_judges"
    if jurors < 2 or units == 0:
        reason = (
            "fewer than two jurors"
            if jurors < 2
            else "no labelled case has ratings from two jurors"
        )
        return EffectiveJudges(
            jurors=jurors,
            mean_error_correlation=undefined(name_r, reason),
            effective=undefined(name_n, reason),
            pairs=0,
            **known,
            **(
                {
                    "same_model": undefined(f"{name_r}[same model]", reason),
                    "other_models": undefined(f"{name_r}[other models]", reason),
                }
                if seats is not None
                else {}
            ),
        )
    per_unit = np.hstack(blocks)[keep]

    def correlations(sums: NDArray[np.float64]) -> NDArray[np.float64]:
        n, sa, sb, saa, sbb, sab = (sums[:, k::6] for k in range(6))
        with np.errstate(divide="ignore", invalid="ignore"):
            cov = sab - sa * sb / n
            var_a, var_b = saa - sa**2 / n, sbb - sb**2 / n
            r = cov / np.sqrt(var_a * var_b)
        flat = (var_a <= 1e-12 * np.maximum(saa, 1)) | (var_b <= 1e-12 * np.maximum(sbb, 1))
        return np.where(flat | (n < 2), np.nan, r)

    def mean_r(
        sums: NDArray[np.float64], only: NDArray[np.bool_] | None = None
    ) -> NDArray[np.float64]:
        r = correlations(sums)
        if only is not None:
            r = r[:, only]
        count = (~np.isnan(r)).sum(axis=1)
        total = np.nansum(r, axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(count > 0, total / count, np.nan)

    def effective(sums: NDArray[np.float64]) -> NDArray[np.float64]:
        deff = 1 + (jurors - 1) * mean_r(sums)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(deff > 0, jurors / deff, np.nan)

    total = per_unit.sum(axis=0, keepdims=True)
    defined_pairs = int((~np.isnan(correlations(total))).sum())
    no_pairs = "no pair of jurors has errors that vary on cases both rated"
    if seats is not None:
        for key, only, said, which, none in (
            ("same_model", shared, "same model", "one model", "no two seats share a model"),
            ("other_models", ~shared, "other models", "different models", "one model only"),
        ):
            statistic = f"{name_r}[{said}]"
            if not only.any():
                known[key] = undefined(statistic, none)
                continue
            flat = f"no pair of seats of {which} has errors that vary on cases both rated"
            known[key] = _estimate(
                statistic,
                per_unit,
                partial(mean_r, only=only),
                units,
                boot,
                lambda _, flat=flat: flat,  # type: ignore[misc]
            )
    return EffectiveJudges(
        jurors=jurors,
        mean_error_correlation=_estimate(name_r, per_unit, mean_r, units, boot, lambda _: no_pairs),
        effective=_estimate(
            name_n,
            per_unit,
            effective,
            units,
            boot,
            lambda _: (
                no_pairs
                if defined_pairs == 0
                else f"mean error correlation at or below -1/{jurors - 1}"
            ),
        ),
        pairs=defined_pairs,
        **known,
    )


def label_agreement(
    ratings: Ratings,
    labels: Mapping[str, Score],
    *,
    weights: Weights | Literal["auto"] = "auto",
    bootstrap: Bootstrap | int | None = None,
    seed: int | None = 0,
    seats: Seats | None = None,
    besides: Sequence[str] = (),
) -> LabelAgreement:
    """Each juror against the human labels, the panel's effective number of judges and the
    error correlation of each pair of seats. Raters in `besides` (the panel's own verdict,
    reported beside its seats) have a kappa and an accuracy but are no seat: they are left out
    of the effective number and of the error correlations."""
    boot = _as_bootstrap(bootstrap, seed)
    both = with_labels(ratings, labels)
    chosen = default_weights(ratings) if weights == "auto" else weights
    kappa: dict[str, Estimate] = {}
    accuracy: dict[str, Estimate] = {}
    for juror in ratings.raters:
        pair = both.select([juror, HUMAN])
        kappa[juror] = cohen_kappa(pair, weights=chosen, bootstrap=boot)
        accuracy[juror] = percent_agreement(pair, bootstrap=boot)
    only_seats = ratings
    for other in besides:
        if other in only_seats.raters:
            only_seats = only_seats.without(other)
    return LabelAgreement(
        labelled=int((both.codes[:, -1] >= 0).sum()),
        kappa=kappa,
        accuracy=accuracy,
        effective=effective_judges(only_seats, labels, bootstrap=boot, seats=seats),
        errors=seat_errors(both, seats, besides=besides),
    )


# --- stability across samples -----------------------------------------------------------------


class JurorStability(BaseModel):
    """How one juror agrees with itself across repeated samples of the same case."""

    model_config = _MODEL

    juror: str
    #: Cases on which it kept two or more samples.
    cases: int
    samples: int
    #: Share of cases whose samples all gave the same verdict.
    identical_verdicts: Estimate
    #: Per metric: share of cases whose samples all gave the same value.
    identical: dict[str, Estimate]
    #: Per metric: Krippendorff's alpha with the samples as raters (test-retest reliability).
    alpha: dict[str, Estimate]


def stability(
    verdicts: Iterable[CaseVerdict],
    metrics: Sequence[Metric],
    *,
    bootstrap: Bootstrap | int | None = None,
    seed: int | None = 0,
) -> tuple[JurorStability, ...]:
    """Each juror's stability, for jurors that kept samples (``samples > 1``)."""
    boot = _as_bootstrap(bootstrap, seed)
    verdicts = list(verdicts)
    jurors = sorted({v.juror for c in verdicts for v in c.votes if len(v.samples) > 1})
    out = []
    for juror in jurors:
        by_verdict = Ratings.from_samples(verdicts, VERDICT, juror)
        identical = {}
        alpha = {}
        for metric in metrics:
            sampled = Ratings.from_samples(verdicts, metric, juror)
            identical[metric.name] = identical_share(sampled, bootstrap=boot)
            alpha[metric.name] = krippendorff_alpha(sampled, bootstrap=boot)
        out.append(
            JurorStability(
                juror=juror,
                cases=len(by_verdict.units),
                samples=len(by_verdict.raters),
                identical_verdicts=identical_share(by_verdict, bootstrap=boot),
                identical=identical,
                alpha=alpha,
            )
        )
    return tuple(out)


# --- the run-level summary --------------------------------------------------------------------


class CaseSpread(BaseModel):
    """A case on which the jurors disagree, and by how much (1 = as much as chance)."""

    model_config = _MODEL

    case_id: str
    disagreement: float
    ratings: dict[str, Score | None]


class MetricAgreement(BaseModel):
    """Everything about one metric's agreement (or the jurors' pass/fail verdicts)."""

    model_config = _MODEL

    metric: str
    level: Level
    values: tuple[Score, ...]
    cases: int
    alpha: Estimate
    fleiss_kappa: Estimate
    gwet_ac1: Estimate
    percent_agreement: Estimate
    #: Point estimates with their case counts (`pairwise` gives intervals when asked).
    pairwise: PairwiseMatrix
    #: The juror that agrees least with the panel first (point estimates).
    jurors: tuple[JurorAgreement, ...]
    #: The cases with the widest disagreement, widest first.
    widest: tuple[CaseSpread, ...]
    labels: LabelAgreement | None = None


class AgreementSummary(BaseModel):
    """Agreement of a run's jurors: per metric, on pass/fail, and each juror's stability."""

    model_config = _MODEL

    jurors: tuple[str, ...]
    cases: int
    #: The jurors' own PASS/FAIL verdicts (an INCONCLUSIVE juror verdict is missing).
    verdict: MetricAgreement
    metrics: dict[str, MetricAgreement]
    stability: tuple[JurorStability, ...] = ()
    resamples: int = 0
    confidence: float = 0.95
    seed: int | None = 0

    def all(self) -> dict[str, MetricAgreement]:
        """Every metric and the verdict, by name."""
        return {**self.metrics, VERDICT.name: self.verdict}


def metric_agreement(
    ratings: Ratings,
    *,
    labels: Mapping[str, Score] | None = None,
    bootstrap: Bootstrap | int | None = None,
    seed: int | None = 0,
    widest: int = 10,
    seats: Seats | None = None,
) -> MetricAgreement:
    boot = _as_bootstrap(bootstrap, seed)
    # The matrix and the leave-one-out alphas are point estimates (with their case counts):
    # intervals on every cell would multiply the bootstrap's cost by the number of pairs.
    matrix = pairwise(ratings)
    spread = unit_disagreement(ratings)
    order = sorted(
        (i for i in range(len(spread)) if not np.isnan(spread[i]) and spread[i] > 0),
        key=lambda i: (-spread[i], ratings.units[i]),
    )[:widest]
    rows = ratings.rows()
    return MetricAgreement(
        metric=ratings.name,
        level=ratings.level,
        values=ratings.values,
        cases=len(ratings.units),
        alpha=krippendorff_alpha(ratings, bootstrap=boot),
        fleiss_kappa=fleiss_kappa(ratings, bootstrap=boot),
        gwet_ac1=gwet_ac1(ratings, bootstrap=boot),
        percent_agreement=percent_agreement(ratings, bootstrap=boot),
        pairwise=matrix,
        jurors=juror_agreement(ratings, matrix),
        widest=tuple(
            CaseSpread(
                case_id=ratings.units[i],
                disagreement=float(spread[i]),
                ratings=dict(zip(ratings.raters, rows[i], strict=True)),
            )
            for i in order
        ),
        labels=label_agreement(ratings, labels, bootstrap=boot, seats=seats) if labels else None,
    )


def infer_metrics(verdicts: Iterable[CaseVerdict]) -> tuple[Metric, ...]:
    """Metrics as the votes show them, when the rubric is not at hand: booleans and text are
    nominal, integers ordinal (on the values observed), other numbers interval."""
    seen: dict[str, list[Score]] = {}
    for verdict in verdicts:
        for vote in verdict.votes:
            if vote.status is VoteStatus.VALID:
                for name, value in vote.scores.items():
                    seen.setdefault(name, []).append(value)
    return tuple(Metric(name=name, level=observed_level(values)) for name, values in seen.items())


def _label_of(labels: Mapping[str, Any], metric: Metric) -> Score | None:
    """A case's label for `metric`; for the verdict, ``verdict`` (PASS/FAIL) or ``pass``."""
    if metric == VERDICT:
        if "verdict" in labels:
            return str(labels["verdict"]).upper()
        if isinstance(labels.get("pass"), bool):
            return "PASS" if labels["pass"] else "FAIL"
        return None
    value = labels.get(metric.name)
    return value if isinstance(value, (int, float, str, bool)) else None


def summarize_agreement(
    verdicts: Iterable[CaseVerdict],
    metrics: Sequence[Metric] | None = None,
    *,
    labels: Mapping[str, Mapping[str, Any]] | None = None,
    bootstrap: int = 1000,
    confidence: float = 0.95,
    seed: int | None = 0,
    widest: int = 10,
    interval: Literal["percentile", "bca"] = "percentile",
    seats: Seats | None = None,
) -> AgreementSummary:
    """The agreement of a run's jurors, for reports: per metric (alpha at the metric's level,
    Fleiss' kappa, AC1, percent agreement, the juror x juror matrix, each juror against the
    panel, the widest cases), on the jurors' pass/fail verdicts, against human labels when
    `labels` (case ID -> ``Case.labels``) are given, and each juror's stability across samples.

    `metrics` are the rubric's (declared values and levels); left out, they are inferred from
    the votes (`infer_metrics`). `seats` says which model each juror (seat) judges with: the
    effective number of judges then counts models and families, and each pair of seats'
    error correlation says whether they share a model.
    """
    verdicts = list(verdicts)
    boot = Bootstrap(bootstrap, confidence, seed, interval)
    metrics = tuple(metrics) if metrics is not None else infer_metrics(verdicts)
    jurors = tuple(sorted({v.juror for c in verdicts for v in c.votes}))

    def one(metric: Metric) -> MetricAgreement:
        ratings = Ratings.from_verdicts(verdicts, metric, jurors=jurors)
        gold = None
        if labels:
            gold = {
                case: value
                for case, given in labels.items()
                if (value := _label_of(given, metric)) is not None
            }
        return metric_agreement(ratings, labels=gold, bootstrap=boot, widest=widest, seats=seats)

    return AgreementSummary(
        jurors=jurors,
        cases=len(verdicts),
        verdict=one(VERDICT),
        metrics={metric.name: one(metric) for metric in metrics},
        stability=stability(verdicts, metrics, bootstrap=boot),
        resamples=bootstrap,
        confidence=confidence,
        seed=seed,
    )
