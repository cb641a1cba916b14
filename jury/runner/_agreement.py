"""`jury.measure_agreement`: how far a run's jurors agree, or the raters of a table of scores
from elsewhere, and a release gate on it (`jury agreement` is a shell over it).

Krippendorff's alpha per metric at the rubric's level with a bootstrap interval, Fleiss' kappa
on the jurors' pass/fail verdicts, the juror x juror matrix, the jurors that disagree most and
the cases with the widest disagreement; with hand labels (a cases file's, or labels files of
`jury label`), each juror against them and the labellers against each other. The gate
(`fail_under`) fails on an alpha below the bar and never passes an undefined one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .._errors import ConfigError
from ..report._agreement import CONFIDENCE, RESAMPLES, SEED
from ._options import given, select_verdicts, subset_from
from ._result import Run

if TYPE_CHECKING:
    from .._verdict import CaseVerdict, Metric
    from ..agreement._panel_stats import AgreementSummary
    from ..agreement._people import PeopleAgreement

__all__ = ["Agreement", "AgreementOptions", "agreement_options", "measure_agreement"]

EXIT_BELOW = 1
EXIT_UNDEFINED = 3


@dataclass(slots=True)
class AgreementOptions:
    """The options of a measure of agreement, named as `jury agreement`'s flags are."""

    # A table of scores from elsewhere: its level of measurement, layout and columns.
    level: Literal["nominal", "ordinal", "interval", "ratio"] = "nominal"
    layout: Literal["auto", "wide", "long"] = "auto"
    item: str | None = None
    rater: str | None = None
    score: str | None = None
    # A run: the rubric (default: its manifest's), human labels, the metrics shown.
    rubric: str | None = None
    cases: str | None = None
    labels: Sequence[str] | None = None
    metric: Sequence[str] | None = None
    # The gate.
    fail_under: float | None = None
    gate_on: Literal["point", "lower"] = "point"
    # The intervals (as in the HTML report by default) and the report; `seed` is the
    # bootstrap's and the subset's.
    bootstrap: int = RESAMPLES
    confidence: float = CONFIDENCE
    seed: int = SEED
    interval: Literal["percentile", "bca"] = "percentile"
    top: int = 5
    # The subset of a run's cases.
    ids: Sequence[str] | None = None
    category: Sequence[str] | None = None
    sample: int | None = None
    limit: int | None = None

    @classmethod
    def of(cls, namespace: object) -> AgreementOptions:
        """The options a parsed command line holds, the defaults for the rest."""
        return cls(**given(cls, namespace))


@dataclass(frozen=True, slots=True)
class Agreement:
    """What `jury.measure_agreement` found: the `summary` (per metric and on the verdicts),
    the labellers' agreement (`people`, with labels files), and the gate: the metrics whose
    alpha is `below` the bar or `undefined`, and the `exit_code` of `jury agreement` (0
    reached or no bar, 1 below, 3 undefined and none below)."""

    source: str
    summary: AgreementSummary
    #: The rubric the metrics are read with (for a table: what it is a table of).
    rubric: str | None
    people: PeopleAgreement | None = None
    fail_under: float | None = None
    gate_on: str = "point"
    below: tuple[str, ...] = ()
    undefined: tuple[str, ...] = ()
    exit_code: int = 0
    #: What was said while reading (a labels file's skipped lines...).
    warnings: tuple[str, ...] = field(default=())

    @property
    def passed(self) -> bool:
        return self.exit_code == 0

    def to_json(self) -> dict[str, Any]:
        """The summary, the gate and the labellers' agreement as JSON data (`jury agreement
        --json`)."""
        data = self.summary.model_dump(mode="json")
        data["gate"] = {
            "fail_under": self.fail_under,
            "on": self.gate_on,
            "below": list(self.below),
            "undefined": list(self.undefined),
            "exit": self.exit_code,
        }
        if self.people is not None:
            data["people"] = self.people.model_dump(mode="json")
        return data


def measure_agreement(source: str | Path, **options: Any) -> Agreement:
    """The agreement of a recorded run's jurors (`source` a run directory or its
    ``verdicts.jsonl``), or of the raters of a table of scores (a CSV, TSV or JSONL file: one
    column per rater, or item, rater and score columns; `level`, `layout`, `item`, `rater`,
    `score`). The options are `jury agreement`'s flags (`fail_under`, `gate_on`, `metric`,
    `rubric`, `cases`, `labels`, `bootstrap`, `confidence`, `seed`, `interval`, `top`, and a
    subset: `ids`, `category`, `sample`, `limit`). Prints nothing."""
    unknown = sorted(set(options) - set(AgreementOptions.__dataclass_fields__))
    if unknown:
        raise ConfigError(
            f"jury.measure_agreement: unknown option{'s' * (len(unknown) > 1)} {unknown}"
        )
    return agreement_options(str(source), AgreementOptions(**options))


def gate(
    summary: AgreementSummary, bar: float, on: str, metrics: Sequence[str] | None
) -> tuple[int, list[str], list[str]]:
    """(exit code, metrics below the bar, metrics whose alpha is undefined)."""
    below: list[str] = []
    unknown: list[str] = []
    for name, result in summary.all().items():
        if metrics and name not in metrics:
            continue
        alpha = result.alpha
        value = alpha.low if on == "lower" else alpha.value
        if value is None:
            unknown.append(name)
        elif value < bar:
            below.append(name)
    code = EXIT_BELOW if below else EXIT_UNDEFINED if unknown else 0
    return code, below, unknown


