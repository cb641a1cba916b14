"""`jury.calibrate`: check the judges before trusting them with a gate (`jury calibrate` is a
shell over it; its module docstring says what each check does).

Gold as answer (each golden answer graded as its case's answer should pass, another case's
should fail), hand labels (each juror's and the panel's accuracy and kappa against them, the
seats' effective number and error correlation, drift since a stored baseline), panel warnings;
or, with `fit` (`select`, `unsupervised`, `cascades`), the learned jury fitted to the labels
and written to a fit file. Nothing is printed: what the command prints is in the result.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import ConfigError
from .._verdict import CaseVerdict
from ._options import CalibrateOptions, case_source, files_not_dash, panel_for

if TYPE_CHECKING:
    from ..adapters._rubric import Rubric
    from ..agreement import LabelAgreement
    from ..agreement._calibration import Check, GoldCheck, LabelRatings
    from ..agreement._seats import Seats
    from ..cases._case import Case
    from ..panel._panel import Panel

__all__ = ["Calibration", "calibrate", "calibrate_options", "drift_lines"]


@dataclass(frozen=True, slots=True)
class Calibration:
    """What `jury.calibrate` found, and `jury calibrate`'s `exit_code`: 1 when a gold check
    failed, agreement drifted beyond the tolerance or a learned target met none of its
    guarantees; 3 when a check could not be decided (judges unavailable) and nothing failed;
    0 otherwise.

    `gold` holds each case's gold checks (`gold_outcomes` says which went as expected);
    `labels` and `agreements` each label key's ratings and each rater's accuracy and kappa
    against the humans; `baseline` is the record ``save_baseline`` stores, `drift` what
    changed since the `baseline` given. A learned jury's report (`fit` and the rest) is
    `fit_report`, as the command prints it."""

    rubric: str
    jurors: tuple[str, ...]
    passes: int
    gold_min: float = 0.9
    other_max: float = 0.2
    gold: tuple[GoldCheck, ...] = ()
    labels: Mapping[str, LabelRatings] = field(default_factory=dict)
    agreements: Mapping[str, LabelAgreement] = field(default_factory=dict)
    #: Label keys that are neither "pass" nor a metric of the rubric.
    ignored: tuple[str, ...] = ()
    seats: Seats | None = None
    baseline: dict[str, Any] | None = None
    drift: tuple[str, ...] = ()
    drifted: bool = False
    fit_report: str | None = None
    warnings: tuple[str, ...] = ()
    exit_code: int = 0
    #: How the cases were read (shapes, fields kept aside, cases without a question): the
    #: command prints them; the library returns them, printing nothing.
    notes: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return self.exit_code == 0

    def gold_outcomes(self) -> list[tuple[GoldCheck, list[tuple[Check, CaseVerdict, bool | None]]]]:
        """Each case's gold checks, each verdict with whether it went as expected (None:
        undecided)."""
        from ..agreement._calibration import expected

        found = []
        for check in self.gold:
            runs: list[tuple[Check, CaseVerdict]] = [("gold", v) for v in check.gold]
            runs += [("other", v) for v in check.other]
            found.append(
                (
                    check,
                    [
                        (which, v, expected(v, which, self.gold_min, self.other_max))
                        for which, v in runs
                    ],
                )
            )
        return found

    def gold_counts(self) -> tuple[int, int, int]:
        """(as expected, failed, undecided) over the cases' gold checks."""
        good = bad = undecided = 0
        for _, runs in self.gold_outcomes():
            outcomes = [outcome for _, _, outcome in runs]
            if False in outcomes:
                bad += 1
            elif None in outcomes:
                undecided += 1
            else:
                good += 1
        return good, bad, undecided

    def stability(self) -> tuple[int, int]:
        """(juror answers identical in every pass, juror answers) over the gold checks."""
        from ..agreement._calibration import stability

        return stability(self.gold)


async def calibrate(cases: str | Path, **options: Any) -> Calibration:
    """Check the judges of the panel (`jury` file, `rubric`, `threshold`; the cases read as a
    run reads them: `map`, `format`, `root`) on the `cases`: their golden answers (`passes`,
    `gold_min`, `other_max`) and hand labels (the cases' own and `labels` files; `json`,
    `baseline`, `save_baseline`, `drift_tolerance`), or fit a learned jury to the labels
    (`fit`, `target`, `model`, `unsupervised`, `select`, `budget`, `cascades`, `seed`,
    `folds`, `votes`, `html`). The options are `jury calibrate`'s flags."""
    fields = set(CalibrateOptions.__dataclass_fields__) - {"cases"}
    unknown = sorted(set(options) - fields)
    if unknown:
        raise ConfigError(f"jury.calibrate: unknown option{'s' * (len(unknown) > 1)} {unknown}")
    return await calibrate_options(CalibrateOptions(cases=str(cases), **options))


