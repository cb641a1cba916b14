"""`jury.compare`: did B regress from A, case by case, beyond the noise?

Each side is a run directory, or several runs of the same configuration (a directory of
``jury run --repeat N`` stands for its repeats). The rules come from the options or the
``[compare]`` table of a jury file (options win), decided before the result is seen; the
result is a `jury.agreement.Comparison`, whose `outcome` and `exit_code` are `jury compare`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from .._errors import ConfigError, JuryFileError
from .._problems import problems, read_toml
from ..panel._panel import CompareRules
from ._result import Run

if TYPE_CHECKING:
    from ..agreement._compare import Comparison

__all__ = ["compare", "compare_rules", "side_runs"]

Side = str | Path | Sequence[str | Path]


def compare(
    a: Side, b: Side, *, jury: str | Path | None = None, rubric: str | None = None, **rules: Any
) -> Comparison:
    """Compare side B with side A case by case under `rules` (the fields of ``[compare]``:
    `significance`, `min_effect`, `min_score_effect`, `noise`, `score_noise`,
    `max_regressions`, `min_repeats`, `cheaper`, `cost`, and `interval` and `level` of each
    side's pass rate), over the ``[compare]`` table of the `jury` file when one is given (its
    ``[gate]``'s `interval` and `level` unless ``[compare]`` says). Each side is a run
    directory or a list of them. `rubric` names the metrics' levels (default: the rubric of
    A's first run). Nothing is judged."""
    # Imported here: the statistics need numpy and scipy, which `import jury` does not load.
    from ..agreement._compare import compare_runs
    from ..report._agreement import manifest_rubric, rubric_metrics

    a_dirs, b_dirs = side_runs(a), side_runs(b)
    chosen = compare_rules(jury, {k: v for k, v in rules.items() if v is not None})
    runs_a, runs_b = [Run(Path(d)) for d in a_dirs], [Run(Path(d)) for d in b_dirs]
    side_a = [{v.case_id: v for v in run.verdicts} for run in runs_a]
    side_b = [{v.case_id: v for v in run.verdicts} for run in runs_b]
    name = rubric or manifest_rubric(Run.read_manifest(a_dirs[0]))
    sample = next((v for run in side_a for v in run.values()), None)
    metrics = rubric_metrics(name, [sample] if sample else [], required=bool(rubric))
    levels = {m.name: m.level for m in metrics} if metrics else None
    cases = None
    if chosen.cheaper is not None and chosen.cost == "agent":
        cases = (
            [{c.id: c for c in run.cases()} for run in runs_a],
            [{c.id: c for c in run.cases()} for run in runs_b],
        )
    result = compare_runs(side_a, side_b, chosen, levels=levels, cases=cases)
    return _said(result, runs_a, runs_b)


def _said(result: Comparison, runs_a: Sequence[Run], runs_b: Sequence[Run]) -> Comparison:
    """The comparison with what it stands on said: the juries' differences and what degraded
    in each side's runs, as warnings and under their own keys, and the result's reasons
    naming them and the cases left uncompared (a PASSED on 6 of 24 cases, by a FAKE jury of
    other models, once read as a plain PASSED)."""
    from ._compare_juries import degradations, jury_changes

    changes, warnings = jury_changes(runs_a, runs_b)
    degraded = {"A": degradations("A", runs_a), "B": degradations("B", runs_b)}
    degraded = {side: lines for side, lines in degraded.items() if lines}
    reasons = list(result.reasons)
    uncompared = len(result.only_a) + len(result.only_b)
    if uncompared and result.common:
        sides = [
            f"{len(ids)} only in {n}"
            for n, ids in (("A", result.only_a), ("B", result.only_b))
            if ids
        ]
        reasons.append(
            f"on the {result.common} cases in common only: {uncompared} not compared "
            f"({', '.join(sides)})"
        )
    if changes:
        reasons.append(f"across different juries ({', '.join(changes)} differ)")
    if degraded:
        reasons.append(f"degraded judging in {' and '.join(degraded)} (see the warnings)")
    return result.model_copy(
        update={
            "warnings": (
                *warnings,
                *(line for lines in degraded.values() for line in lines),
                *result.warnings,
            ),
            "reasons": tuple(reasons),
            "jury_changes": changes,
            "degraded": degraded,
        }
    )


def compare_rules(jury: str | Path | None, given: dict[str, Any]) -> CompareRules:
    """The jury file's ``[compare]`` table, with the `given` rules taking precedence."""
    table: dict[str, Any] = {}
    if jury:
        path = Path(jury)
        data = read_toml(path, lambda reason: JuryFileError(str(path), "", reason))
        found = data.get("compare", {})
        if not isinstance(found, dict):
            raise JuryFileError(str(path), "compare", "must be a table")
        gate = data.get("gate", {})
        if isinstance(gate, dict):  # the pass rate's interval as the gate shows it
            table.update({key: gate[key] for key in ("interval", "level") if key in gate})
        table.update(found)
    table.update(given)
    try:
        return CompareRules.model_validate(table)
    except ValidationError as exc:
        found = [(f"compare.{key}", reason) for key, reason in problems(exc, CompareRules)]
        raise JuryFileError(str(jury) if jury else "the rules given", found) from None


def side_runs(side: Side) -> list[str]:
    """The run directories of a side, a directory of ``jury run --repeat N`` standing for its
    repeats."""
    runs = [side] if isinstance(side, str | Path) else list(side)
    if not runs:
        raise ConfigError("a side of the comparison has no run")
    out: list[str] = []
    for run in runs:
        path = Path(run)
        inner = sorted(path.glob("repeat-*"), key=lambda p: (len(p.name), p.name))
        if not (path / "manifest.json").exists() and inner:
            out.extend(str(p) for p in inner if (p / "manifest.json").exists())
        else:
            out.append(str(run))
    return out
