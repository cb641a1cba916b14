"""Calibration: the judges checked against golden answers and hand labels (`jury calibrate`).

Gold as answer: each case's golden answer is judged as its answer (it should pass) and as
another case's (it should fail), over any number of passes, with the stability of each
juror's answers across passes. Hand labels: each juror's (and the panel's) ratings against
the humans' labels, with accuracy and Cohen's kappa, and the record a later run compares
with to see drift.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from .._verdict import CaseVerdict, Metric, Score, Verdict, VoteStatus
from ..adapters._rubric import Rubric
from ..cases._case import Case

if TYPE_CHECKING:
    from ..engine._jury import Jury
    from ._panel_stats import LabelAgreement
    from ._ratings import Estimate
    from ._seats import Seats

__all__ = [
    "PANEL",
    "Check",
    "GoldCheck",
    "LabelRatings",
    "baseline_record",
    "expected",
    "gold_checks",
    "gold_jobs",
    "judge_all",
    "label_ratings",
    "stability",
    "value_of",
]

Check = Literal["gold", "other"]


@dataclass(slots=True)
class GoldCheck:
    """One case's two checks, over every pass."""

    case_id: str
    other_id: str | None
    gold: list[CaseVerdict] = field(default_factory=list)
    other: list[CaseVerdict] = field(default_factory=list)


def _squash(text: str) -> str:
    return " ".join(text.split())


def _other_gold(cases: Sequence[Case], index: int) -> Case | None:
    """The next case (wrapping round) whose golden answer differs from this one's."""
    own = _squash(cases[index].golden_answer or "")
    for step in range(1, len(cases)):
        other = cases[(index + step) % len(cases)]
        if _squash(other.golden_answer or "") != own:
            return other
    return None


def gold_jobs(cases: Sequence[Case]) -> list[tuple[GoldCheck, Check, Case]]:
    """The cases to judge: each golden answer as its case's answer, and another's."""
    golden = [c for c in cases if c.golden_answer]
    jobs: list[tuple[GoldCheck, Check, Case]] = []
    for index, case in enumerate(golden):
        other = _other_gold(golden, index)
        check = GoldCheck(case.id, other.id if other else None)
        other_gold = other.golden_answer if other else None
        # answer_b is only read by pairwise rubrics: there the two golds are the two sides.
        own = {"answer": case.golden_answer, "answer_b": other_gold}
        jobs.append((check, "gold", case.model_copy(update=own)))
        if other is not None:
            swapped = {"answer": other_gold, "answer_b": case.golden_answer}
            jobs.append((check, "other", case.model_copy(update=swapped)))
    return jobs


async def judge_all(jury: Jury, cases: Sequence[Case]) -> list[CaseVerdict]:
    slots = asyncio.Semaphore(jury.panel.concurrency)

    async def one(case: Case) -> CaseVerdict:
        async with slots:
            return await jury.judge(case)

    async with asyncio.TaskGroup() as group:
        tasks = [group.create_task(one(case)) for case in cases]
    return [task.result() for task in tasks]


async def gold_checks(jury: Jury, cases: Sequence[Case], passes: int = 1) -> list[GoldCheck]:
    """Run the gold-as-answer checks `passes` times."""
    jobs = gold_jobs(cases)
    checks = list({id(check): check for check, _, _ in jobs}.values())
    for _ in range(passes):
        verdicts = await judge_all(jury, [case for _, _, case in jobs])
        for (check, which, _), verdict in zip(jobs, verdicts, strict=True):
            (check.gold if which == "gold" else check.other).append(verdict)
    return checks


def expected(verdict: CaseVerdict, which: Check, gold_min: float, other_max: float) -> bool | None:
    """Whether one verdict is as the check expects; None when it was not decided."""
    if verdict.verdict is Verdict.INCONCLUSIVE:
        return None
    if verdict.score is not None:
        if which == "gold":
            # As the seed article: the gold must meet every must point (the rubric's verdict)
            # and score close to 1.
            return verdict.verdict is Verdict.PASS and verdict.score >= gold_min
        return verdict.score <= other_max
    return verdict.verdict is (Verdict.PASS if which == "gold" else Verdict.FAIL)


def stability(checks: Sequence[GoldCheck]) -> tuple[int, int]:
    """(answers identical in every pass, answers): one answer is one juror's value of one
    metric on one check; a pass where the juror had no valid vote breaks its stability."""
    stable = total = 0
    for check in checks:
        for runs in (check.gold, check.other):
            seen: dict[tuple[str, str], list[Score]] = {}
            for verdict in runs:
                for vote in verdict.votes:
                    if vote.status is not VoteStatus.VALID:
                        continue
                    for metric, value in vote.scores.items():
                        seen.setdefault((vote.juror, metric), []).append(value)
            for values in seen.values():
                total += 1
                stable += len(values) == len(runs) and len(set(map(repr, values))) == 1
    return stable, total


