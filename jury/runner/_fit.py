"""`jury calibrate --fit / --unsupervised / --select`: judge (or read) the votes once, fit the
learned jury of every labelled target ("pass" and/or the rubric's metrics), report each, and
write the one fit file (a table per target) that ``aggregation = "learned"`` reads."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import ConfigError
from .._verdict import CaseVerdict
from ..cases._case import Case
from ..decide._learned import PASS_TARGET, Fit, Fits
from ..engine._jury import Jury
from ..panel._panel import Panel

if TYPE_CHECKING:
    from ..adapters._rubric import Rubric
    from ..agreement._evidence import Labelled
    from ..agreement._seats import Seats
    from ..agreement._select import SeatCost
    from ._options import CalibrateOptions

__all__ = ["learn", "write_findings", "write_fit"]

HEADER = """\
# A learned jury, written by `jury calibrate --fit` (aiojury). A jury file uses it with
#   aggregation = "learned"
#   calibration = "{name}"
# One table per target learned: [target.pass] decides the verdict; without it each fitted
# metric's learned value replaces its median and the rubric's rule decides (the verdict's
# confidence is the lowest of those metrics'). Within a target, each stage is the jurors of
# tier 1, then of tiers 1-2, ...; each source (a juror, or one presentation order of it) adds,
# for the value it gave, the listed score to each class of `classes`; softmax gives
# probabilities, `confidence` maps them to the estimated agreement with the labels, and a
# verdict stands when that reaches `threshold`. [skipped] names the targets the labels named
# that could not be learned, and why (their medians decide, as without a fit).
"""


#: A multi-line array of scalars as tomli-w writes it (no nested array, no table).
_ARRAY = re.compile(r"\[\n((?:[ ]+(?:[^\[\]{}\n]+|\[[^\[\]{}\n]*\]),\n)+)[ ]*\]")


def _one_line(match: re.Match[str]) -> str:
    return "[" + ", ".join(item.strip().rstrip(",") for item in match[1].splitlines()) + "]"


def write_fit(fit: Fits | Fit, path: str | Path) -> None:
    """Write the fit file as TOML (tomli-w), a table per target, short arrays on one line when
    that reads back the same."""
    import tomli_w

    data = Fits.of(fit).dump()
    text = tomli_w.dumps(data)
    compact = text
    for _ in range(2):  # inner arrays first, then the arrays of them
        compact = _ARRAY.sub(_one_line, compact)
    if tomllib.loads(compact) == tomllib.loads(text):
        text = compact
    Path(path).write_text(HEADER.format(name=Path(path).name) + "\n" + text, encoding="utf-8")


def write_findings(path: str, found: dict[str, Any], out: Any) -> None:
    """What calibrate found, as JSON (``--json FILE``)."""
    import json

    Path(path).write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")
    print(f"findings written to {path}", file=out)


def _targets(cases: Sequence[Case], given: str | None, rubric: Rubric, out: Any) -> list[str]:
    """The targets to fit: those given (comma-separated), else every labelled one: "pass"
    first, then the rubric's metrics in its order. Other label keys are said to be ignored."""
    if given:
        named = list(dict.fromkeys(t.strip() for t in given.split(",") if t.strip()))
        return sorted(named, key=lambda t: t != PASS_TARGET)  # "pass" first: it decides
    keys = {key for case in cases for key in case.labels}
    if not keys:
        return [PASS_TARGET]
    metrics = list(dict.fromkeys(m.name for case in cases for m in rubric.metrics(case)))
    found = [PASS_TARGET] if keys & {PASS_TARGET, "verdict"} else []
    found += [name for name in metrics if name in keys and name != PASS_TARGET]
    ignored = sorted(keys - set(metrics) - {PASS_TARGET, "verdict"})
    if not found:
        raise ConfigError(
            f"the labels name {', '.join(ignored)}: none is 'pass' nor a metric of {rubric.name}"
        )
    if ignored:
        names = ", ".join(ignored)
        print(f"labels ignored (not 'pass' nor a metric of {rubric.name}): {names}", file=out)
    return found


