"""`jury calibrate --fit / --unsupervised / --select`: judge (or read) the votes, fit the learned
jury, report it, and write the fit file that ``aggregation = "learned"`` reads."""

from __future__ import annotations

import argparse
import asyncio
import re
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._case import Case
from .._errors import ConfigError
from .._jury import Jury
from .._learned import PASS_TARGET, Fit
from .._panel import Panel
from .._verdict import CaseVerdict

__all__ = ["learn", "write_fit"]

HEADER = """\
# A learned jury, written by `jury calibrate --fit` (aiojury). A jury file uses it with
#   aggregation = "learned"
#   calibration = "{name}"
# Each stage is the jurors of tier 1, then of tiers 1-2, ...; each source (a juror, or one
# presentation order of it) adds, for the value it gave, the listed score to each class of
# `classes`; softmax gives probabilities, `confidence` maps them to the estimated agreement
# with the labels, and a verdict stands when that reaches `threshold`.
"""


#: A multi-line array of scalars as tomli-w writes it (no nested array, no table).
_ARRAY = re.compile(r"\[\n((?:[ ]+(?:[^\[\]{}\n]+|\[[^\[\]{}\n]*\]),\n)+)[ ]*\]")


def _one_line(match: re.Match[str]) -> str:
    return "[" + ", ".join(item.strip().rstrip(",") for item in match[1].splitlines()) + "]"


def write_fit(fit: Fit, path: str | Path) -> None:
    """Write the fit as TOML (tomli-w), short arrays on one line when that reads back the same."""
    import tomli_w

    data = fit.model_dump(exclude_none=True)
    text = tomli_w.dumps(data)
    compact = text
    for _ in range(2):  # inner arrays first, then the arrays of them
        compact = _ARRAY.sub(_one_line, compact)
    if tomllib.loads(compact) == tomllib.loads(text):
        text = compact
    Path(path).write_text(HEADER.format(name=Path(path).name) + "\n" + text, encoding="utf-8")


def _target(cases: Sequence[Case], given: str | None) -> str:
    if given:
        return given
    keys = {key for case in cases for key in case.labels}
    if keys & {"pass", "verdict"}:
        return PASS_TARGET
    if len(keys) == 1:
        return keys.pop()
    if not keys:
        return PASS_TARGET
    raise ConfigError(f"the labels name {', '.join(sorted(keys))}: choose one with --target")


def _votes(panel: Panel, cases: Sequence[Case], run: str | None) -> list[CaseVerdict]:
    if run is not None:
        from .._records import read_verdicts

        recorded = {v.case_id: v for v in read_verdicts(run)}
        missing = [case.id for case in cases if case.id not in recorded]
        if missing:
            raise ConfigError(f"{run}: no verdict recorded for {', '.join(missing[:5])}")
        return [recorded[case.id] for case in cases]
    from ._calibration import judge_all

    # Every juror on every case: the fit learns when a later tier is worth asking.
    flat = panel.model_copy(
        update={
            "jurors": tuple(j.model_copy(update={"tier": 1}) for j in panel.jurors),
            "aggregation": "median" if panel.aggregation == "learned" else panel.aggregation,
            "calibration": None,
        }
    )

    async def go() -> list[CaseVerdict]:
        async with Jury(flat, checks=None) as jury:
            return await judge_all(jury, cases)

    return asyncio.run(go())


def learn(panel: Panel, cases: Sequence[Case], args: argparse.Namespace, out: Any) -> int:
    from .._registry import load_rubric
    from ..report._calibration import print_fit, print_selection, tradeoff_page
    from ._evidence import consistency, effective, labelled_table
    from ._fitting import fit_jury, fit_unsupervised
    from ._select import cost_per_case, select

    if args.unsupervised and panel.target_agreement is not None:
        raise ConfigError("target_agreement needs labels to calibrate on: not with --unsupervised")
    target = _target(cases, args.target)
    chosen = cases if args.unsupervised else [c for c in cases if c.labels]
    if not chosen:
        raise ConfigError(f"{args.cases}: no case has labels to fit on")
    rubric = load_rubric(panel.rubric, panel.thresholds)
    verdicts = _votes(panel, chosen, args.votes)
    table = labelled_table(chosen, verdicts, rubric, target)
    tiers = {juror.id: juror.tier for juror in panel.jurors}
    jurors = sorted(tiers)
    if args.unsupervised:
        if max(tiers.values()) > 1:
            raise ConfigError("a cascade learns when to escalate from labels: not --unsupervised")
        result = fit_unsupervised(table, jurors, rubric)
    else:
        result = fit_jury(
            table,
            tiers,
            rubric,
            model=args.model,
            target_agreement=panel.target_agreement,
            risk=panel.risk,
            seed=args.seed,
            folds=args.folds,
        )
    labelled = any(label >= 0 for label in table.labels)
    worth = effective(table, jurors) if labelled else None
    same = consistency(table, jurors)
    print(f"Target: {target} ({', '.join(table.keys)}); jurors {', '.join(jurors)}", file=out)
    print_fit(result, same, worth, out)
    if args.select:
        if not labelled:
            raise ConfigError("--select measures held-out accuracy: it needs labels")
        last = result.stages[-1]
        model = last.model if last.model != "dawid-skene" else "weights"
        ranked = select(
            table,
            jurors,
            cost_per_case(verdicts),
            model=model,
            penalty=last.penalty,
            seed=args.seed,
            folds=args.folds,
        )
        print_selection(ranked, out)
    if args.html:
        page = tradeoff_page(result, same, worth, f"aiojury calibration · {rubric.name}")
        Path(args.html).write_text(page, encoding="utf-8")
        print(f"trade-off drawn in {args.html}", file=out)
    if result.failure is not None:
        print(f"FAILED: {result.failure}; no fit written", file=out)
        return 1
    if args.fit and result.fit is not None:
        write_fit(result.fit, args.fit)
        print(f"fit written to {args.fit}", file=out)
    return 0
