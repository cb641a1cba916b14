"""`jury calibrate CASES`: check the judges before trusting them with a gate.

Three checks (the RAG-agent evals and agenteval seed articles):

Gold as answer
    Each case's golden answer is graded as if it were the answer, and should pass: a points
    score of at least ``--gold-min`` (0.9) with every must point met, or the verdict PASS for
    other kinds. The golden answer of another case (the next one in the file whose golden
    answer differs) should fail: a points score of at most ``--other-max`` (0.2), or FAIL. For
    pairwise rubrics the two golden answers are the two sides (A = the case's own, B = the
    other's, then the other way round). ``--passes N`` repeats everything and reports each
    pass's score and the stability: the share of juror answers identical in every pass.
Hand-labelled cases
    Cases with ``labels`` (``{"pass": true}``, or a metric's value such as
    ``{"correctness": 4}`` or a point's ``"yes"``) are judged as they are; each juror's
    (and the panel's) accuracy and Cohen's kappa against the humans are reported (kappa from
    `jury.agreement`, weighted for ordinal metrics), and ``--save-baseline`` stores them so
    that a later ``--baseline`` run shows drift after a silent model update.
Panel warnings
    Two jurors of one family, a juror of the family under test, a model alias.

Exit 1 when a gold check fails or agreement drifts beyond ``--drift-tolerance``; 3 when a
check could not be decided (judges unavailable) and nothing failed; 2 on usage errors.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .._case import Case, load_cases
from .._errors import ConfigError
from .._jury import Jury
from .._panel_warnings import panel_warnings
from .._rubric import Metric, Rubric
from .._verdict import CaseVerdict, Score, Verdict, VoteStatus

if TYPE_CHECKING:
    from ..agreement import Estimate, LabelAgreement

__all__ = [
    "GoldCheck",
    "LabelRatings",
    "gold_checks",
    "label_ratings",
    "register",
]

Check = Literal["gold", "other"]


def register(sub: Any) -> None:
    from ._options import add_panel_options

    parser: argparse.ArgumentParser = sub.add_parser(
        "calibrate",
        help="check the judges: gold answers, hand labels, drift, panel warnings",
        description="Grade each case's golden answer as the answer (it should pass) and "
        "another case's golden answer (it should fail); measure each juror's agreement with "
        "hand labels and compare it with a stored baseline.",
    )
    parser.add_argument("cases", help="cases file (JSONL) with golden answers and/or labels")
    add_panel_options(parser)
    parser.add_argument("--passes", type=int, default=1, help="times to run the gold checks")
    parser.add_argument(
        "--gold-min", type=float, default=0.9, help="points score a golden answer must reach"
    )
    parser.add_argument(
        "--other-max", type=float, default=0.2, help="points score another case's gold may reach"
    )
    parser.add_argument("--baseline", metavar="FILE", help="compare label agreement with this")
    parser.add_argument("--save-baseline", metavar="FILE", help="store label agreement here")
    parser.add_argument(
        "--drift-tolerance",
        type=float,
        default=0.05,
        help="largest drop in a juror's accuracy against the labels that is not drift",
    )
    parser.set_defaults(handler=run)


# --- gold as answer --------------------------------------------------------------------------


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


async def _judge_all(jury: Jury, cases: Sequence[Case]) -> list[CaseVerdict]:
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
        verdicts = await _judge_all(jury, [case for _, _, case in jobs])
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


def _shown(verdict: CaseVerdict) -> str:
    if verdict.verdict is Verdict.INCONCLUSIVE:
        return "INCONCLUSIVE"
    return f"{verdict.score:.2f}" if verdict.score is not None else verdict.verdict.value


def _report_gold(
    checks: Sequence[GoldCheck], gold_min: float, other_max: float, out: Any
) -> tuple[int, int, int]:
    """Print one line per case; return (as expected, failed, undecided)."""
    good = bad = open_ = 0
    for check in checks:
        runs: list[tuple[Check, CaseVerdict]] = [("gold", v) for v in check.gold]
        runs += [("other", v) for v in check.other]
        outcomes = [expected(v, which, gold_min, other_max) for which, v in runs]
        if False in outcomes:
            mark, bad = "✗", bad + 1
        elif None in outcomes:
            mark, open_ = "?", open_ + 1
        else:
            mark, good = "✓", good + 1
        gold = " ".join(_shown(v) for v in check.gold)
        gold_ok = all(outcomes[: len(check.gold)])
        line = f"{mark} {check.case_id}: gold as answer {gold} ({'passes' if gold_ok else 'FAILS'})"
        if check.other_id is None:
            line += ", no other case has a different golden answer"
        else:
            other = " ".join(_shown(v) for v in check.other)
            other_ok = all(outcomes[len(check.gold) :])
            line += f", {check.other_id}'s gold {other} ({'fails' if other_ok else 'PASSES'})"
        print(line, file=out)
        for (_, verdict), outcome in zip(runs, outcomes, strict=True):
            if not outcome:
                for reason in verdict.reasons[:3]:
                    print(f"    {reason}", file=out)
    return good, bad, open_


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

    def agreement(self) -> LabelAgreement:
        """Accuracy and Cohen's kappa of each rater against the labels (`jury.agreement`)."""
        from ..agreement import Ratings, label_agreement

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
        return label_agreement(ratings, self.labels)


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


def _value(estimate: Estimate | None) -> float | None:
    return estimate.value if estimate is not None else None


