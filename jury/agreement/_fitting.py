"""From labelled verdicts to a fit file: what `jury calibrate --fit` does for each target (it
calls `fit_jury` once per labelled target and writes them into one file).

1. Each case becomes a row of evidence (`jury.decide._learned.signals`: a source per juror, or per
   presentation order of a pairwise juror) and, where labelled, a class of the target.
2. With a target agreement, the labelled cases are split, seeded and by class, into a part the
   models are fitted on and a part the thresholds are calibrated on: a threshold is never
   calibrated on the cases its model was fitted on.
3. For each stage (tier 1, tiers 1-2, ...): k-fold held-out accuracy of the log-odds weights,
   the stacked model, the naive majority and each juror alone, on the fitting part; the
   better model (or the one asked for) is fitted on the whole fitting part, and its
   probabilities are mapped to the agreement its held-out predictions had (isotonic).
4. Thresholds: with a target, fixed-sequence testing on the calibration cases that reach each
   stage, at risk / stages (a union bound over the stages); without one, a tier before the
   last stands when its estimated agreement reaches the whole panel's held-out accuracy, and
   the last stage decides whatever its quorum allows.

A case with fewer readable votes than a stage's quorum (the panel's `quorum`, else a majority
of the jurors asked so far, as `jury.decide._cascade` decides) is undecided by the learned jury
at that stage, as it is in a run: its held-out prediction is "undecided", it is not fitted on
(its only evidence would be the intercept, which then learns the labels of the cases the
judges never saw: ten such cases once read as "87.5 % of 100 % decided" against jurors who
decided 58 %), and it is never a kept case when thresholds are calibrated.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from .._errors import ConfigError
from ..decide._learned import Fit, FitSource, FitStage, SourceKey, is_soft, value_key
from ._evidence import Labelled, Method, Rows, alone, method, naive
from ._learn import Linear, fit_dawid_skene, fit_stacked, fit_weights, folds_of
from ._selective import Threshold, curve, fixed_sequence, isotonic_steps

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from ..adapters._rubric import Rubric

__all__ = [
    "MIN_LABELLED",
    "FitResult",
    "StageResult",
    "cheapest_within",
    "fit_jury",
    "fit_unsupervised",
    "unheard",
    "unlearnable",
]

#: The fewest labelled cases a fit accepts.
MIN_LABELLED = 20
Choice = Literal["auto", "weights", "stacked"]
Maker = Callable[[Rows, list[int]], Linear]


@dataclass(slots=True)
class StageResult:
    """One stage as `jury calibrate` reports it."""

    number: int
    jurors: tuple[str, ...]
    methods: list[Method]
    model: str
    penalty: float | None = None
    threshold: float = 0.0
    certified: Threshold | None = None

    def method(self, name: str) -> Method:
        return next(m for m in self.methods if m.name == name)


@dataclass(slots=True)
class FitResult:
    """A fit, and everything `jury calibrate` prints about it."""

    fit: Fit | None
    stages: list[StageResult]
    warnings: list[str]
    #: Why no fit can be written (no threshold meets the target), else None.
    failure: str | None
    #: Accuracy-coverage on held-out cases: the fitted jury, the naive majority, each juror.
    curves: dict[str, list[tuple[float, float]]]
    labelled: int
    fitted_on: int
    calibrated_on: int
    #: The fitting part, and the held-out class index and probability of the fitted jury.
    fitting: list[int] = field(default_factory=list)
    held_out: tuple[NDArray[np.int64], NDArray[np.float64]] | None = None
    #: Fitting cases below the last stage's quorum: undecided, not fitted on.
    below_quorum: int = 0


def held_out(
    rows: Rows,
    labels: Sequence[int],
    assigned: NDArray[np.int64],
    make: Maker,
    heard: NDArray[np.bool_] | None = None,
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """Each case's class index (-1: a tie, or below the quorum) and probability from a
    model fitted on the other folds' cases that meet the quorum (`heard`; all without it)."""
    index = np.full(len(rows), -1, dtype=np.int64)
    probability = np.zeros(len(rows))
    y = np.asarray(labels)
    heard = np.ones(len(rows), dtype=bool) if heard is None else heard
    for fold in np.unique(assigned):
        train = np.nonzero((assigned != fold) & heard)[0]
        test = np.nonzero((assigned == fold) & heard)[0]
        if not len(train) or not len(test):
            continue  # nothing to fit on, or nothing this fold can decide: undecided
        model = make([rows[i] for i in train], y[train].tolist())
        index[test], probability[test] = model.predict([rows[i] for i in test])
    return index, probability