#: Resamples each tail of a percentile interval must rest on, at the least: with fewer, its
#: bounds are a few extreme draws (1 resample gave "[0.99, 0.99]" about an alpha of 0.829).
TAIL_RESAMPLES = 5


def _enough_resamples(args: AgreementOptions) -> None:
    if not 0 < args.confidence < 1:
        raise ConfigError(f"--confidence {args.confidence:g}: give a level between 0 and 1 (0.95)")
    tail = (1 - args.confidence) / 2
    least = math.ceil(round(TAIL_RESAMPLES / tail, 6))  # 5 / 0.00005 is not 100,001
    if args.bootstrap < 0 or 0 < args.bootstrap < least:
        raise ConfigError(
            f"--bootstrap {args.bootstrap}: too few resamples for a {100 * args.confidence:.10g}% "
            f"interval (--confidence {args.confidence:g}): each tail would rest on fewer than "
            f"{TAIL_RESAMPLES}; give 0 for no interval, or at least {least}"
        )


def agreement_options(source: str, args: AgreementOptions) -> Agreement:
    """`measure_agreement` with its options gathered (the command builds them from its
    flags)."""
    from ..agreement._seats import Seats
    from ..agreement._table import as_verdicts, is_score_table, metric_of, read_scores
    from ..cases._load import load_cases
    from ..report._agreement import manifest_rubric, rubric_metrics, run_agreement

    if args.gate_on == "lower" and args.bootstrap <= 0:
        raise ConfigError("--gate-on lower needs an interval: give --bootstrap N > 0")
    _enough_resamples(args)
    if args.fail_under is not None and not args.fail_under <= 1:
        # NaN fails the test too, but is no bar above 1: said as what it is.
        why = "not a number" if math.isnan(args.fail_under) else "alpha is at most 1"
        raise ConfigError(f"--fail-under {args.fail_under:g}: {why}; give a bar up to 1")
    if is_score_table(source):
        if args.labels or args.cases or args.rubric:
            raise ConfigError("a table of scores: --labels, --cases and --rubric are for runs")
        ratings = read_scores(
            source,
            level=args.level,
            layout=args.layout,
            item=args.item,
            rater=args.rater,
            score=args.score,
        )
        verdicts = as_verdicts(ratings)
        name: str | None = f"none: a table of {ratings.level} scores"
        metrics: tuple[Metric, ...] | None = (metric_of(ratings),)
    else:
        # In case order, not the order cases finished in: the bootstrap resamples cases, so
        # the same verdicts give the same intervals, however the run (or its shards) went.
        verdicts = sorted(
            select_verdicts(source, subset_from(args)),
            key=lambda verdict: verdict.case_id,
        )
        name = args.rubric or manifest_rubric(Run.read_manifest(source))
        metrics = rubric_metrics(name, verdicts, required=bool(args.rubric))
    if not verdicts:
        raise ConfigError(f"{source}: no verdicts recorded")
    if metrics is not None and args.metric:
        known = {m.name for m in metrics} | {"verdict"}
        unknown = sorted(set(args.metric) - known)
        if unknown:
            raise ConfigError(f"--metric: no metric named {', '.join(unknown)}")
        metrics = tuple(m for m in metrics if m.name in args.metric)
    labels = None
    if args.cases:
        labels = {case.id: case.labels for case in load_cases(args.cases) if case.labels}
    people, warnings = None, list[str]()
    if args.labels:
        people, majority, warnings = _people(source, args, name, verdicts)
        labels = labels or {}
        for case_id, label in majority.items():
            labels[case_id] = {**labels.get(case_id, {}), **label}
    summary = run_agreement(
        verdicts,
        metrics,
        labels=labels,
        bootstrap=args.bootstrap,
        confidence=args.confidence,
        seed=args.seed,
        widest=args.top,
        interval=args.interval,
        # Which seats share a model, as the run recorded it.
        seats=Seats.of_manifest(Run.read_manifest(source), verdicts),
    )
    if metrics is None and args.metric:
        summary = summary.model_copy(
            update={"metrics": {k: v for k, v in summary.metrics.items() if k in args.metric}}
        )
    code, below, undefined = 0, list[str](), list[str]()
    if args.fail_under is not None:
        code, below, undefined = gate(summary, args.fail_under, args.gate_on, args.metric)
    return Agreement(
        source=source,
        summary=summary,
        rubric=name,
        people=people,
        fail_under=args.fail_under,
        gate_on=args.gate_on,
        below=tuple(below),
        undefined=tuple(undefined),
        exit_code=code,
        warnings=tuple(warnings),
    )


def _people(
    source: str, args: AgreementOptions, rubric_name: str | None, verdicts: Sequence[CaseVerdict]
) -> tuple[PeopleAgreement, dict[str, dict[str, Any]], list[str]]:
    """The labellers' agreement, their majority label on each case, and the warnings."""
    from ..adapters._registry import load_rubric
    from ..agreement._people import people_agreement
    from ..agreement._reliability import Bootstrap
    from ..runs import label_fields, load_labels

    assert args.labels is not None
    if not rubric_name:
        raise ConfigError("--labels: the run's manifest names no rubric; give --rubric")
    rubric = load_rubric(rubric_name)
    cases = {case.id: case for case in Run(Path(source)).cases()}
    found, warnings = load_labels(args.labels, cases, rubric)
    if not found:
        raise ConfigError(f"--labels: no label in {', '.join(args.labels)}")
    metrics = {m.name: m for case_id in found for m in label_fields(rubric, cases[case_id])}
    people = people_agreement(
        found,
        metrics,
        verdicts,
        bootstrap=Bootstrap(args.bootstrap, args.confidence, args.seed, args.interval),
    )
    return people, people.majority, list(warnings)
