"""`jury.rescore`: the verdicts a recorded run gives under other rules, with no judge call.

The recorded votes are decided again by the engine's own decision step (`jury.decide._cascade`)
under a new aggregation, quorum, tie policy or threshold, or by a learned jury (`calibration`,
a fit file from `jury calibrate --fit`). A cascaded run is walked tier by tier as it was
judged; a tier the new rules want but the run never asked leaves its case INCONCLUSIVE.
Nothing is resolved but the rubric: no provider, no key, no network. The result is a new run
directory, reported like a run.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from .._errors import ConfigError
from .._verdict import CaseVerdict
from ..adapters._registry import load_rubric
from ..adapters._rubric import Rubric
from ..cases._case import Case
from ..decide._cascade import Decider
from ..decide._core import AGGREGATIONS
from ..panel._panel import Gate, Panel, thresholds_problem
from ..report._publish import HTML_CASES, publish
from ..report._run_reports import recorded_warnings
from ..runs._records import (
    Redactor,
    RunRecord,
    panel_record,
    read_cases,
    require_manifest,
)
from ._notices import Notices
from ._options import given, report_paths, run_folder, select_verdicts, subset_from
from ._result import Run

__all__ = ["AGGREGATIONS", "RescoreOptions", "rescore"]


@dataclass(slots=True)
class RescoreOptions:
    """The rules and the subset of a re-score, named as `jury rescore`'s flags are."""

    out: str | None = None
    aggregation: str | None = None
    calibration: str | None = None
    quorum: int | None = None
    ties: Literal["inconclusive", "fail", "pass"] | None = None
    threshold: float | None = None
    min_pass_rate: float | None = None
    require_every_juror: bool = False
    #: The gate's `on`, `interval` and `level` (``--gate-on``, ``--interval``, ``--level``).
    gate_on: Literal["estimate", "lower_bound"] | None = None
    interval: Literal["wilson", "exact"] | None = None
    level: float | None = None
    ids: Sequence[str] | None = None
    category: Sequence[str] | None = None
    sample: int | None = None
    limit: int | None = None
    seed: int = 0
    junit: str | None = None
    html: str | None = None
    json: str | None = None
    html_cases: int = HTML_CASES
    no_html: bool = False

    @classmethod
    def of(cls, namespace: object) -> RescoreOptions:
        """The options a parsed command line holds, the defaults for the rest."""
        return cls(**given(cls, namespace))


def rescore(run: str | Path, **options: Any) -> Run:
    """Decide a recorded run again under other rules (`aggregation`, `calibration`, `quorum`,
    `ties`, `threshold`, `min_pass_rate`, `require_every_juror`, `gate_on`, `interval`,
    `level`; a subset with `ids`,
    `category`, `sample`, `limit`, `seed`), writing a new run directory (`out`) and its
    reports (`no_html`: no HTML report); no judge is called. The new `Run`."""
    unknown = sorted(set(options) - set(RescoreOptions.__dataclass_fields__))
    if unknown:
        raise ConfigError(f"jury.rescore: unknown option{'s' * (len(unknown) > 1)} {unknown}")
    return rescore_options(Path(run), RescoreOptions(**options))


def rescore_options(run: Path, options: RescoreOptions) -> Run:
    """`rescore` with its options gathered (the command builds them from its flags)."""
    paths = report_paths(options)  # before the new run directory is made
    out = run_folder(options.out)
    record, panel, rubric = _rescored(run, out, options)
    jurors = [juror.id for juror in panel.jurors]
    # What the run re-scored warned of stands for its votes (its manifest, copied, keeps it).
    said = recorded_warnings(record.manifest)
    published = publish(out, panel, rubric.name, jurors=jurors, warnings=said, paths=paths)
    record.finish(exit_code=published.summary.exit_code(panel.gate))
    return Run.published_as(out, published, Notices())


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


def _updated_panel(panel: Panel, args: RescoreOptions) -> tuple[Panel, dict[str, Any]]:
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
    gate = panel.gate.model_dump()
    for key, value in (
        ("min_pass_rate", args.min_pass_rate),
        ("require_every_juror", args.require_every_juror or None),
        ("on", args.gate_on),
        ("interval", args.interval),
        ("level", args.level),
    ):
        if value is not None:
            gate[key] = value
    if gate != panel.gate.model_dump():
        try:
            Gate.model_validate(gate)
        except ValidationError as exc:
            raise ConfigError(f"rescore: {_named(exc)}") from None
        changes["gate"] = gate
    try:
        updated = Panel.model_validate({**panel.model_dump(), **changes})
    except ValidationError as exc:
        raise ConfigError(f"rescore: {_named(exc)}") from None
    if updated.effective_quorum > len(updated.jurors):
        named = f"--quorum {args.quorum}" if args.quorum is not None else "the quorum"
        raise ConfigError(
            f"rescore: {named}: more than the {len(updated.jurors)} jurors "
            f"(a quorum of {updated.effective_quorum})"
        )
    if args.threshold is not None and (problem := thresholds_problem(updated)) is not None:
        raise ConfigError(f"rescore: --threshold {args.threshold:g}: {problem[1]}")
    return updated, changes


#: The flag that sets each field of the panel or its gate that rescore changes.
_FLAGS = {
    "min_pass_rate": "--min-pass-rate",
    "on": "--gate-on",
    "interval": "--interval",
    "level": "--level",
    "quorum": "--quorum",
    "ties": "--ties",
    "thresholds": "--threshold",
    "aggregation": "--aggregation",
    "calibration": "--calibration",
}


#: What a float flag takes, for a NaN given to it.
_RANGES = {"min_pass_rate": "a rate from 0 to 1", "level": "a level between 0 and 1 (0.95)"}


def _named(error: ValidationError) -> str:
    """Each problem named by the flag that made it (``--level 95: Input should be ...``), not
    as pydantic words it (a model's name, a link to its docs)."""
    said = []
    for problem in error.errors():
        field = next((str(part) for part in problem["loc"] if str(part) in _FLAGS), None)
        text = str(problem["msg"]).removeprefix("Value error, ")
        given = problem.get("input")
        if isinstance(given, float) and math.isnan(given):
            # NaN fails every bound, so pydantic names whichever it checked ("less than or
            # equal to 1"): the wrong fix.
            text = f"not a number; give {_RANGES.get(field or '', 'a number')}"
        shown = f"{given:g}" if isinstance(given, float) else given
        named = f"{_FLAGS[field]} {shown}" if field and not isinstance(given, dict) else field
        said.append(f"{named}: {text}" if named else text)
    return "; ".join(said)


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
    decided = rules.decide(
        case, verdict.votes, checks=verdict.checks, duration_s=verdict.duration_s
    )
    if decided.judges_spared and verdict.judges_spared:
        # The calls its checks spared were counted when the run judged it (the same jurors).
        decided = decided.model_copy(update={"calls_saved": verdict.calls_saved})
    return decided


def _rescored(run: Path, out: Path, args: RescoreOptions) -> tuple[RunRecord, Panel, Rubric]:
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