def quorum_met(rows: Rows, jurors: Sequence[str], quorum: int | None) -> NDArray[np.bool_]:
    """Whether each row has as many readable jurors as the stage's quorum: the panel's
    `quorum`, else a majority of the stage's jurors (`jury.decide._cascade`)."""
    needed = quorum if quorum is not None else len(jurors) // 2 + 1
    return np.array([len({key[0] for key in row}) >= needed for row in rows], dtype=bool)


def _folds(labels: Sequence[int], folds: int, rng: np.random.Generator) -> NDArray[np.int64]:
    counts = np.bincount(np.asarray(labels))
    return folds_of(labels, max(2, min(folds, int(counts[counts > 0].min()))), rng)


def _split(
    members: Sequence[int], labels: Sequence[int], share: float, rng: np.random.Generator
) -> tuple[list[int], list[int]]:
    """Stratified: each class's cases shuffled, the first `share` of them to fitting."""
    fitting: list[int] = []
    by_class: dict[int, list[int]] = {}
    for member, label in zip(members, labels, strict=True):
        by_class.setdefault(label, []).append(member)
    for label in sorted(by_class):
        shuffled = rng.permutation(by_class[label]).tolist()
        fitting += shuffled[: round(share * len(shuffled))]
    chosen = set(fitting)
    return sorted(fitting), [m for m in members if m not in chosen]


def _stage(model: Linear, jurors: Sequence[str], steps: Any, keys: Sequence[str]) -> FitStage:
    by_source: dict[SourceKey, dict[str, list[float]]] = {}
    for (source, value), row in zip(model.columns, model.coef.tolist(), strict=True):
        by_source.setdefault(source, {})[value] = [round(x, 6) for x in row]
    rows = []
    for source, scores in by_source.items():
        weight = model.weights.get(source) if model.weights else None
        rows.append(
            FitSource(
                juror=source[0],
                order=source[1],
                scores=scores,
                weight=None if weight is None else round(weight[0], 6),
                accuracy=None if weight is None else round(weight[1], 6),
                rated=None if weight is None else weight[2],
            )
        )
    return FitStage(
        jurors=tuple(jurors),
        intercept=[round(x, 6) for x in model.intercept.tolist()],
        source=tuple(rows),
        confidence=tuple((round(b, 6), round(v, 6)) for b, v in steps),
    )


def _indistinct(rows: Rows, labels: Sequence[int], keys: Sequence[str]) -> list[str]:
    """Sources whose accuracy a two-sided binomial test cannot tell from chance (5 %)."""
    from scipy.stats import binomtest

    tally: dict[SourceKey, list[int]] = {}
    for row, label in zip(rows, labels, strict=True):
        for source, value in row.items():
            if is_soft(source[1]):
                continue  # a probability bin is never a class: it is not right or wrong
            counts = tally.setdefault(source, [0, 0])
            counts[0] += value == keys[label]
            counts[1] += 1
    out = []
    for (juror, order), (right, rated) in sorted(tally.items(), key=lambda t: str(t[0])):
        p_value = binomtest(right, rated, 1 / len(keys)).pvalue
        if p_value > 0.05:
            name = juror if order is None else f"{juror} ({order})"
            out.append(
                f"{name}: right on {right} of {rated} labelled cases, not distinguishable from "
                f"chance (p = {p_value:.2f}): its weight is not distinguishable from zero"
            )
    return out