# --- hand labels ---------------------------------------------------------------------------

#: Label keys that mean the case's verdict rather than one metric.
_VERDICT_LABELS = ("pass", "verdict")
#: The panel's own verdict, reported beside each juror.
PANEL = "jury"


@dataclass(slots=True)
class LabelRatings:
    """Every rater's ratings and the humans' labels for one label key.

    A juror without a valid vote on a case has no rating there: it lowers the juror's
    coverage, never its accuracy.
    """

    metric: Metric
    labels: dict[str, Any] = field(default_factory=dict)
    #: Rater (a juror, or `PANEL`) -> case ID -> rating.
    ratings: dict[str, dict[str, Any]] = field(default_factory=dict)

    def agreement(self, seats: Seats | None = None) -> LabelAgreement:
        """Accuracy and Cohen's kappa of each rater against the labels (`jury.agreement`);
        the effective number of judges and the seats' error correlations, over the seats
        (the panel's own verdict is no seat), knowing which share a model (`seats`)."""
        from ._panel_stats import label_agreement
        from ._ratings import Ratings

        raters = list(self.ratings)
        units = list(self.labels)
        rows = [[self.ratings[r].get(unit) for r in raters] for unit in units]
        ratings = Ratings.from_rows(
            rows,
            level=self.metric.level,
            values=self.metric.values,
            raters=raters,
            units=units,
            name=self.metric.name,
        )
        return label_agreement(ratings, self.labels, seats=seats, besides=(PANEL,))


def _rating(key: str, verdict: Verdict | None, scores: Mapping[str, Score]) -> Any:
    if key in _VERDICT_LABELS:
        return None if verdict in (None, Verdict.INCONCLUSIVE) else verdict is Verdict.PASS
    return scores.get(key)


def label_ratings(
    cases: Sequence[Case], verdicts: Sequence[CaseVerdict], rubric: Rubric
) -> tuple[dict[str, LabelRatings], set[str]]:
    """The ratings behind each label key, and the keys that name nothing of the rubric.

    A key is "pass" (the case's verdict: each juror's own verdict, and the panel's) or the
    name of one of the rubric's metrics for that case (a scale metric, a point's ID...).
    """
    table: dict[str, LabelRatings] = {}
    ignored: set[str] = set()
    for case, verdict in zip(cases, verdicts, strict=True):
        metrics = {m.name: m for m in rubric.metrics(case)}
        for key, value in case.labels.items():
            if key in _VERDICT_LABELS:
                metric = Metric(name=key, level="nominal", values=(False, True))
                human = value.strip().upper() == "PASS" if isinstance(value, str) else value
            elif key in metrics:
                metric, human = metrics[key], value
            else:
                ignored.add(key)
                continue
            entry = table.setdefault(key, LabelRatings(metric))
            entry.labels[case.id] = human
            panel = {k: r.value for k, r in verdict.metrics.items() if r.value is not None}
            raters: list[tuple[str, Verdict | None, Mapping[str, Score]]] = [
                (PANEL, verdict.verdict, panel)
            ]
            raters += [
                (v.juror, v.verdict, v.scores)
                if v.status is VoteStatus.VALID
                else (v.juror, None, {})
                for v in verdict.votes
            ]
            for rater, said, scores in raters:
                rating = _rating(key, said, scores)
                cell = entry.ratings.setdefault(rater, {})
                if rating is not None:
                    cell[case.id] = rating
    return table, ignored


def value_of(estimate: Estimate | None) -> float | None:
    return estimate.value if estimate is not None else None


def baseline_record(
    table: Mapping[str, LabelRatings],
    agreements: Mapping[str, LabelAgreement],
    verdicts: Sequence[CaseVerdict],
    rubric: Rubric,
) -> dict[str, Any]:
    served: dict[str, set[str]] = {}
    for verdict in verdicts:
        for vote in verdict.votes:
            if vote.served_by:
                served.setdefault(vote.juror, set()).add(vote.served_by)
    raters: dict[str, Any] = {}
    for key, entry in table.items():
        found = agreements[key]
        for rater, ratings in entry.ratings.items():
            record = raters.setdefault(
                rater, {"served_by": sorted(served.get(rater, ())), "labels": {}}
            )
            record["labels"][key] = {
                "accuracy": value_of(found.accuracy.get(rater)),
                "kappa": value_of(found.kappa.get(rater)),
                "rated": len(ratings),
                "labelled": len(entry.labels),
                "ratings": ratings,
            }
    return {
        "version": 1,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "rubric": rubric.name,
        "fingerprint": rubric.fingerprint(),
        "raters": raters,
    }
