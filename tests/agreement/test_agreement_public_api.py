"""The public surface of `jury.agreement` is pinned, and importing `jury` stays light."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import jury.agreement


def test_agreement_public_names_are_pinned() -> None:
    assert sorted(jury.agreement.__all__) == sorted(
        [
            "VERDICT",
            "AgreementSummary",
            "Bootstrap",
            # What `jury.compare` gives (`Comparison`) and is made of.
            "CaseChange",
            "CaseSpread",
            "ChangeKind",
            "Comparison",
            "CostComparison",
            "EffectiveJudges",
            "Estimate",
            # What `jury.Calibration` holds: each case's gold checks, each label key's ratings.
            "GoldCheck",
            # A pass rate with its confidence interval (`proportion_interval`).
            "Interval",
            "JurorAgreement",
            "JurorStability",
            # The labellers' agreement (`jury.Agreement.people`), per label key.
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
    )
    for name in jury.agreement.__all__:
        assert getattr(jury.agreement, name) is not None


def test_import_jury_does_not_import_numpy_or_scipy() -> None:
    # Registering every subcommand (as `jury --help` does) must not pull them in either.
    code = (
        "import sys, jury, jury.cli._main; jury.cli._main.build_parser(); "
        "print(sorted(m for m in ('numpy', 'scipy') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parents[2],
    )
    assert done.stdout.strip() == "[]"