def _models(table: Labelled, seed: int, folds: int) -> dict[str, Maker]:
    keys, k = table.keys, len(table.classes)

    def stacked(rows: Rows, labels: list[int]) -> Linear:
        return fit_stacked(rows, labels, k, folds=folds, rng=np.random.default_rng(seed))[0]

    def weights(rows: Rows, labels: list[int]) -> Linear:
        return fit_weights(rows, labels, keys)

    return {"weights": weights, "stacked": stacked}


def unlearnable(labels: Sequence[str | None]) -> str | None:
    """Why no fit can be learned from these labels of one target (None: not labelled), or
    None when it can: too few labelled cases, or one value only (nothing to tell apart).
    Known before any juror is asked, so a fit that cannot be made costs nothing."""
    given = [label for label in labels if label is not None]
    if not given:
        return "no case is labelled on it"
    if len(given) < MIN_LABELLED:
        return f"{len(given)} case(s) labelled (a fit needs at least {MIN_LABELLED})"
    if len(set(given)) < 2:
        return f"every label is {given[0]} (a fit needs two different labels)"
    return None


def unheard(table: Labelled, *, labelled_only: bool = True) -> str | None:
    """Why the jurors' votes teach nothing about the target (no vote gives it a value on a
    labelled case, or on any case for an unsupervised fit), or None."""
    members = [i for i, label in enumerate(table.labels) if label >= 0 or not labelled_only]
    if any(table.rows[i] for i in members):
        return None
    where = "labelled case" if labelled_only else "case"
    return f"no juror's vote gives it a value on any {where} (nothing to learn from)"


def fit_jury(
    table: Labelled,
    tiers: Mapping[str, int],
    rubric: Rubric,
    *,
    model: Choice = "auto",
    target_agreement: float | None = None,
    risk: float = 0.1,
    seed: int = 0,
    folds: int = 5,
    fit_share: float = 0.5,
    quorum: int | None = None,
) -> FitResult:
    """Fit the learned jury of `table` for a panel whose jurors sit in `tiers`; `quorum` is
    the panel's (None: a majority of each stage's jurors, as a run decides)."""
    labelled = [i for i, label in enumerate(table.labels) if label >= 0]
    why = unlearnable([table.keys[i] if i >= 0 else None for i in table.labels])
    why = why or unheard(table)
    if why is not None:
        raise ConfigError(f"{table.target}: {why}")
    everyone = tuple(sorted(tiers))
    voted = int(quorum_met(table.only(everyone, labelled), everyone, quorum).sum())
    if voted < MIN_LABELLED:
        # The minimum is of the cases a fit can learn from: a labelled case without the
        # quorum's votes teaches it nothing (it stays undecided), and counting it would let
        # 14 cases with votes pass for 24.
        raise ConfigError(
            f"{table.target}: {voted} of the {len(labelled)} labelled case(s) have the "
            f"quorum's readable votes (a fit needs at least {MIN_LABELLED}); the others were "
            "spared the judges or lost their votes"
        )
    rng = np.random.default_rng(seed)
    if target_agreement is not None:
        fitting, calibrating = _split(labelled, [table.labels[i] for i in labelled], fit_share, rng)
    else:
        fitting, calibrating = labelled, []
    y = [table.labels[i] for i in fitting]
    assigned = _folds(y, folds, rng)
    makers = _models(table, seed, folds)
    stages = max(tiers.values())
    results: list[StageResult] = []
    fitted: list[FitStage] = []
    warnings: list[str] = []
    final_oof: tuple[NDArray[np.int64], NDArray[np.float64]] | None = None
    below = 0
    for number in range(1, stages + 1):
        jurors = tuple(sorted(j for j, t in tiers.items() if t <= number))
        rows = table.only(jurors, fitting)
        heard = quorum_met(rows, jurors, quorum)
        if not heard.any():
            raise ConfigError(
                f"{table.target}: no labelled case has the quorum's readable votes at stage "
                f"{number} ({', '.join(jurors)}): nothing to fit on"
            )
        oof = {name: held_out(rows, y, assigned, make, heard) for name, make in makers.items()}
        methods = [method(name, found[0], y) for name, found in oof.items()]
        methods.append(method("naive majority", naive(table, fitting, jurors), y))
        methods += [method(j, alone(table, fitting, j), y) for j in jurors]
        chosen = model
        if chosen == "auto":
            better = methods[1].right > methods[0].right
            chosen = "stacked" if better else "weights"
        index, probability = oof[chosen]
        steps = isotonic_steps(
            probability[heard].tolist(), (index == np.asarray(y))[heard].tolist()
        )
        penalty = None
        kept_rows = [row for row, ok in zip(rows, heard, strict=True) if ok]
        kept_y = [label for label, ok in zip(y, heard, strict=True) if ok]
        if chosen == "stacked":
            final, penalty = fit_stacked(
                kept_rows, kept_y, len(table.classes), folds=folds, rng=np.random.default_rng(seed)
            )
        else:
            final = makers["weights"](kept_rows, kept_y)
        results.append(StageResult(number, jurors, methods, chosen, penalty))
        fitted.append(_stage(final, jurors, steps, table.keys))
        if number == stages:
            final_oof = oof[chosen]
            warnings += _indistinct(rows, y, table.keys)
            below = int((~heard).sum())
    failure = _thresholds(table, results, fitted, calibrating, target_agreement, risk, quorum)
    curves = _curves(table, fitting, y, final_oof, results[-1].jurors)
    fit = None
    if failure is None:
        fit = Fit(
            target=table.target,
            classes=tuple(table.classes),
            model=results[-1].model,
            rubric=rubric.name,
            fingerprint=rubric.fingerprint(),
            target_agreement=target_agreement,
            risk=risk if target_agreement is not None else None,
            stage=tuple(fitted),
            about=_about(seed, folds, labelled, fitting, calibrating, results)
            | ({"below_quorum (undecided, not fitted on)": below} if below else {}),
        )
    return FitResult(
        fit,
        results,
        warnings,
        failure,
        curves,
        len(labelled),
        len(fitting),
        len(calibrating),
        fitting,
        final_oof,
        below,
    )