async def calibrate_options(args: CalibrateOptions) -> Calibration:
    """`calibrate` with its options gathered (the command builds them from its flags)."""
    from ..agreement._calibration import gold_checks, judge_all
    from ..engine._jury import Jury
    from ..panel._warnings import panel_warnings

    if args.passes < 1:
        raise ConfigError("--passes: must be at least 1")
    if args.budget is not None and not args.select:
        raise ConfigError("--budget: ranks seat sets, so it goes with --select")
    if args.budget is not None and not args.budget > 0:
        raise ConfigError(f"--budget: {args.budget:g} USD per 1000 cases; it must be above 0")
    files_not_dash(  # before any judge is paid
        ("--json", args.json),
        ("--save-baseline", args.save_baseline),
        ("--fit", args.fit),
        ("--html", args.html),
        why="standard output carries calibrate's report",
    )
    options = args.run_options()
    panel = panel_for(options)
    notes: list[str] = []
    warnings: list[str] = []
    source = case_source(options, panel, notes=notes.append, warn=warnings.append)
    try:
        cases = source.load()
    finally:
        source.close()
    if args.labels:
        from ..adapters._registry import load_rubric
        from ..runs import with_file_labels

        rubric = load_rubric(panel.rubric, panel.thresholds)
        cases, said = with_file_labels(cases, args.labels, rubric)
        warnings += said
    warnings += panel_warnings(panel)
    jurors = tuple(juror.id for juror in panel.jurors)
    if args.learns:
        from ._fit import learn

        out = io.StringIO()
        code = await learn(panel, cases, args, out)
        return Calibration(
            panel.rubric,
            jurors,
            args.passes,
            fit_report=out.getvalue(),
            warnings=tuple(warnings),
            exit_code=code,
            notes=tuple(notes),
        )
    # A calibration tests the judges on the answers it swaps in; the trace checks of the
    # cases would only spare the judges it means to test.
    jury = Jury(panel, checks=None)
    labelled = [case for case in cases if case.labels]
    if not any(case.golden_answer for case in cases) and not labelled:
        raise ConfigError(f"{args.cases}: no case has a golden answer or labels to check with")
    async with jury:
        checks = await gold_checks(jury, cases, args.passes)
        verdicts = await judge_all(jury, labelled)
    found = Calibration(
        jury.rubric.name,
        tuple(jury.jurors),
        args.passes,
        gold_min=args.gold_min,
        other_max=args.other_max,
        gold=tuple(checks),
        warnings=tuple(warnings),
        notes=tuple(notes),
    )
    return _against_labels(found, args, panel, jury.rubric, labelled, verdicts)


def _against_labels(
    found: Calibration,
    args: CalibrateOptions,
    panel: Panel,
    rubric: Rubric,
    labelled: Sequence[Case],
    verdicts: Sequence[CaseVerdict],
) -> Calibration:
    """The gold checks' exit code, and the labels' agreement, findings and drift."""
    from ..agreement._calibration import baseline_record, label_ratings
    from ..agreement._seats import Seats

    _, bad, undecided = found.gold_counts()
    code = 1 if bad else (3 if undecided else 0)
    if not labelled:
        return _replace(found, exit_code=code)
    table, ignored = label_ratings(labelled, verdicts, rubric)
    seats = Seats.of_panel(panel, verdicts)
    agreements = {key: entry.agreement(seats) for key, entry in table.items()}
    if args.json:
        from ._fit import write_findings

        findings = {k: a.model_dump(mode="json") for k, a in agreements.items()}
        record = {"seats": seats.record(list(found.jurors)), "labels": findings}
        write_findings(args.json, record, io.StringIO())
    now = baseline_record(table, agreements, verdicts, rubric)
    drift: list[str] = []
    drifted = False
    if args.baseline:
        try:
            then = json.loads(Path(args.baseline).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ConfigError(f"{args.baseline}: cannot read the baseline: {exc}") from None
        drift, drifted = drift_lines(then, now, args.drift_tolerance)
        code = 1 if drifted else code
    if args.save_baseline:
        Path(args.save_baseline).write_text(json.dumps(now, indent=2) + "\n", "utf-8")
    return _replace(
        found,
        labels=table,
        agreements=agreements,
        ignored=tuple(sorted(ignored)),
        seats=seats,
        baseline=now,
        drift=tuple(drift),
        drifted=drifted,
        exit_code=code,
    )


def _replace(found: Calibration, **changes: Any) -> Calibration:
    from dataclasses import replace

    return replace(found, **changes)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def drift_lines(
    baseline: Mapping[str, Any], now: Mapping[str, Any], tolerance: float
) -> tuple[list[str], bool]:
    """What changed since the baseline, a line each, and whether any accuracy dropped beyond
    the tolerance."""
    lines: list[str] = []
    drifted = False
    if baseline.get("fingerprint") != now["fingerprint"]:
        lines.append(
            f"the rubric changed since the baseline ({baseline.get('fingerprint')} -> "
            f"{now['fingerprint']}): a change below may come from the prompts, not the model"
        )
    then_raters: Mapping[str, Any] = baseline.get("raters", {})
    for rater, record in now["raters"].items():
        before = then_raters.get(rater)
        if before is None:
            lines.append(f"{rater}: not in the baseline")
            continue
        if before.get("served_by") != record["served_by"]:
            lines.append(
                f"{rater}: served by {', '.join(record['served_by']) or '-'} "
                f"(baseline: {', '.join(before.get('served_by', [])) or '-'})"
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
            lines.append(
                f"{rater} · {key}: accuracy {_pct(then)} -> {_pct(current)}"
                + (f"; changed on {', '.join(flips)}" if flips else "; no rating changed")
                + ("  DRIFT" if flag else "")
            )
    return lines, drifted
