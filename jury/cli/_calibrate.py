"""`jury calibrate CASES`: a shell over `jury.calibrate` (check the judges before trusting
them with a gate): its flags are the options, what it found printed, its exit code the
calibration's.

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
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._verdict import CaseVerdict, Verdict
from ..runs import run_interruptible

if TYPE_CHECKING:
    from ..agreement import LabelAgreement, LabelRatings
    from ..runner._calibrate import Calibration

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


def _report_gold(found: Calibration, out: Any) -> None:
    """Print one line per case, and the reasons of each check that did not go as expected."""
    for check, runs in found.gold_outcomes():
        outcomes = [outcome for _, _, outcome in runs]
        mark = "✗" if False in outcomes else "?" if None in outcomes else "✓"
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
        for _, verdict, outcome in runs:
            if not outcome:
                for reason in verdict.reasons[:3]:
                    print(f"    {reason}", file=out)


# --- hand labels ---------------------------------------------------------------------------


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _report_labels(
    table: Mapping[str, LabelRatings],
    agreements: Mapping[str, LabelAgreement],
    ignored: set[str],
    out: Any,
) -> None:
    from ..report._seats import effective_text, print_seat_errors

    print("Agreement with hand labels (accuracy and Cohen's kappa against the labels):", file=out)
    for key, entry in table.items():
        found = agreements[key]
        for rater, ratings in entry.ratings.items():
            accuracy, kappa = found.accuracy.get(rater), found.kappa.get(rater)
            share = accuracy.value if accuracy is not None else None
            agreed = sum(ratings[c] == entry.labels[c] for c in ratings)
            kappa_text = (
                f"{kappa.value:.3f}"
                if kappa is not None and kappa.defined
                else (f"undefined ({kappa.reason})" if kappa is not None else "-")
            )
            print(
                f"  {rater} · {key}: accuracy {_pct(share)} "
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


# --- the command -----------------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    from .._logging import configure_logging
    from ..runner._calibrate import calibrate_options
    from ..runner._options import CalibrateOptions

    configure_logging(0)
    found = run_interruptible(calibrate_options(CalibrateOptions.of(args)))
    for note in found.notes:
        print(f"jury: note: {note}", file=sys.stderr)
    for warning in found.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    out = sys.stdout
    if found.fit_report is not None:
        out.write(found.fit_report)
        return found.exit_code
    print(
        f"Judge check: rubric {found.rubric}, jurors {', '.join(found.jurors)}, "
        f"{found.passes} pass(es)",
        file=out,
    )
    if found.gold:
        _report_gold(found, out)
        good = found.gold_counts()[0]
        print(f"{good} of {len(found.gold)} as expected", file=out)
        stable, total = found.stability()
        if found.passes > 1 and total:
            print(
                f"stability: {stable / total:.0%} of juror answers identical in every pass "
                f"({stable} of {total})",
                file=out,
            )
    if found.labels:
        _report_labels(found.labels, found.agreements, set(found.ignored), out)
        if args.json:
            print(f"findings written to {args.json}", file=out)
        if args.baseline:
            print(f"Drift since the baseline {args.baseline}:", file=out)
            for line in found.drift:
                print(f"  {line}", file=out)
        if args.save_baseline:
            print(f"baseline saved to {args.save_baseline}", file=out)
    return found.exit_code