async def _votes(panel: Panel, cases: Sequence[Case], run: str | None) -> list[CaseVerdict]:
    if run is not None:
        from ..runs._records import read_verdicts

        recorded = {v.case_id: v for v in read_verdicts(run)}
        missing = [case.id for case in cases if case.id not in recorded]
        if missing:
            raise ConfigError(f"{run}: no verdict recorded for {', '.join(missing[:5])}")
        return [recorded[case.id] for case in cases]
    from ..agreement._calibration import judge_all

    # Every juror on every case: the fit learns when a later tier is worth asking.
    flat = panel.model_copy(
        update={
            "jurors": tuple(j.model_copy(update={"tier": 1}) for j in panel.jurors),
            "aggregation": "median" if panel.aggregation == "learned" else panel.aggregation,
            "calibration": None,
        }
    )

    async with Jury(flat, checks=None) as jury:
        return await judge_all(jury, cases)


async def learn(panel: Panel, cases: Sequence[Case], args: CalibrateOptions, out: Any) -> int:
    """Fit every target the labels can teach; a target they cannot (too few labels, one
    value, no juror's value) is skipped with a warning, named in the fit file and the
    findings. Exit 2 (`ConfigError`) when none can be learned, 1 when a target's agreement
    guarantee cannot be met."""
    from ..adapters._registry import load_rubric
    from ..agreement._evidence import labelled_table
    from ..agreement._fitting import unheard

    if args.unsupervised and panel.target_agreement is not None:
        raise ConfigError("target_agreement needs labels to calibrate on: not with --unsupervised")
    rubric = load_rubric(panel.rubric, panel.thresholds)
    targets = _targets(cases, args.target, rubric, out)
    chosen = cases if args.unsupervised else [c for c in cases if c.labels]
    if not chosen:
        raise ConfigError(f"{args.cases}: no case has labels to fit on")
    tiers = {juror.id: juror.tier for juror in panel.jurors}
    if args.unsupervised and max(tiers.values()) > 1:
        raise ConfigError("a cascade learns when to escalate from labels: not --unsupervised")
    # What the labels cannot teach is known before a juror is asked (and paid).
    skipped = {} if args.unsupervised else _unlearnable(chosen, rubric, targets)
    _something_left(targets, skipped)
    verdicts = await _votes(panel, chosen, args.votes)
    tables = {
        target: labelled_table(chosen, verdicts, rubric, target)
        for target in targets
        if target not in skipped
    }
    for target, table in tables.items():
        why = unheard(table, labelled_only=not args.unsupervised)
        if why is not None:
            skipped[target] = why
    skipped = {target: skipped[target] for target in targets if target in skipped}
    _something_left(targets, skipped)
    learned = [target for target in targets if target not in skipped]
    for target, why in skipped.items():
        print(f"warning: skipped {target}: {why}", file=out)
    if PASS_TARGET in skipped and learned:
        print(
            f"note: without a fitted pass, the fitted {', '.join(learned)} decide the verdict "
            "by the rubric's rule (the others by their medians)",
            file=out,
        )
    from ..agreement._seats import Seats

    seats = Seats.of_panel(panel, verdicts)
    findings: dict[str, Any] = {}
    fits: list[Fit] = []
    failures: list[str] = []
    for number, target in enumerate(learned):
        fit, failure = _learn_target(
            panel,
            rubric,
            chosen,
            verdicts,
            tables[target],
            args,
            out,
            draw=number == 0,
            decides=target == PASS_TARGET or PASS_TARGET not in learned,
            seats=seats,
            findings=findings,
            skipped=skipped,
        )
        if fit is not None:
            fits.append(fit)
        if failure is not None:
            failures.append(failure if len(learned) == 1 else f"{target}: {failure}")
        if args.html and number == 0 and len(learned) > 1:
            print(f"(the trade-off page draws the first target only: {target})", file=out)
    _guarantee_note(panel, learned, tiers, out)
    if args.json:
        found = {"seats": seats.record(tiers), "targets": findings, "skipped": skipped}
        write_findings(args.json, found, out)
    if failures:
        print(f"FAILED: {'; '.join(failures)}; no fit written", file=out)
        return 1
    if args.fit and fits:
        write_fit(Fits(tuple(fits), skipped), args.fit)
        shown = f" ({len(fits)} targets: {', '.join(learned)})" if len(fits) > 1 else ""
        if skipped:
            shown += f"; skipped: {', '.join(skipped)}, named in the file under [skipped]"
        print(f"fit written to {args.fit}{shown}", file=out)
    return 0


