"""A run's agreement as every report shows it: one computation (the rubric's metrics, the same
resamples, confidence and seed) and one way of writing its figures, shared by `jury agreement`
and the HTML report, so that the two never print different numbers for the same run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from .._errors import ConfigError
from .._verdict import CaseVerdict, Metric
from ..adapters._registry import load_rubric
from ..adapters._rubric import Rubric
from ..cases._case import Case

if TYPE_CHECKING:
    from ..agreement._panel_stats import AgreementSummary
    from ..agreement._people import PeopleAgreement
    from ..agreement._plain import PageAgreement
    from ..agreement._ratings import Estimate
    from ..agreement._seats import Seats

__all__ = [
    "CONFIDENCE",
    "RESAMPLES",
    "SEED",
    "WIDEST",
    "AgreementRow",
    "agreement_rows",
    "estimate_text",
    "manifest_rubric",
    "people_undefined",
    "rubric_metrics",
    "run_agreement",
]

#: Bootstrap resamples of cases for every agreement interval a report shows.
RESAMPLES = 1000
CONFIDENCE = 0.95
SEED = 0
#: The widest cases each metric lists.
WIDEST = 10


def manifest_rubric(manifest: Mapping[str, Any]) -> str | None:
    rubric = manifest.get("rubric")
    if isinstance(rubric, dict):
        rubric = rubric.get("name") or rubric.get("path")
    return rubric if isinstance(rubric, str) else None


def rubric_metrics(
    name: str | Rubric | None, verdicts: Sequence[CaseVerdict], required: bool
) -> tuple[Metric, ...] | None:
    """The rubric's metrics (declared values and levels), or None to infer them from votes.
    `name` is a rubric's name or path, or the rubric itself when it is already loaded."""
    if not name:
        return None
    try:
        rubric = load_rubric(name) if isinstance(name, str) else name
        probe = Case(id=verdicts[0].case_id if verdicts else "-", answer="")
        # A rubric whose metrics depend on the case (points) has none for a probe case:
        # then the metrics are read from the votes.
        return rubric.metrics(probe) or None
    except (ConfigError, ValueError, KeyError):
        if required:
            raise
        return None


def run_agreement(
    verdicts: Sequence[CaseVerdict],
    metrics: Sequence[Metric] | None,
    *,
    labels: Mapping[str, Mapping[str, Any]] | None = None,
    bootstrap: int = RESAMPLES,
    confidence: float = CONFIDENCE,
    seed: int | None = SEED,
    widest: int = WIDEST,
    interval: Literal["percentile", "bca"] = "percentile",
    seats: Seats | None = None,
) -> AgreementSummary:
    from ..agreement._panel_stats import summarize_agreement

    return summarize_agreement(
        verdicts,
        metrics,
        labels=labels,
        bootstrap=bootstrap,
        confidence=confidence,
        seed=seed,
        widest=widest,
        interval=interval,
        seats=seats,
    )


def estimate_text(estimate: Estimate, interval: bool = True, *, why: bool = False) -> str:
    """``0.812 [0.70, 0.93]``, or ``undefined`` (never a 1.0 or 0 in its place), with its
    reason when `why`."""
    if estimate.value is None:
        return f"undefined ({estimate.reason})" if why and estimate.reason else "undefined"
    text = f"{estimate.value:.3f}"
    if interval and estimate.low is not None and estimate.high is not None:
        text += f" [{estimate.low:.2f}, {estimate.high:.2f}]"
    return text


@dataclass(frozen=True, slots=True)
class AgreementRow:
    """One metric's line of the agreement table, as text; `why` says what is undefined."""

    metric: str
    level: str
    alpha: str
    fleiss: str
    ac1: str
    agreement: str
    cases: int
    why: tuple[str, ...]


def agreement_rows(summary: AgreementSummary | PageAgreement) -> list[AgreementRow]:
    """The agreement table: each metric, then the jurors' own pass/fail verdicts, named
    "verdict" as everywhere else (`--metric verdict`, the JSON, the gate's and the undefined
    statistics' lines). `jury agreement` writes it from the summary, a run's page from the
    same figures computed without NumPy (`_plain`)."""
    rows = []
    for result in (*summary.metrics.values(), summary.verdict):
        percent = result.percent_agreement.value
        why = tuple(
            f"{result.metric}: {estimate.statistic} {estimate}"
            for estimate in (result.alpha, result.fleiss_kappa)
            if estimate.value is None
        )
        rows.append(
            AgreementRow(
                metric=result.metric,
                level=result.level,
                alpha=estimate_text(result.alpha),
                fleiss=estimate_text(result.fleiss_kappa, interval=False),
                ac1=estimate_text(result.gwet_ac1, interval=False),
                agreement="-" if percent is None else f"{percent:.1%}",
                cases=result.alpha.units,
                why=why,
            )
        )
    return rows


def people_undefined(people: PeopleAgreement) -> list[str]:
    """Why each undefined statistic of the labellers' table is undefined, one line per
    (statistic, reason) naming the label keys it holds for: with one labeller every
    statistic is undefined for the same reason, said once rather than once a key."""
    keys_of: dict[tuple[str, str], list[str]] = {}
    for key, found in people.keys.items():
        for estimate in (found.cohen_kappa, found.fleiss_kappa, found.alpha):
            if estimate is None or estimate.value is not None:
                continue
            # The column it fills in the people's table (cohen_kappa[linear] is Cohen kappa).
            name = {"cohen": "Cohen kappa", "fleiss": "Fleiss kappa"}.get(
                estimate.statistic.split("_")[0], "alpha"
            )
            keys_of.setdefault((name, estimate.reason or "no reason given"), []).append(key)
    every = len(people.keys) > 1
    return [
        f"{'every label' if every and len(keys) == len(people.keys) else ', '.join(keys)}: "
        f"{name} undefined ({reason})"
        for (name, reason), keys in keys_of.items()
    ]
