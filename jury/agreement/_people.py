"""Agreement between the people who labelled a run (`jury agreement RUN --labels FILE`).

Before judges are aligned with human labels, the labels themselves are checked: do the
labellers agree with each other? Per label key (``pass`` and each metric), with the same
coefficients and bootstrap intervals as the jurors' agreement (`_reliability`): Cohen's kappa
for two labellers (weighted to fit the level: none for pass/fail, linear for an ordinal
scale), Fleiss' kappa for three or more, and Krippendorff's alpha at the metric's level
whatever their number.

The humans' majority on each case (a tie is no label) is what the jurors are compared with.

A labeller who disagrees with the others far more than the judges do is named: for each
labeller L, the reference is the majority of the *other* labellers on each case L labelled;
L's disagreement is the share of those cases where L's label differs from it, and each
juror's is the share where its own rating differs from the same reference on the same cases.
L is named when L's disagreement exceeds the jurors' median by at least `OUTLIER_MARGIN`
and is at least twice it, over at least `OUTLIER_MIN_CASES` cases: a person the machines
agree with less than with everyone else is more likely mislabelling (or reading the rubric
differently) than the machines being wrong together.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from .._verdict import CaseVerdict, Metric, Score, Verdict, VoteStatus
from ._ratings import Ratings
from ._reliability import (
    Bootstrap,
    cohen_kappa,
    default_weights,
    fleiss_kappa,
    krippendorff_alpha,
)
from ._values import Estimate, undefined

__all__ = [
    "OUTLIER_MARGIN",
    "OUTLIER_MIN_CASES",
    "KeyAgreement",
    "PeopleAgreement",
    "majority",
    "people_agreement",
]

OUTLIER_MARGIN = 0.2
OUTLIER_MIN_CASES = 5
_MODEL = ConfigDict(frozen=True)


class KeyAgreement(BaseModel):
    """The labellers' agreement on one label key."""

    model_config = _MODEL

    key: str
    level: str
    labellers: tuple[str, ...]
    #: Cases labelled by two or more people.
    cases: int
    #: Two labellers (or one: then undefined, saying why); None for three or more.
    cohen_kappa: Estimate | None = None
    #: Three or more labellers (or one: then undefined, saying why); None for two.
    fleiss_kappa: Estimate | None = None
    alpha: Estimate
    #: Per labeller: share of their labels that differ from the others' majority (None when
    #: no case of theirs has one).
    disagreement: dict[str, float | None]
    #: Per labeller: the cases behind `disagreement`.
    compared: dict[str, int]
    #: Per labeller: each juror's disagreement with the same reference on the same cases.
    jurors: dict[str, dict[str, float | None]]
    #: Labellers who disagree with the others far more than the jurors do.
    outliers: tuple[str, ...] = ()


class PeopleAgreement(BaseModel):
    model_config = _MODEL

    labellers: tuple[str, ...]
    keys: dict[str, KeyAgreement]
    #: Case ID -> key -> the humans' majority label (ties left out).
    majority: dict[str, dict[str, Any]]
    #: "case · key" where the labellers tied, so there is no majority.
    ties: tuple[str, ...] = ()


def majority(values: Sequence[Any]) -> tuple[bool, Any]:
    """(found, value): the most common value, or (False, None) on a tie for the most."""
    counts = Counter(values).most_common()
    if not counts or (len(counts) > 1 and counts[0][1] == counts[1][1]):
        return False, None
    return True, counts[0][0]


def _juror_rating(key: str, verdict: Verdict | None, scores: Mapping[str, Score]) -> Any:
    if key == "pass":
        return None if verdict in (None, Verdict.INCONCLUSIVE) else verdict is Verdict.PASS
    return scores.get(key)


def _share(pairs: Iterable[tuple[Any, Any]]) -> tuple[float | None, int]:
    pairs = [(a, b) for a, b in pairs if a is not None and b is not None]
    if not pairs:
        return None, 0
    return sum(a != b for a, b in pairs) / len(pairs), len(pairs)


def _alone(who: str, ratings: Ratings) -> tuple[Estimate, Estimate, Estimate]:
    """One labeller: agreement between people is undefined, each statistic saying why (never
    a 1.0 for a person agreeing with themself, nor a 0)."""
    only = f"only {who} labelled"
    return (
        undefined("cohen_kappa", f"{only}: Cohen's kappa needs two labellers"),
        undefined("fleiss_kappa", f"{only}: Fleiss' kappa needs three or more labellers"),
        undefined(
            f"krippendorff_alpha[{ratings.level}]",
            f"{only}: alpha needs a case labelled by two or more people",
        ),
    )


