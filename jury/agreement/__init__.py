"""How far the judges agree: chance-corrected agreement that a statistician would sign.

Ratings come from verdicts: for each case (unit) and juror (rater), ``vote.scores[metric]`` of
a valid vote. Any other vote status is a *missing* rating, never a zero; every statistic here
is defined on incomplete data. A statistic that cannot be computed (no variation, no case with
two ratings) is *undefined*, with the reason, never 1.0 or 0::

    from jury.agreement import Ratings, krippendorff_alpha, summarize_agreement

    ratings = Ratings.from_verdicts(verdicts, metric)     # metric: a rubric Metric
    alpha = krippendorff_alpha(ratings, bootstrap=1000)    # Estimate: value or reason, interval
    summary = summarize_agreement(verdicts, rubric_metrics, labels=case_labels)

    scores = read_scores("ratings.csv", level="ordinal")   # a table of scores from elsewhere
    alpha = krippendorff_alpha(scores)

Conventions
-----------
- The level of measurement follows the rubric's metric (``Metric.level``): a 1-5 scale is
  ordinal, pass/fail nominal, a points score interval. `Ratings.with_level` overrides it.
- Weighted kappa measures distances on the rubric's *declared* scale: on 1-5, 2 and 4 are
  two steps apart even if nobody used 3. ``convention="observed"`` uses only the levels in
  the data (scikit-learn's ``cohen_kappa_score`` and most other tools).
- Gwet's AC1 counts q over the declared scale. With every rating one value it is undefined,
  as every coefficient here (Gwet's formula would give 1: no variation, nothing to agree on).
- Ratings: NaN (of any float type) is missing; an infinite rating, and a rating off a declared
  scale (7 on 1-5, "MAYBE" on FAIL/PASS), raise `ValueError`, never a new category.
- Fleiss' kappa and AC1 with missing ratings follow Gwet (2014): agreement over cases with
  two or more ratings, prevalence over every rated case.
- A pass rate's interval (`proportion_interval`, the gate's) is Wilson's score interval or
  Clopper-Pearson's, as SciPy's ``binomtest(k, n).proportion_ci`` gives them.
- Agreement intervals are percentile bootstraps over cases (units), with a fixed default seed
  so that the same run gives the same interval; ``Bootstrap(method="bca")`` (``jury agreement
  --interval bca``) gives bias-corrected and accelerated ones, which cover better on small
  samples (coverage measured in ``benchmarks/bootstrap_coverage.py``).

References: Krippendorff (2011) "Computing Krippendorff's Alpha-Reliability"; Cohen (1960,
1968); Fleiss (1971); Gwet (2008, 2014); Light (1971) for the mean of pairwise kappas; Kish
(1965) for the design effect behind the effective number of judges.
"""

import importlib
from types import FunctionType
from typing import TYPE_CHECKING, Any

from ._values import VERDICT, Estimate

if TYPE_CHECKING:
    from ..decide._proportion import Interval, proportion_interval
    from ._calibration import GoldCheck, LabelRatings
    from ._changes import CaseChange, ChangeKind, CostComparison
    from ._compare import Comparison, Quantity
    from ._panel_stats import (
        AgreementSummary,
        CaseSpread,
        EffectiveJudges,
        JurorAgreement,
        JurorStability,
        LabelAgreement,
        MetricAgreement,
        PairwiseMatrix,
        effective_judges,
        infer_metrics,
        juror_agreement,
        label_agreement,
        pairwise,
        stability,
        summarize_agreement,
    )
    from ._people import KeyAgreement, PeopleAgreement
    from ._ratings import Ratings
    from ._reliability import (
        Bootstrap,
        cohen_kappa,
        fleiss_kappa,
        gwet_ac1,
        identical_share,
        krippendorff_alpha,
        percent_agreement,
        unit_disagreement,
    )
    from ._table import as_verdicts, metric_of, read_scores

__all__ = [
    "VERDICT",
    "AgreementSummary",
    "Bootstrap",
    "CaseChange",
    "CaseSpread",
    "ChangeKind",
    "Comparison",
    "CostComparison",
    "EffectiveJudges",
    "Estimate",
    "GoldCheck",
    "Interval",
    "JurorAgreement",
    "JurorStability",
    "KeyAgreement",
    "LabelAgreement",
    "LabelRatings",
    "MetricAgreement",
    "PairwiseMatrix",
    "PeopleAgreement",
    "Quantity",
    "Ratings",
    "as_verdicts",
    "cohen_kappa",
    "effective_judges",
    "fleiss_kappa",
    "gwet_ac1",
    "identical_share",
    "infer_metrics",
    "juror_agreement",
    "krippendorff_alpha",
    "label_agreement",
    "metric_of",
    "pairwise",
    "percent_agreement",
    "proportion_interval",
    "read_scores",
    "stability",
    "summarize_agreement",
    "unit_disagreement",
]


#: Where each public name is defined. They are imported when one is first used, not with the
#: package: most need NumPy, which a run's page, using none of them, would load for nothing
#: (issue 36: 8 MB of a run's peak memory). The first use imports them all, so that the
#: package's namespace is whole (type hints of its models resolve in it) from then on.
_HOMES = {
    "..decide._proportion": ("Interval", "proportion_interval"),
    "._calibration": ("GoldCheck", "LabelRatings"),
    "._changes": ("CaseChange", "ChangeKind", "CostComparison"),
    "._compare": ("Comparison", "Quantity"),
    "._panel_stats": (
        "AgreementSummary",
        "CaseSpread",
        "EffectiveJudges",
        "JurorAgreement",
        "JurorStability",
        "LabelAgreement",
        "MetricAgreement",
        "PairwiseMatrix",
        "effective_judges",
        "infer_metrics",
        "juror_agreement",
        "label_agreement",
        "pairwise",
        "stability",
        "summarize_agreement",
    ),
    "._people": ("KeyAgreement", "PeopleAgreement"),
    "._ratings": ("Ratings",),
    "._reliability": (
        "Bootstrap",
        "cohen_kappa",
        "fleiss_kappa",
        "gwet_ac1",
        "identical_share",
        "krippendorff_alpha",
        "percent_agreement",
        "unit_disagreement",
    ),
    "._table": ("as_verdicts", "metric_of", "read_scores"),
}


def _door(names: dict[str, Any]) -> None:
    """Each public name says where to import it from (jury.agreement.X), not the private
    module that defines it: reprs, tracebacks and the API reference read the same door."""
    for name, value in names.items():
        if isinstance(value, type | FunctionType):
            value.__module__ = __name__
        globals()[name] = value


# Without NumPy: at hand (and pickled as jury.agreement.Estimate) from the start.
_door({"VERDICT": VERDICT, "Estimate": Estimate})


def __getattr__(name: str) -> Any:
    if not any(name in names for names in _HOMES.values()):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    for module, names in _HOMES.items():
        found = importlib.import_module(module, __name__)
        _door({each: getattr(found, each) for each in names})
    return globals()[name]


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
