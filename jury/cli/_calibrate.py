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
    ``{"correctness": 4}`` or a point's ``"yes"``), or labelled in a labels file (``--labels
    FILE``, written by `jury label`; several labellers give their majority), are judged as
    they are; each juror's
    (and the panel's) accuracy and Cohen's kappa against the humans are reported (kappa from
    `jury.agreement`, weighted for ordinal metrics), and ``--save-baseline`` stores them so
    that a later ``--baseline`` run shows drift after a silent model update.
Seats against the labels
    The effective number of independent judges, of how many seats, models and families, and
    each pair of seats' error correlation (phi of their 0/1 errors on the labelled cases both
    rated), naming a seat that adds little (`jury.agreement._seat_errors`); ``--json FILE``
    writes it all, with each seat's model.
Panel warnings
    Two jurors of one family (seats of one model named as such), a juror of the family under
    test, a model alias.
A learned jury (``--fit FIT.toml``)
    Fits the jury to the hand labels of every labelled target ("pass" and/or the rubric's
    metrics; ``--target a,b`` to choose), all in one run and one fit file (a table per
    target): log-odds weights and a stacked logistic regression, with k-fold held-out accuracy
    beside the naive majority and each juror alone, and warnings, per target;
    ``--unsupervised`` fits Dawid-Skene without labels. A fitted "pass" decides the verdict;
    otherwise each fitted metric's learned value replaces its median and the rubric's rule
    decides, as sure as its least sure metric. With ``target_agreement`` in the jury file, the
    thresholds of selective verdicts are calibrated, per target, on labelled cases the model
    was not fitted on (the guarantee is each target's own: a verdict the rubric derives from
    several metrics has none of its own, and calibrate says so); exit 1 when a target meets
    none (no fit is written). A target the labels cannot teach (under 20 labels, one value,
    no juror's value) is skipped with a warning and named in the fit file and ``--json``;
    exit 2 when none can be learned. ``--select`` ranks subsets of the jurors by held-out accuracy
    per dollar (``--budget USD_PER_1000``: by held-out accuracy among the sets costing at most
    that per 1000 cases, a seat of unknown price never counted as free); ``--html FILE``
    draws the accuracy-coverage trade-off (of the first target); ``--votes RUN`` takes the
    votes of a recorded run instead of judging again.

Exit 1 when a gold check fails or agreement drifts beyond ``--drift-tolerance``; 3 when a
check could not be decided (judges unavailable) and nothing failed; 2 on usage errors.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import Jury
from .._errors import ConfigError
from .._verdict import CaseVerdict, Verdict
from ..panel._warnings import panel_warnings
from ..runs import run_interruptible

if TYPE_CHECKING:
    from ..agreement import LabelAgreement
    from ..agreement._calibration import Check, GoldCheck, LabelRatings

__all__ = ["register"]


def register(sub: Any) -> None:
    from ._options import add_case_arguments, add_panel_options

    parser: argparse.ArgumentParser = sub.add_parser(
        "calibrate",
        help="check the judges: gold answers, hand labels, drift, panel warnings",
        description="Grade each case's golden answer as the answer (it should pass) and "
        "another case's golden answer (it should fail); measure each juror's agreement with "
        "hand labels and compare it with a stored baseline.",
    )
    add_case_arguments(parser, help="cases with golden answers and/or labels")
    add_panel_options(parser)
    parser.add_argument(
        "--labels",
        action="append",
        metavar="FILE",
        help="a labels file (`jury label`; repeatable): its labels, the labellers' majority, "
        "join the cases' own labels",
    )
    parser.add_argument("--passes", type=int, default=1, help="times to run the gold checks")
    parser.add_argument(
        "--gold-min", type=float, default=0.9, help="points score a golden answer must reach"
    )
    parser.add_argument(
        "--other-max", type=float, default=0.2, help="points score another case's gold may reach"
    )
    parser.add_argument(
        "--json",
        metavar="FILE",
        help="write what was found of the seats against the labels here: each seat's model, "
        "the effective number of judges and every pair of seats' error correlation",
    )
    parser.add_argument("--baseline", metavar="FILE", help="compare label agreement with this")
    parser.add_argument("--save-baseline", metavar="FILE", help="store label agreement here")
    parser.add_argument(
        "--drift-tolerance",
        type=float,
        default=0.05,
        help="largest drop in a juror's accuracy against the labels that is not drift",
    )
    learned = parser.add_argument_group("learned jury")
    learned.add_argument("--fit", metavar="FIT", help="fit the jury to the labels; write it here")
    learned.add_argument(
        "--target",
        help='the labels to learn, comma-separated: "pass" and/or metrics (default: every one)',
    )
    learned.add_argument(
        "--model", choices=("auto", "weights", "stacked"), default="auto", help="which model"
    )
    learned.add_argument("--unsupervised", action="store_true", help="Dawid-Skene, no labels")
    learned.add_argument("--select", action="store_true", help="rank subsets of the jurors")
    learned.add_argument(
        "--budget",
        type=float,
        metavar="USD_PER_1000",
        help="with --select: rank the seat sets costing at most this per 1000 cases",
    )
    learned.add_argument(
        "--cascades",
        action="store_true",
        help="recommend a cascade order: each order fitted and measured on inner folds of the "
        "labels (out of sample), the cheapest within a point of the best",
    )
    learned.add_argument("--seed", type=int, default=0, help="seed of the folds and the split")
    learned.add_argument("--folds", type=int, default=5, help="folds of the held-out estimates")
    learned.add_argument("--votes", metavar="RUN", help="the votes of this recorded run")
    learned.add_argument("--html", metavar="FILE", help="write the trade-off page here")
    parser.set_defaults(handler=run)


# --- gold as answer --------------------------------------------------------------------------


def _shown(verdict: CaseVerdict) -> str:
    if verdict.verdict is Verdict.INCONCLUSIVE:
        return "INCONCLUSIVE"
    return f"{verdict.score:.2f}" if verdict.score is not None else verdict.verdict.value


def _report_gold(
    checks: Sequence[GoldCheck], gold_min: float, other_max: float, out: Any
) -> tuple[int, int, int]:
    """Print one line per case; return (as expected, failed, undecided)."""
    from ..agreement._calibration import expected

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


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _report_labels(
    table: Mapping[str, LabelRatings],
    agreements: Mapping[str, LabelAgreement],
    ignored: set[str],
    out: Any,
) -> None:
    from ..agreement._calibration import value_of
    from ..report._seats import effective_text, print_seat_errors

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
                f"  {rater} · {key}: accuracy {_pct(value_of(accuracy))} "
                f"({agreed}/{len(ratings)} agree; {len(ratings)}/{len(entry.labels)} rated), "
                f"kappa {kappa_text}",
                file=out,
            )
        print(f"  {key}: {effective_text(found.effective)}", file=out)
        if found.errors is not None:
            print_seat_errors(found.errors, out, indent="  ")
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
    from ..agreement._calibration import (
        baseline_record,
        gold_checks,
        judge_all,
        label_ratings,
        stability,
    )
    from ..runner._options import RunOptions, case_source, panel_for

    configure_logging(0)
    if args.passes < 1:
        raise ConfigError("--passes: must be at least 1")
    budget = getattr(args, "budget", None)
    if budget is not None and not args.select:
        raise ConfigError("--budget: ranks seat sets, so it goes with --select")
    if budget is not None and not budget > 0:
        raise ConfigError(f"--budget: {budget:g} USD per 1000 cases; it must be above 0")
    options = RunOptions.of(args)
    panel = panel_for(options)
    source = case_source(options, panel)
    try:
        cases = source.load()
    finally:
        source.close()
    if args.labels:
        from ..adapters._registry import load_rubric
        from ..runs import with_file_labels

        rubric = load_rubric(panel.rubric, panel.thresholds)
        cases, said = with_file_labels(cases, args.labels, rubric)
        for warning in said:
            print(f"warning: {warning}", file=sys.stderr)
    out = sys.stdout
    for warning in panel_warnings(panel):
        print(f"warning: {warning}", file=sys.stderr)
    if args.fit or args.select or args.unsupervised or getattr(args, "cascades", False):
        from ..runner._fit import learn

        return learn(panel, cases, args, out)
    # A calibration tests the judges on the answers it swaps in; the trace checks of the
    # cases would only spare the judges it means to test.
    jury = Jury(panel, checks=None)
    labelled = [case for case in cases if case.labels]
    if not any(case.golden_answer for case in cases) and not labelled:
        raise ConfigError(f"{args.cases}: no case has a golden answer or labels to check with")

    async def go() -> tuple[list[GoldCheck], list[CaseVerdict]]:
        async with jury:
            checks = await gold_checks(jury, cases, args.passes)
            verdicts = await judge_all(jury, labelled)
        return checks, verdicts

    checks, verdicts = run_interruptible(go())
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
        from ..agreement._seats import Seats

        table, ignored = label_ratings(labelled, verdicts, jury.rubric)
        seats = Seats.of_panel(panel, verdicts)
        agreements = {key: entry.agreement(seats) for key, entry in table.items()}
        _report_labels(table, agreements, ignored, out)
        if args.json:
            from ..runner._fit import write_findings

            found = {k: a.model_dump(mode="json") for k, a in agreements.items()}
            write_findings(args.json, {"seats": seats.record(jury.jurors), "labels": found}, out)
        record = baseline_record(table, agreements, verdicts, jury.rubric)
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
