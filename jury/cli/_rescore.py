"""`jury rescore RUN`: the verdicts a recorded run gives under other rules, with no judge call.

The recorded votes are decided again by the engine's own decision step (`jury.decide._cascade`)
under a new aggregation, quorum, tie policy or threshold, or by a learned jury
(``--calibration FIT``, from `jury calibrate --fit`). A cascaded run is walked tier by tier as
it was judged; a tier the new rules want but the run never asked leaves its case INCONCLUSIVE.
Nothing is resolved but the rubric: no provider, no key, no network. The result is a new run
directory, reported like a run.
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .._errors import ConfigError
from .._verdict import CaseVerdict
from ..adapters._registry import load_rubric
from ..adapters._rubric import Rubric
from ..cases._case import Case
from ..decide._cascade import Decider
from ..decide._core import AGGREGATIONS
from ..panel._panel import Panel
from ..runs._records import (
    Redactor,
    RunRecord,
    new_run_dir,
    panel_record,
    read_cases,
    require_manifest,
)
from ._options import select_verdicts, subset_from

__all__ = ["register", "rescore"]


def register(sub: Any) -> None:
    from ._options import add_output_arguments, add_report_paths, add_subset_options

    parser: argparse.ArgumentParser = sub.add_parser(
        "rescore",
        help="decide a recorded run again under other rules, without calling a judge",
        description="Recompute the verdicts of a recorded run from its votes under a new "
        "aggregation, quorum, tie policy or threshold. Makes no judge call. Writes a new run "
        "directory and exits like `jury run`.",
    )
    parser.add_argument("run", metavar="RUN", help="a run directory")
    parser.add_argument("--aggregation", choices=AGGREGATIONS, help="how votes combine")
    parser.add_argument(
        "--calibration",
        metavar="FIT",
        help="decide with the learned jury of this fit file (jury calibrate --fit)",
    )
    parser.add_argument("--quorum", type=int, help="valid votes a verdict needs")
    parser.add_argument("--ties", choices=("inconclusive", "fail", "pass"), help="tie policy")
    parser.add_argument(
        "--threshold", type=float, help="pass threshold for every metric, overriding the run's"
    )
    parser.add_argument(
        "--min-pass-rate", type=float, help="the gate's required pass rate (0 to 1)"
    )
    parser.add_argument(
        "--require-every-juror",
        action="store_true",
        help="hold INCONCLUSIVE a case on which a juror has no valid vote "
        "([gate] require_every_juror)",
    )
    parser.add_argument("--out", metavar="DIR", help="where to write (default runs/<time>-<id>)")
    add_subset_options(parser)
    add_output_arguments(parser)
    add_report_paths(parser)
    parser.set_defaults(handler=_handle)


def _rubric(manifest: dict[str, Any], panel: Panel) -> Rubric:
    name = panel.rubric
    if name.endswith(".toml") and not os.path.isabs(name):
        name = os.path.join(manifest.get("cwd") or ".", name)
    return load_rubric(name, panel.thresholds)


def _check_rubric(manifest: dict[str, Any], recorded: Panel) -> None:
    """Refuse a rubric that changed since the run: the votes answered its old prompts."""
    now = _rubric(manifest, recorded).fingerprint()
    then = manifest["rubric"]["fingerprint"]
    if now != then:
        raise ConfigError(
            f"the rubric {recorded.rubric!r} changed since the run (fingerprint {then}, now "
            f"{now}): its votes answered other prompts; run the cases again instead"
        )


def _updated_panel(panel: Panel, args: argparse.Namespace) -> tuple[Panel, dict[str, Any]]:
    changes: dict[str, Any] = {}
    if args.aggregation:
        changes["aggregation"] = args.aggregation
        changes["calibration"] = None
    if args.calibration:
        if args.aggregation:
            raise ConfigError("give either --aggregation or --calibration")
        changes["aggregation"] = "learned"
        changes["calibration"] = os.path.abspath(args.calibration)
    if args.quorum is not None:
        changes["quorum"] = args.quorum
    if args.ties:
        changes["ties"] = args.ties
    if args.threshold is not None:
        changes["thresholds"] = {"*": args.threshold}
    if args.min_pass_rate is not None or args.require_every_juror:
        gate = panel.gate.model_dump()
        if args.min_pass_rate is not None:
            gate["min_pass_rate"] = args.min_pass_rate
        if args.require_every_juror:
            gate["require_every_juror"] = True
        changes["gate"] = gate
    try:
        updated = Panel.model_validate({**panel.model_dump(), **changes})
    except ValueError as exc:
        raise ConfigError(f"rescore: {exc}") from None
    if updated.effective_quorum > len(updated.jurors):
        raise ConfigError(
            f"quorum {updated.effective_quorum} is more than the {len(updated.jurors)} jurors"
        )
    return updated, changes


def decider(panel: Panel, rubric: Rubric) -> Decider:
    """The panel's decision rules, its learned jury loaded and checked when it has one."""
    fit = None
    tiers = {juror.id: juror.tier for juror in panel.jurors}
    if panel.calibration is not None:
        from ..decide._learned import load_fit

        fit = load_fit(panel.calibration)
        fit.check_panel(tiers, rubric, panel.calibration)
    samples = {juror.id: panel.samples_for(juror) for juror in panel.jurors}

    def calls(case: Case, juror: str) -> int:
        try:
            return len(rubric.prompts(case)) * samples[juror]
        except ValueError:
            return 0

    weights = {juror.id: juror.weight for juror in panel.jurors}
    return Decider(panel, rubric, tiers, weights, calls, fit)


