"""Each statistic against published worked examples from the literature."""

from __future__ import annotations

import pytest
from extras import needs

from jury.agreement import (
    Ratings,
    cohen_kappa,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    percent_agreement,
)

# Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability, section C: reliability
# data of four observers on twelve units, with missing values (None). The same table is
# Gwet's (2014, Handbook of Inter-Rater Reliability) four-rater example, shipped with irrCAC
# as ``cac.raw4raters`` (observer B's and C's columns swapped, which changes nothing).
A = [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None]
B = [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3]
C = [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None]
D = [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None]
KRIPPENDORFF_2011 = [list(unit) for unit in zip(A, B, C, D, strict=True)]


@pytest.mark.parametrize(
    ("level", "published"),
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_krippendorff_2011_alpha_at_each_level(level: str, published: float) -> None:
    ratings = Ratings.from_rows(KRIPPENDORFF_2011, level=level)  # type: ignore[arg-type]
    alpha = krippendorff_alpha(ratings)
    assert alpha.value == pytest.approx(published, abs=5e-4)
    # Unit 12 has a single value: it is not pairable and does not count.
    assert alpha.units == 11


def test_gwet_2014_four_raters_with_missing_ratings() -> None:
    # Gwet (2014); irrCAC's documented results on cac.raw4raters: AC1 0.7754 (pa 0.8182,
    # pe 0.1903), Fleiss' generalised kappa 0.7612 (pe 0.2387), on a five-value scale.
    ratings = Ratings.from_rows(KRIPPENDORFF_2011, values=[1, 2, 3, 4, 5])
    assert gwet_ac1(ratings).value == pytest.approx(0.77544, abs=5e-5)
    assert fleiss_kappa(ratings).value == pytest.approx(0.76117, abs=5e-5)
    assert percent_agreement(ratings).value == pytest.approx(0.81818, abs=5e-5)


def test_fleiss_kappa_wikipedia_worked_example() -> None:
    # Wikipedia, "Fleiss' kappa", worked example: 10 subjects, 14 raters, 5 categories,
    # P-bar = 0.378, P-bar_e = 0.213, kappa = 0.210. Given as counts per category; expanded
    # here to one rating per rater.
    counts = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    rows = [[c for c, n in enumerate(row, start=1) for _ in range(n)] for row in counts]
    ratings = Ratings.from_rows(rows, values=[1, 2, 3, 4, 5])
    assert fleiss_kappa(ratings).value == pytest.approx(0.210, abs=5e-4)
    assert percent_agreement(ratings).value == pytest.approx(0.378, abs=5e-4)


def test_cohen_kappa_wikipedia_worked_example() -> None:
    # Wikipedia, "Cohen's kappa", first example: 50 grant proposals read by two readers;
    # yes/yes 20, yes/no 5, no/yes 10, no/no 15: p_o = 0.7, p_e = 0.5, kappa = 0.4.
    rows = [["yes", "yes"]] * 20 + [["yes", "no"]] * 5 + [["no", "yes"]] * 10
    rows += [["no", "no"]] * 15
    ratings = Ratings.from_rows(rows)
    assert cohen_kappa(ratings).value == pytest.approx(0.4)
    assert percent_agreement(ratings).value == pytest.approx(0.7)


def test_gwet_ac1_two_abstractors() -> None:
    # Gwet (2014): 100 pregnancies classified by two abstractors (irrCAC's
    # cont3x3abstractors): AC1 = 0.84933 with pa = 0.89.
    table = {("E", "E"): 13, ("A", "A"): 20, ("A", "N"): 7, ("N", "A"): 4, ("N", "N"): 56}
    rows = [[a, b] for (a, b), n in table.items() for _ in range(n)]
    ratings = Ratings.from_rows(rows, values=["E", "A", "N"])
    assert gwet_ac1(ratings).value == pytest.approx(0.84933, abs=5e-5)
    assert percent_agreement(ratings).value == pytest.approx(0.89)


# Maple's EssayTools documentation, QuadraticWeightedKappa, Example 1: scores 1-10 inferred
# from the data's minimum and maximum, kappa = 0.758620689655172.
ESSAYS_A = [9, 7, 8, 7, 6, 8, 3, 5, 10]
ESSAYS_B = [8, 8, 6, 6, 7, 6, 1, 4, 8]


def test_quadratic_weighted_kappa_on_the_declared_scale() -> None:
    rows = [list(pair) for pair in zip(ESSAYS_A, ESSAYS_B, strict=True)]
    ratings = Ratings.from_rows(rows, level="ordinal", values=list(range(1, 11)))
    kappa = cohen_kappa(ratings, weights="quadratic")
    assert kappa.value == pytest.approx(0.758620689655172, abs=1e-12)


@needs("test")
def test_observed_levels_convention_differs_and_matches_scikit_learn() -> None:
    # The same data with only the observed levels (2 is never used): 1 and 3 become
    # neighbours, which is scikit-learn's cohen_kappa_score convention.
    from sklearn.metrics import cohen_kappa_score

    rows = [list(pair) for pair in zip(ESSAYS_A, ESSAYS_B, strict=True)]
    ratings = Ratings.from_rows(rows, level="ordinal", values=list(range(1, 11)))
    observed = cohen_kappa(ratings, weights="quadratic", convention="observed")
    expected = cohen_kappa_score(ESSAYS_A, ESSAYS_B, weights="quadratic")
    assert observed.value == pytest.approx(expected, abs=1e-12)
    assert observed.value != pytest.approx(0.758620689655172, abs=1e-3)