def _baseline(
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
                "accuracy": _value(found.accuracy.get(rater)),
                "kappa": _value(found.kappa.get(rater)),
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


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _report_labels(
    table: Mapping[str, LabelRatings],
    agreements: Mapping[str, LabelAgreement],
    ignored: set[str],
    out: Any,
) -> None:
    print("Agreement with hand labels (accuracy and Cohen's kappa against the labels):", file=out)
    for key, entry in table.items():
        found = agreements[key]
        for rater, ratings in entry.ratings.items():
            accuracy, kappa = found.accuracy.get(rater), found.kappa.get(rater)
            agreed = sum(ratings[c] == entry.labels[c] for c in ratings)
            kappa_text = (
                f"{kappa.value:.3f}"
                if kappa is not None and kappa.defined
                else (f"undefined ({kappa.reason})" if kappa is not None else "-")
            )
            print(
                f"  {rater} · {key}: accuracy {_pct(_value(accuracy))} "
                f"({agreed}/{len(ratings)} agree; {len(ratings)}/{len(entry.labels)} rated), "
                f"kappa {kappa_text}",
                file=out,
            )
    if ignored:
        names = ", ".join(sorted(ignored))
        print(f"  ignored labels (not 'pass' nor a metric of the rubric): {names}", file=out)


def compare_baseline(
    baseline: Mapping[str, Any], now: Mapping[str, Any], tolerance: float, out: Any
) -> bool:
    """Print the drift since the baseline; True when any accuracy dropped beyond tolerance."""
    drifted = False
    if baseline.get("fingerprint") != now["fingerprint"]:
        print(
            f"  the rubric changed since the baseline ({baseline.get('fingerprint')} -> "
            f"{now['fingerprint']}): a change below may come from the prompts, not the model",
            file=out,
        )
    then_raters: Mapping[str, Any] = baseline.get("raters", {})
    for rater, record in now["raters"].items():
        before = then_raters.get(rater)
        if before is None:
            print(f"  {rater}: not in the baseline", file=out)
            continue
        if before.get("served_by") != record["served_by"]:
            print(
                f"  {rater}: served by {', '.join(record['served_by']) or '-'} "
                f"(baseline: {', '.join(before.get('served_by', [])) or '-'})",
                file=out,
            )
        for key, cell in record["labels"].items():
            old = before.get("labels", {}).get(key)
            if old is None:
                continue
            flips = sorted(
                case
                for case, rating in cell["ratings"].items()
                if case in old["ratings"] and old["ratings"][case] != rating
            )
            then, current = old.get("accuracy"), cell["accuracy"]
            drop = then - current if then is not None and current is not None else 0.0
            flag = drop > tolerance
            drifted |= flag
            print(
                f"  {rater} · {key}: accuracy {_pct(then)} -> {_pct(current)}"
                + (f"; changed on {', '.join(flips)}" if flips else "; no rating changed")
                + ("  DRIFT" if flag else ""),
                file=out,
            )
    return drifted


# --- the command -----------------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    from .._logging import configure_logging
    from ._options import panel_for

    configure_logging(0)
    if args.passes < 1:
        raise ConfigError("--passes: must be at least 1")
    panel = panel_for(args)
    cases = load_cases(args.cases)
    out = sys.stdout
    for warning in panel_warnings(panel):
        print(f"warning: {warning}", file=sys.stderr)
    # A calibration tests the judges on the answers it swaps in; the trace checks of the
    # cases would only spare the judges it means to test.
    jury = Jury(panel, checks=None)
    labelled = [case for case in cases if case.labels]
    if not any(case.golden_answer for case in cases) and not labelled:
        raise ConfigError(f"{args.cases}: no case has a golden answer or labels to check with")

    async def go() -> tuple[list[GoldCheck], list[CaseVerdict]]:
        async with jury:
            checks = await gold_checks(jury, cases, args.passes)
            verdicts = await _judge_all(jury, labelled)
        return checks, verdicts

    checks, verdicts = asyncio.run(go())
    code = 0
    juror_list = ", ".join(jury.jurors)
    print(
        f"Judge check: rubric {jury.rubric.name}, jurors {juror_list}, {args.passes} pass(es)",
        file=out,
    )
    if checks:
        good, bad, open_ = _report_gold(checks, args.gold_min, args.other_max, out)
        print(f"{good} of {len(checks)} as expected", file=out)
        stable, total = stability(checks)
        if args.passes > 1 and total:
            print(
                f"stability: {stable / total:.0%} of juror answers identical in every pass "
                f"({stable} of {total})",
                file=out,
            )
        code = 1 if bad else (3 if open_ else 0)
    if labelled:
        table, ignored = label_ratings(labelled, verdicts, jury.rubric)
        agreements = {key: entry.agreement() for key, entry in table.items()}
        _report_labels(table, agreements, ignored, out)
        record = _baseline(table, agreements, verdicts, jury.rubric)
        if args.baseline:
            try:
                baseline = json.loads(Path(args.baseline).read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as exc:
                raise ConfigError(f"{args.baseline}: cannot read the baseline: {exc}") from None
            print(f"Drift since the baseline {args.baseline}:", file=out)
            if compare_baseline(baseline, record, args.drift_tolerance, out):
                code = 1
        if args.save_baseline:
            Path(args.save_baseline).write_text(json.dumps(record, indent=2) + "\n", "utf-8")
            print(f"baseline saved to {args.save_baseline}", file=out)
    return code