def _thresholds(
    table: Labelled,
    results: list[StageResult],
    fitted: list[FitStage],
    calibrating: list[int],
    target: float | None,
    risk: float,
    quorum: int | None = None,
) -> str | None:
    """Set each stage's threshold (in place); why the target cannot be met, else None."""
    stages = len(results)
    last = results[-1]
    whole = last.method(last.model).accuracy_all
    reaching = list(calibrating)
    for number, result in enumerate(results, start=1):
        final = number == stages
        stage = fitted[number - 1]
        if target is None:
            value = 0.0 if final else whole
            means = "" if final else f"the whole panel's held-out accuracy ({whole:.0%})"
            result.threshold = value
            fitted[number - 1] = stage.model_copy(
                update={"threshold": value, "threshold_means": means}
            )
            continue
        rows = table.only(result.jurors, reaching)
        heard = quorum_met(rows, result.jurors, quorum)
        predictions = [stage.predict(row, table.classes) for row in rows]
        # Below the quorum a case is never decided here (it escalates, or stays
        # INCONCLUSIVE): it counts as kept-and-wrong only at a threshold of 0, which can
        # only make the certified agreement more cautious.
        confidence = [p.confidence if ok else 0.0 for p, ok in zip(predictions, heard, strict=True)]
        correct = [
            ok and p.value is not None and value_key(p.value) == table.keys[table.labels[i]]
            for p, i, ok in zip(predictions, reaching, heard, strict=True)
        ]
        kept = fixed_sequence(confidence, correct, target, risk / stages)
        result.threshold = kept.value if kept is not None else float("inf")
        result.certified = kept
        fitted[number - 1] = stage.model_copy(
            update={
                "threshold": result.threshold,
                "threshold_means": f"{target:.0%} agreement",
                "coverage": None if kept is None else round(kept.coverage, 4),
                "agreement": None if kept is None else round(kept.agreement, 4),
            }
        )
        if kept is not None:
            reaching = [i for i, c in zip(reaching, confidence, strict=True) if c < kept.value]
        if final and kept is None:
            return (
                f"no threshold meets {target:.0%} agreement at risk {risk:g} on the "
                f"{len(calibrating)} calibration cases"
            )
    return None