def _unlearnable(cases: Sequence[Case], rubric: Rubric, targets: Sequence[str]) -> dict[str, str]:
    """Target -> why its labels cannot be learned (too few, one value), for those that cannot."""
    from ..agreement._evidence import target_labels
    from ..agreement._fitting import unlearnable

    found = {target: unlearnable(target_labels(cases, rubric, target)) for target in targets}
    return {target: why for target, why in found.items() if why is not None}


def _something_left(targets: Sequence[str], skipped: Mapping[str, str]) -> None:
    """A fit where no target can be learned stops (exit 2) saying why for each."""
    if all(target in skipped for target in targets):
        whys = "; ".join(f"{target}: {why}" for target, why in skipped.items())
        raise ConfigError(f"nothing can be learned: {whys}")


def _guarantee_note(panel: Panel, targets: Sequence[str], tiers: dict[str, int], out: Any) -> None:
    """Say where the guarantee of selective verdicts stops when several metrics decide."""
    metrics = [t for t in targets if t != PASS_TARGET]
    if PASS_TARGET in targets:
        if metrics and panel.target_agreement is not None:
            print(
                "note: pass decides the verdicts and carries the agreement guarantee; "
                f"{', '.join(metrics)} only show their learned values (no threshold of theirs "
                "decides, none was certified).",
                file=out,
            )
        return
    if len(metrics) < 2:
        return
    if panel.target_agreement is not None:
        print(
            f"note: the agreement guarantee holds for each metric on its own ({', '.join(metrics)}:"
            " its learned value against its labels, on the cases where it decides); a verdict "
            "the rubric's rule derives from several metrics has no certified agreement of its "
            "own (its confidence is the lowest of its metrics'). Label 'pass' to certify verdicts.",
            file=out,
        )
    if max(tiers.values()) > 1:
        print(
            "note: each metric's thresholds were set on the calibration cases that its own "
            "thresholds send to each tier; a case escalates when any metric is unsure, so more "
            "cases reach a later tier than each metric's calibration assumed.",
            file=out,
        )


def _learn_target(
    panel: Panel,
    rubric: Rubric,
    chosen: Sequence[Case],
    verdicts: Sequence[CaseVerdict],
    table: Labelled,
    args: CalibrateOptions,
    out: Any,
    *,
    draw: bool,
    decides: bool,
    seats: Seats | None = None,
    findings: dict[str, Any] | None = None,
    skipped: Mapping[str, str] | None = None,
) -> tuple[Fit | None, str | None]:
    """Fit, report and (--select, --html) measure one target: its fit and why it failed;
    what was found of the seats goes into `findings` (for ``--json``)."""
    from ..agreement._evidence import consistency, effective, errors
    from ..agreement._fitting import fit_jury, fit_unsupervised
    from ..agreement._select import select
    from ..report._calibration import print_fit, print_selection, tradeoff_page

    target = table.target
    tiers = {juror.id: juror.tier for juror in panel.jurors}
    jurors = sorted(tiers)
    if args.unsupervised:
        result = fit_unsupervised(table, jurors, rubric)
    else:
        result = fit_jury(
            table,
            tiers,
            rubric,
            model=args.model,
            # With a fitted "pass", a metric only shows its value: no threshold to certify.
            target_agreement=panel.target_agreement if decides else None,
            risk=panel.risk,
            seed=args.seed,
            folds=args.folds,
            quorum=panel.quorum,
        )
    labelled = any(label >= 0 for label in table.labels)
    worth = effective(table, jurors, seats) if labelled else None
    shared = errors(table, jurors, seats) if labelled else None
    same = consistency(table, jurors)
    print(f"Target: {target} ({', '.join(table.keys)}); jurors {', '.join(jurors)}", file=out)
    print_fit(result, same, worth, out, shared)
    if findings is not None:
        findings[target] = {
            "effective_judges": worth.model_dump(mode="json") if worth else None,
            "error_correlation": shared.model_dump(mode="json") if shared else None,
        }
    costs: dict[str, SeatCost] | None = None
    if args.select:
        if not labelled:
            raise ConfigError("--select measures held-out accuracy: it needs labels")
        last = result.stages[-1]
        model = last.model if last.model != "dawid-skene" else "weights"
        from ..report._seat_costs import print_seat_costs

        costs = _seat_costs(panel, rubric, chosen, verdicts, seats)
        ranked = select(
            table,
            jurors,
            {seat: found.cost for seat, found in costs.items()},
            model=model,
            penalty=last.penalty,
            seed=args.seed,
            folds=args.folds,
        )
        print_selection(ranked, out)
        print_seat_costs(costs, out)
        if findings is not None:
            findings[target]["seat_costs"] = {
                seat: {"usd_per_1000": None if c.cost is None else 1000 * c.cost}
                | {"source": c.source, "model": c.model}
                for seat, c in costs.items()
            }
        if args.budget is not None:
            from ..agreement._select import within_budget
            from ..report._calibration import print_budget

            # A seat's model (a seat is a model and a strategy); an object model is its own.
            models = {j.id: j.model if isinstance(j.model, str) else j.id for j in panel.jurors}
            print_budget(within_budget(ranked, args.budget, models), out)
    if args.cascades and labelled and not args.unsupervised:
        if costs is None:
            costs = _seat_costs(panel, rubric, chosen, verdicts, seats)
        _cascades(panel, rubric, chosen, verdicts, table, args, out, costs)
    if args.html and draw:
        title = f"aiojury calibration · {rubric.name} · {target}"
        page = tradeoff_page(result, same, worth, title, shared, seats, skipped)
        Path(args.html).write_text(page, encoding="utf-8")
        print(f"trade-off drawn in {args.html}", file=out)
    return result.fit, result.failure