def rescore_verdict(verdict: CaseVerdict, case: Case, rules: Decider) -> CaseVerdict:
    """One case decided again from its recorded votes and checks."""
    if not verdict.votes and not verdict.judges_spared:
        return verdict  # the rubric could not judge the case: nothing to decide again
    return rules.decide(case, verdict.votes, checks=verdict.checks, duration_s=verdict.duration_s)


def rescore(run: Path, out: Path, args: argparse.Namespace) -> tuple[RunRecord, Panel, Rubric]:
    """Write the rescored run into `out`; return its record, panel and rubric."""
    manifest = require_manifest(run)
    recorded = Panel.model_validate(manifest["jury"])
    _check_rubric(manifest, recorded)
    panel, changes = _updated_panel(recorded, args)
    if panel.calibration is not None and not os.path.isabs(panel.calibration):
        # A fit named relative to where the run was started, as its rubric file is.
        where = os.path.join(manifest.get("cwd") or ".", panel.calibration)
        panel = panel.model_copy(update={"calibration": where})
    rubric = _rubric(manifest, panel)
    rules = decider(panel, rubric)
    subset = subset_from(args)
    verdicts = select_verdicts(str(run), subset)
    kept = {v.case_id for v in verdicts}
    cases = {case.id: case for case in read_cases(run) if case.id in kept}
    new_manifest = {
        **manifest,
        "run_id": out.name,
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": list(sys.argv),
        "rescored_from": str(run),
        "rescore": changes,
        "jury": panel_record(panel),
        "rubric": {"name": rubric.name, "kind": rubric.kind, "fingerprint": rubric.fingerprint()},
    }
    for stale in ("finished", "exit_code"):
        new_manifest.pop(stale, None)
    if not subset.everything:
        total = manifest.get("cases", {}).get("count", len(cases))
        new_manifest["subset"] = subset.record(len(verdicts), total)
        new_manifest["cases"] = {**manifest.get("cases", {}), "count": len(verdicts)}
    # The run's stored texts were redacted when they were first written.
    redactor = Redactor(manifest.get("redact", ()))
    with RunRecord.create(out, new_manifest, cases.values(), redactor) as record:
        for verdict in verdicts:
            case = cases.get(verdict.case_id)
            if case is None:
                raise ConfigError(f"{run}: verdict for {verdict.case_id!r} has no recorded case")
            record.append(rescore_verdict(verdict, case, rules))
    return record, panel, rubric


def _handle(args: argparse.Namespace) -> int:
    from .._logging import configure_logging
    from ..report._publish import publish
    from ._options import report_paths

    configure_logging(args.verbose, json=args.log_json)
    out = Path(args.out) if args.out else new_run_dir()
    record, panel, rubric = rescore(Path(args.run), out, args)
    jurors = [juror.id for juror in panel.jurors]
    summary = publish(out, panel, rubric.name, jurors=jurors, paths=report_paths(args))
    record.finish(exit_code=summary.exit_code(panel.gate))
    return summary.exit_code(panel.gate)