def _key_agreement(
    key: str,
    metric: Metric,
    table: Mapping[str, Mapping[str, Any]],
    jurors: Mapping[str, Mapping[str, Any]],
    boot: Bootstrap,
) -> KeyAgreement:
    """`table`: case -> labeller -> label; `jurors`: juror -> case -> rating."""
    labellers = tuple(sorted({who for row in table.values() for who in row}))
    units = list(table)
    ratings = Ratings.from_rows(
        [[table[unit].get(who) for who in labellers] for unit in units],
        level=metric.level,
        values=metric.values,
        raters=labellers,
        units=units,
        name=key,
    )
    cohen = fleiss = None
    if len(labellers) == 1:
        cohen, fleiss, alpha = _alone(labellers[0], ratings)
    else:
        if len(labellers) == 2:
            cohen = cohen_kappa(ratings, weights=default_weights(ratings), bootstrap=boot)
        else:
            fleiss = fleiss_kappa(ratings, bootstrap=boot)
        alpha = krippendorff_alpha(ratings, bootstrap=boot)
    disagreement: dict[str, float | None] = {}
    compared: dict[str, int] = {}
    juror_shares: dict[str, dict[str, float | None]] = {}
    outliers: list[str] = []
    for who in labellers:
        reference: dict[str, Any] = {}
        for unit in units:
            if who not in table[unit]:
                continue
            found, value = majority([v for k, v in table[unit].items() if k != who])
            if found:
                reference[unit] = value
        disagreement[who], compared[who] = _share((table[u][who], v) for u, v in reference.items())
        juror_shares[who] = {
            juror: _share((ratings_of.get(u), v) for u, v in reference.items())[0]
            for juror, ratings_of in jurors.items()
        }
        own = disagreement[who]
        theirs = [share for share in juror_shares[who].values() if share is not None]
        if own is None or not theirs or compared[who] < OUTLIER_MIN_CASES:
            continue
        typical = statistics.median(theirs)
        if own - typical >= OUTLIER_MARGIN and own >= 2 * typical:
            outliers.append(who)
    return KeyAgreement(
        key=key,
        level=metric.level,
        labellers=labellers,
        cases=sum(len(row) >= 2 for row in table.values()),
        cohen_kappa=cohen,
        fleiss_kappa=fleiss,
        alpha=alpha,
        disagreement=disagreement,
        compared=compared,
        jurors=juror_shares,
        outliers=tuple(outliers),
    )


def people_agreement(
    labels: Mapping[str, Mapping[str, Mapping[str, Any]]],
    metrics: Mapping[str, Metric],
    verdicts: Iterable[CaseVerdict] = (),
    *,
    bootstrap: Bootstrap | None = None,
) -> PeopleAgreement:
    """`labels`: case ID -> labeller -> that labeller's labels (``pass`` as true/false);
    `metrics`: label key -> its metric (values and level)."""
    boot = bootstrap or Bootstrap(0)
    verdicts = list(verdicts)
    keys: dict[str, KeyAgreement] = {}
    best: dict[str, dict[str, Any]] = {}
    ties: list[str] = []
    for key, metric in metrics.items():
        table = {
            case: {who: given[key] for who, given in by.items() if key in given}
            for case, by in labels.items()
        }
        table = {case: row for case, row in table.items() if row}
        if not table:
            continue
        for case, row in table.items():
            found, value = majority(list(row.values()))
            if found:
                best.setdefault(case, {})[key] = value
            else:
                ties.append(f"{case} · {key}")
        jurors: dict[str, dict[str, Any]] = {}
        for verdict in verdicts:
            if verdict.case_id not in table:
                continue
            for vote in verdict.votes:
                cell = jurors.setdefault(vote.juror, {})
                if vote.status is VoteStatus.VALID:
                    rating = _juror_rating(key, vote.verdict, vote.scores)
                    if rating is not None:
                        cell[verdict.case_id] = rating
        keys[key] = _key_agreement(key, metric, table, jurors, boot)
    labellers = tuple(sorted({who for by in labels.values() for who in by}))
    return PeopleAgreement(labellers=labellers, keys=keys, majority=best, ties=tuple(ties))