def _cascades(
    panel: Panel,
    rubric: Rubric,
    chosen: Sequence[Case],
    verdicts: Sequence[CaseVerdict],
    table: Any,
    args: CalibrateOptions,
    out: Any,
    priced: dict[str, SeatCost],
) -> None:
    """``--cascades``: the recommended cascade order, chosen out of sample (issue 21)."""
    from ..agreement._evidence import alone
    from ..agreement._recommend import engine_measure, orders_of, recommend_cascade

    members = [i for i, label in enumerate(table.labels) if label >= 0]
    strength = {
        j.id: sum(
            o == table.labels[i] for o, i in zip(alone(table, members, j.id), members, strict=True)
        )
        / len(members)
        for j in panel.jurors
    }
    # Priced as `--select --budget` prices: the price tables, per seat.
    costs = {j.id: priced[j.id].cost if j.id in priced else None for j in panel.jurors}
    orders = orders_of(panel, costs, strength)
    measure = engine_measure(panel, rubric, chosen, verdicts, table, costs)
    found = recommend_cascade(
        table,
        orders,
        rubric,
        measure,
        seed=args.seed,
        model=args.model,
        folds=args.folds,
        quorum=panel.quorum,
    )
    print(
        f"Cascade orders ({found.folds} inner folds of the labelled cases: each order fitted on "
        "the others, measured on one):",
        file=out,
    )
    for option in found.options:
        ratio = option.cost_ratio
        cost = "cost unknown" if ratio is None else f"cost {100 * ratio:.1f} % of the full panel's"
        print(f"  {option.name}: accuracy {100 * option.accuracy:.1f} %, {cost}", file=out)
    tiers = ", ".join(f"{j} {t}" for j, t in sorted(orders[found.chosen].items()))
    print(
        f"Recommended cascade: {found.chosen} (the cheapest within 1 point of the most accurate);"
        f" tiers: {tiers}",
        file=out,
    )


def _seat_costs(
    panel: Panel,
    rubric: Rubric,
    chosen: Sequence[Case],
    verdicts: Sequence[CaseVerdict],
    seats: Seats | None,
) -> dict[str, SeatCost]:
    """Each seat's cost from the price tables: its votes' tokens, else the estimate (one
    estimate a target, shared by ``--select`` and ``--cascades``)."""
    from ..agreement._seats import Seats
    from ..agreement._select import seat_costs

    known = seats if seats is not None else Seats.of_panel(panel, verdicts)
    return seat_costs(panel, chosen, verdicts, known, rubric)