def _curves(
    table: Labelled,
    fitting: list[int],
    y: list[int],
    oof: tuple[NDArray[np.int64], NDArray[np.float64]] | None,
    jurors: Sequence[str],
) -> dict[str, list[tuple[float, float]]]:
    out: dict[str, list[tuple[float, float]]] = {}
    labels = np.asarray(y)
    if oof is not None:
        index, probability = oof
        decided = [p if i >= 0 else None for i, p in zip(index.tolist(), probability, strict=True)]
        out["fitted jury"] = curve(decided, (index == labels).tolist())
    votes = naive(table, fitting, jurors)
    margin: list[float | None] = []
    for i, decided_class in zip(fitting, votes, strict=True):
        said = [v for j, v in table.jurors[i].items() if j in jurors]
        margin.append(
            said.count(table.keys[decided_class]) / len(said) if decided_class >= 0 else None
        )
    out["naive majority"] = curve(margin, (np.asarray(votes) == labels).tolist())
    for juror in jurors:
        own = np.asarray(alone(table, fitting, juror))
        out[juror] = curve([1.0 if o >= 0 else None for o in own], (own == labels).tolist())
    return out


def _about(
    seed: int,
    folds: int,
    labelled: list[int],
    fitting: list[int],
    calibrating: list[int],
    results: list[StageResult],
) -> dict[str, Any]:
    return {
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "seed": seed,
        "folds": folds,
        "labelled": len(labelled),
        "fitted_on": len(fitting),
        "calibrated_on": len(calibrating),
        "held_out_accuracy": {
            f"stage {r.number} {m.name}": round(m.accuracy_all, 4)
            for r in results
            for m in r.methods[:3]
        },
    }


def fit_unsupervised(table: Labelled, jurors: Sequence[str], rubric: Rubric) -> FitResult:
    """Dawid-Skene over every case's votes; labels, where there are any, only to report."""
    rows = table.only(jurors, range(len(table.rows)))
    if not any(rows):
        raise ConfigError("no case has a readable vote: nothing to fit")
    model, _ = fit_dawid_skene(rows, table.keys)
    labelled = [i for i, label in enumerate(table.labels) if label >= 0]
    methods = []
    if labelled:
        index, _ = model.predict([rows[i] for i in labelled])
        y = [table.labels[i] for i in labelled]
        methods = [method("dawid-skene", index, y)]
        methods.append(method("naive majority", naive(table, labelled, jurors), y))
    stage = _stage(model, jurors, (), table.keys)
    fit = Fit(
        target=table.target,
        classes=tuple(table.classes),
        model="dawid-skene",
        rubric=rubric.name,
        fingerprint=rubric.fingerprint(),
        stage=(stage,),
        about={
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "cases": len(rows),
            "labelled (reported only)": len(labelled),
        },
    )
    result = StageResult(1, tuple(jurors), methods, "dawid-skene")
    return FitResult(fit, [result], [], None, {}, len(labelled), len(rows), 0)


def cheapest_within(
    options: Sequence[tuple[str, float, float | None]], tolerance: float = 0.01
) -> str:
    """The recommended cascade among (name, accuracy, cost ratio) options measured on
    labelled cases: the cheapest by cost (not calls) whose accuracy is within `tolerance` of
    the best option's. An option of unknown cost is recommended only when no cost is known
    (never taken as free); ties go to the more accurate, then the first given."""
    if not options:
        raise ValueError("no cascade to recommend")
    best = max(accuracy for _, accuracy, _ in options)
    near = [(i, o) for i, o in enumerate(options) if o[1] >= best - tolerance - 1e-12]
    priced = [(i, o) for i, o in near if o[2] is not None]
    pool = priced or near
    return min(pool, key=lambda t: (t[1][2] if t[1][2] is not None else 0.0, -t[1][1], t[0]))[1][0]
