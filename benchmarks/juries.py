"""Juries that beat their best juror? Learned weights, stacking, Dawid-Skene, selective verdicts
and cascades on recorded judges (LLMBar: both presentation orders; PandaLM: one order), over
seeded random 50/50 splits: fit on one half, measure on the other.

The recorded verdicts go through the engine once (replay jurors); each panel's votes are then
decided again, per split, by the engine's own decision step (`jury.decide._cascade.Decider`, what
`jury rescore` runs) under each way of combining them, with fits from
`jury.agreement._fitting` (what `jury calibrate --fit` runs). Nothing is chosen on a test
half: the best juror, the model, the thresholds and the tier orders come from the training
half, and a threshold is calibrated on training cases its model was not fitted on.

Figures are fractions, means over the splits: accuracy_all (right / all test items, undecided
counted wrong), accuracy_decided (right / decided; the mean over splits that decided any),
coverage (decided / all). The best juror's `accuracy` is the LLMBar authors' measure (mean
over both orders of agreement with gold); on PandaLM its one order.

Seat panels (issue 21): on the 419 LLMBar items (Natural + Adversarial), a seat is a model and
a prompt strategy, named exactly as the data's `judges` keys ("ChatGPT/Vanilla_NoRules"). Every
panel reports its "seats" and "items"; every cascade its "cost_ratio" (USD against the full
panel's, from the per-token prices below), with one tier per model.

Run: ``python benchmarks/juries.py [--splits 20] [--json] [--jobs 2] [--without-every-pair]``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import _preference as pandalm
from benchmarks import llmbar
from benchmarks._machine import machine
from jury import Case, CaseVerdict, Juror, Jury, Panel, Verdict
from jury._logging import configure_logging
from jury.adapters import Rubric
from jury.agreement._evidence import Labelled, labelled_table
from jury.agreement._fitting import fit_jury, fit_unsupervised
from jury.agreement._recommend import Measured, recommend_cascade
from jury.decide._cascade import Decider, cheapest_first, spend
from jury.decide._learned import Fit, value_key
from jury.providers.replay import Record, write_records

#: USD per million tokens (input, output), per model of the recorded data, list prices of the
#: time the verdicts were recorded (2023). They set the "cheapest first" order and the cost
#: ratio, nothing else. Sources:
#: - GPT-4 (gpt-4-0613): OpenAI pricing page, $0.03 / 1K prompt, $0.06 / 1K completion tokens.
#: - ChatGPT (gpt-3.5-turbo-0613, 4K): OpenAI pricing page (13 June 2023 price cut),
#:   $0.0015 / 1K prompt, $0.002 / 1K completion; ChatGPT-0301 (gpt-3.5-turbo-0301) $0.002 / 1K
#:   both ways; gpt35 (PandaLM's gpt-3.5-turbo) as ChatGPT.
#: - PaLM2 (Vertex AI text-bison@001): Google Cloud Vertex AI pricing, $0.0005 / 1K characters
#:   input and output, about $2 per million tokens at four characters a token.
#: - LLaMA2 (Llama-2-70b-chat) and Falcon (falcon-180b-chat, open weights): no first-party API;
#:   a hosted serving price of the time (Together AI's list: about $0.9 per million tokens for
#:   70B models, assumed $2 for 180B). PandaLM-7B: self-hosted, assumed $0.2.
#: These are assumptions stated, not measured bills.
PRICE = {
    "GPT-4": (30.0, 60.0),
    "ChatGPT": (1.5, 2.0),
    "ChatGPT-0301": (2.0, 2.0),
    "PaLM2": (2.0, 2.0),
    "LLaMA2": (0.9, 0.9),
    "Falcon": (2.0, 2.0),
    "gpt35": (1.5, 2.0),
    "pandalm7b": (0.2, 0.2),
}
#: Assumed tokens of one judging call (an LLMBar prompt with two outputs, a short verdict) and
#: of one generation a strategy makes before it judges (its questions or its own answer, made
#: once per item and read by both orders), from the LLMBar prompts' typical length.
CALL_TOKENS = (800, 60)
GENERATION_TOKENS = (300, 300)
#: Generations before the verdict, by strategy (LLMBar, Zeng et al. 2024, section 3):
#: Metrics writes questions, Reference its own output, Metrics_Reference both; CoT and the
#: Rating prompts write a longer reply (counted as one generation).
GENERATIONS = {"Metrics": 1, "Reference": 1, "Metrics_Reference": 2, "CoT": 1, "Swap_CoT": 1}
VNR, MR, REF = "Vanilla_NoRules", "Metrics_Reference", "Reference"
STRATEGIES = (VNR, MR, REF)
LLMBAR_PANELS: dict[str, tuple[str, ...]] = {
    "LLMBar GPT-4+PaLM2+LLaMA2 Vanilla_NoRules": (f"GPT-4/{VNR}", f"PaLM2/{VNR}", f"LLaMA2/{VNR}"),
    "LLMBar ChatGPT+PaLM2+LLaMA2 Vanilla_NoRules": (
        f"ChatGPT/{VNR}",
        f"PaLM2/{VNR}",
        f"LLaMA2/{VNR}",
    ),
    "LLMBar GPT-4+PaLM2+LLaMA2 Metrics_Reference": (f"GPT-4/{MR}", f"PaLM2/{MR}", f"LLaMA2/{MR}"),
}
#: The issue's panels on the 419 LLMBar items (Natural + Adversarial); "(c)" is filled in from
#: the data: every (judge, strategy) pair recorded on all of them.
CHEAP = ("ChatGPT", "PaLM2", "LLaMA2")
SEAT_PANELS: dict[str, tuple[str, ...]] = {
    "LLMBar-419 (a) ChatGPT+PaLM2+LLaMA2 x 3 strategies": tuple(
        f"{m}/{s}" for m in CHEAP for s in STRATEGIES
    ),
    "LLMBar-419 (b) (a) + GPT-4 x 3 strategies": tuple(
        f"{m}/{s}" for m in (*CHEAP, "GPT-4") for s in STRATEGIES
    ),
}
EVERY_PAIR = "LLMBar-419 (c) every (judge, strategy) pair on all 419 items"
GPT4_ALONE = "LLMBar-419 GPT-4 x every strategy recorded"
PANDALM_PANEL = ("gpt35", "pandalm7b")
TARGETS = (0.85, 0.80)
RISK = 0.1
#: Cheap models share a tier when each costs at most this many times the tier's cheapest.
COST_BAND = 10.0
#: The recommended cascade: the cheapest within this much accuracy of the best order.
TOLERANCE = 0.01
#: Inner folds of the training half the recommendation is measured on (fit on one, measure on
#: the other, and the other way round): two keeps each inner fit at half the training half,
#: and the run within its 15 minutes.
INNER_FOLDS = 2
ORDERS = ("strongest first", "cheapest first", "cheapest first, by cost band")


def model_of(seat: str) -> str:
    return seat.split("/", maxsplit=1)[0]


def price(seat: str, prompts: int = 2) -> float:
    """USD of one item's verdict by this seat: its judging calls (one per order) and the
    generations its strategy makes first (once per item)."""
    inp, out = PRICE[model_of(seat)]
    strategy = seat.split("/", maxsplit=1)[1] if "/" in seat else ""
    generations = GENERATIONS.get(strategy, 0)
    tokens_in = prompts * CALL_TOKENS[0] + generations * GENERATION_TOKENS[0]
    tokens_out = prompts * CALL_TOKENS[1] + generations * GENERATION_TOKENS[1]
    return (tokens_in * inp + tokens_out * out) / 1e6


@dataclass(slots=True)
class Data:
    """One dataset, judged once: cases, every juror's recorded verdicts, gold, and each
    juror's score alone per case (the authors' measure)."""

    rubric: Rubric
    prompts: int
    cases: list[Case]
    verdicts: list[CaseVerdict]
    alone: dict[str, np.ndarray]


async def judge(
    cases: Sequence[Case], files: Mapping[str, Sequence[Record]], rubric: Rubric
) -> list[CaseVerdict]:
    with tempfile.TemporaryDirectory() as folder:
        jurors = []
        for name, recs in files.items():
            path = Path(folder) / f"{name.replace('/', '_')}.jsonl"
            write_records(path, recs)
            jurors.append(Juror(model=f"replay/{path}", name=name))
        panel = Panel(jurors=tuple(jurors), quorum=1, reasks=0, concurrency=64, case_timeout=None)
        async with Jury(panel, rubric=rubric, checks=None) as jury:
            found = {v.case_id: v async for v in jury.evaluate(cases)}
    return [found[case.id] for case in cases]


def every_pair(items: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """The (judge, strategy) pairs recorded on every one of these items."""
    return tuple(sorted(set.intersection(*(set(it["judges"]) for it in items))))


def llmbar_data(items: Sequence[Mapping[str, Any]], judges: Sequence[str]) -> Data:
    cases = [
        case.model_copy(update={"labels": {"winner": "A" if item["gold"] == 1 else "B"}})
        for case, item in zip(llmbar.cases(items), items, strict=True)
    ]
    verdicts = asyncio.run(
        judge(cases, {j: llmbar.records(items, j) for j in judges}, llmbar.RUBRIC)
    )
    alone = {
        j: np.array(
            [
                (
                    (it["judges"][j]["noswap"] == str(it["gold"]))
                    + (it["judges"][j]["swap"] == str(it["gold"]))
                )
                / 2
                for it in items
            ]
        )
        for j in judges
    }
    return Data(llmbar.RUBRIC, 2, cases, verdicts, alone)


def pandalm_data(folder: Path) -> Data:
    items = [it for it in pandalm.load_items(folder) if pandalm.majority(it) is not None]
    cases = pandalm.cases(items)
    files = {j: pandalm.records(items, j) for j in PANDALM_PANEL}
    verdicts = asyncio.run(judge(cases, files, pandalm.PREFERENCE))
    alone = {
        j: np.array([float(pandalm.said(it, j) == pandalm.majority(it)) for it in items])
        for j in PANDALM_PANEL
    }
    return Data(pandalm.PREFERENCE, 1, cases, verdicts, alone)


# --- deciding a test half ----------------------------------------------------------------------


@dataclass(slots=True)
class Tally:
    right: int = 0
    decided: int = 0
    cases: int = 0
    calls: int = 0
    full_calls: int = 0
    cost: float = 0.0
    full_cost: float = 0.0


def decide(
    data: Data,
    members: Sequence[int],
    jurors: Sequence[str],
    gold: Sequence[str],
    *,
    fit: Fit | None = None,
    tiers: Mapping[str, int] | None = None,
) -> Tally:
    """The engine's verdicts on these cases: majority (quorum 1, the LLMBar benchmark's rule)
    without a fit, the learned jury (and its cascade) with one."""
    tiers = dict(tiers or dict.fromkeys(jurors, 1))
    panel = Panel(
        jurors=tuple(Juror(model=f"replay/{j}", name=j, tier=tiers[j]) for j in jurors),
        aggregation="learned" if fit else "majority",
        calibration="(in memory)" if fit else None,
        quorum=1,
    )
    rules = Decider(
        panel, data.rubric, tiers, dict.fromkeys(jurors, 1.0), lambda c, j: data.prompts, fit
    )
    tally = Tally()
    verdicts = []
    for i in members:
        votes = tuple(v for v in data.verdicts[i].votes if v.juror in jurors)
        verdict = rules.decide(data.cases[i], votes)
        verdicts.append(verdict)
        tally.cases += 1
        winner = verdict.metrics["winner"].value if "winner" in verdict.metrics else None
        if verdict.verdict is Verdict.INCONCLUSIVE or winner is None:
            continue
        tally.decided += 1
        tally.right += value_key(winner) == gold[i]
    # Calls and cost (against the full panel's) as the engine's cascade step counts them.
    spent = spend(
        verdicts, jurors, lambda j: data.prompts, {j: price(j, data.prompts) for j in jurors}
    )
    tally.calls, tally.full_calls = spent.calls, spent.full_calls
    tally.cost, tally.full_cost = spent.cost or 0.0, spent.full_cost or 0.0
    return tally


# --- one panel over the splits ------------------------------------------------------------------


@dataclass(slots=True)
class Series:
    """One way of deciding, split after split."""

    all: list[float] = field(default_factory=list)
    decided: list[float] = field(default_factory=list)
    coverage: list[float] = field(default_factory=list)
    calls: list[float] = field(default_factory=list)
    cost: list[float] = field(default_factory=list)
    met: int = 0
    empty: int = 0

    def add(self, tally: Tally, target: float | None = None) -> None:
        self.all.append(tally.right / tally.cases)
        self.coverage.append(tally.decided / tally.cases)
        self.calls.append(tally.calls / tally.full_calls)
        self.cost.append(tally.cost / tally.full_cost)
        if tally.decided:
            agreement = tally.right / tally.decided
            self.decided.append(agreement)
            self.met += target is not None and agreement >= target
        else:
            self.empty += 1

    def nothing(self) -> None:
        """A split where no threshold met the target: nothing decided."""
        self.all.append(0.0)
        self.coverage.append(0.0)
        self.empty += 1

    def figures(self) -> dict[str, Any]:
        def mean(values: list[float]) -> float | None:
            return round(float(np.mean(values)), 4) if values else None

        return {
            "accuracy_all": mean(self.all),
            "accuracy_decided": mean(self.decided),
            "coverage": mean(self.coverage),
        }


@dataclass(slots=True)
class Split:
    """What one split gave: each way's tally in the order recorded, the best juror (named on
    the training half, measured on the test half) and the recommended order."""

    tallies: list[tuple[str, Tally | None, float | None]]
    best: tuple[str, float]
    chosen: str


#: The split function of the panel being run, for the forked workers (a closure does not
#: pickle; a forked worker inherits it).
_ONE: list[Callable[[int], Split]] = []


def _one_split(split: int) -> Split:
    return _ONE[0](split)


def over_splits(one: Callable[[int], Split], splits: int, jobs: int) -> list[Split]:
    """Every split's result, in split order, in `jobs` forked processes: each split is seeded
    by its number alone, so the figures do not depend on how many run at once."""
    if jobs <= 1 or splits <= 1:
        return [one(split) for split in range(splits)]
    import multiprocessing

    _ONE[:] = [one]
    try:
        with multiprocessing.get_context("fork").Pool(min(jobs, splits)) as pool:
            return pool.map(_one_split, range(splits), chunksize=1)
    finally:
        _ONE.clear()


def run_panel(
    name: str, data: Data, jurors: Sequence[str], splits: int, jobs: int = 1
) -> dict[str, Any]:
    everyone = labelled_table(data.cases, data.verdicts, data.rubric, "winner")
    rows = [{k: v for k, v in row.items() if k[0] in jurors} for row in everyone.rows]
    table = Labelled(
        everyone.target, everyone.classes, everyone.ids, rows, everyone.jurors, everyone.labels
    )
    gold = [table.keys[label] if label >= 0 else "" for label in table.labels]
    labelled = [i for i, label in enumerate(table.labels) if label >= 0]
    n = len(labelled)
    series: dict[str, Series] = {}
    best: list[tuple[str, float]] = []
    one_tier = dict.fromkeys(jurors, 1)

    def one(split: int) -> Split:
        """One split: every way of deciding, fitted on its training half, on its test half."""
        tallies: list[tuple[str, Tally | None, float | None]] = []

        def record(key: str, tally: Tally | None, target: float | None = None) -> None:
            tallies.append((key, tally, target))

        order = np.random.default_rng(split).permutation(labelled)
        train, test = sorted(order[: n // 2].tolist()), sorted(order[n // 2 :].tolist())
        half = Labelled(
            table.target,
            table.classes,
            table.ids,
            table.rows,
            table.jurors,
            [label if i in set(train) else -1 for i, label in enumerate(table.labels)],
        )
        strength = {j: float(data.alone[j][train].mean()) for j in jurors}
        top = max(jurors, key=lambda j: strength[j])
        found_best = (top, float(data.alone[top][test].mean()))
        record("naive", decide(data, test, jurors, gold))
        for kind in ("weights", "stacked"):
            found = fit_jury(half, one_tier, data.rubric, model=kind, seed=split)
            record(
                "learned" if kind == "weights" else "stacked",
                decide(data, test, jurors, gold, fit=found.fit),
            )
        subset = Labelled(
            table.target,
            table.classes,
            [table.ids[i] for i in train],
            [table.rows[i] for i in train],
            [table.jurors[i] for i in train],
            [table.labels[i] for i in train],
        )
        unsupervised = fit_unsupervised(subset, jurors, data.rubric)
        record("dawid_skene", decide(data, test, jurors, gold, fit=unsupervised.fit))
        for target in TARGETS:
            found = fit_jury(
                half, one_tier, data.rubric, target_agreement=target, risk=RISK, seed=split
            )
            tally = decide(data, test, jurors, gold, fit=found.fit) if found.fit else None
            record(f"selective {target}", tally, target)
        # A model's seats sit in one tier (its strategies share the item's generations and
        # the provider). Models ordered by their best seat's training strength, or by the
        # cost of their seats (cost, not calls: issue 21), one model a tier or cheap models
        # together (every model within COST_BAND times the tier's cheapest).
        models = sorted({model_of(j) for j in jurors})
        best_of = {m: max(strength[j] for j in jurors if model_of(j) == m) for m in models}
        costs = {j: price(j, data.prompts) for j in jurors}
        groups = {j: model_of(j) for j in jurors}
        ranked = sorted(models, key=lambda m: -best_of[m])
        orders = {
            "strongest first": {j: ranked.index(model_of(j)) + 1 for j in jurors},
            "cheapest first": cheapest_first(costs, strength, groups=groups),
            "cheapest first, by cost band": cheapest_first(
                costs, strength, groups=groups, band=COST_BAND
            ),
        }
        measured = {}
        for label, tiers in orders.items():
            found = fit_jury(half, tiers, data.rubric, seed=split)
            measured[label] = decide(data, test, jurors, gold, fit=found.fit, tiers=tiers)
            record(f"cascade {label}", measured[label])

        def inner(fit: Fit, tiers: Mapping[str, int], members: Sequence[int]) -> Measured:
            seen = decide(data, members, jurors, gold, fit=fit, tiers=tiers)
            return Measured(seen.right, seen.cases, seen.cost, seen.full_cost)

        # The recommendation reads the training half only, out of sample: each order fitted
        # on one inner fold of it and measured on the other (the library's rule, what
        # `recommend_cascade` does for `jury calibrate`), never on the fit's own cases.
        chosen_order = recommend_cascade(
            half,
            orders,
            data.rubric,
            inner,
            tolerance=TOLERANCE,
            inner_folds=INNER_FOLDS,
            seed=split,
        ).chosen
        record("cascade recommended", measured[chosen_order])
        return Split(tallies, found_best, chosen_order)

    recommended: list[str] = []
    for result in over_splits(one, splits, jobs):
        for key, tally, target in result.tallies:
            entry = series.setdefault(key, Series())
            if tally is None:
                entry.nothing()
            else:
                entry.add(tally, target)
        best.append(result.best)
        recommended.append(result.chosen)
    names = [b[0] for b in best]
    # Sorted first: among seats chosen equally often, the first by name (a set alone
    # iterates in a per-process hash order, and a tie made the name vary run to run).
    chosen = max(sorted(set(names)), key=names.count)
    out: dict[str, Any] = {
        "name": name,
        "jurors": list(jurors),
        "seats": list(jurors),
        "items": n,
        "test_items": n - n // 2,
        "best_juror": {"name": chosen, "accuracy": round(float(np.mean([b[1] for b in best])), 4)},
    }
    for key in ("naive", "learned", "stacked", "dawid_skene"):
        out[key] = series[key].figures()
    out["selective"] = [
        {
            **series[f"selective {t}"].figures(),
            "target": t,
            "risk": RISK,
            "splits_meeting_target": series[f"selective {t}"].met,
            "splits_empty": series[f"selective {t}"].empty,
        }
        for t in TARGETS
    ]
    cascades = []
    for label in ORDERS:
        entry = series[f"cascade {label}"]
        cascades.append(
            {
                **entry.figures(),
                "order": label,
                "calls_ratio": round(float(np.mean(entry.calls)), 4),
                "cost_ratio": round(float(np.mean(entry.cost)), 4),
            }
        )
    # Recommended, split by split on the training half's inner folds (out of sample): the
    # cheapest order by cost (not calls: issue 21) within TOLERANCE of the most accurate
    # order there; measured on the test half.
    entry = series["cascade recommended"]
    out["cascade"] = {
        **entry.figures(),
        "order": "recommended",
        "chosen": {label: recommended.count(label) for label in ORDERS},
        "calls_ratio": round(float(np.mean(entry.calls)), 4),
        "cost_ratio": round(float(np.mean(entry.cost)), 4),
    }
    out["cascades"] = cascades
    return out


def markdown(panels: Sequence[Mapping[str, Any]], splits: int) -> str:
    def pct(value: float | None) -> str:
        return "-" if value is None else f"{100 * value:.1f}"

    def row(name: str, way: str, figures: Mapping[str, Any], note: str = "") -> str:
        cells = [figures["accuracy_all"], figures["accuracy_decided"], figures["coverage"]]
        return f"| {name} | {way} | " + " | ".join(pct(c) for c in cells) + f" | {note} |"

    lines = [
        "| panel | way | accuracy, all items | accuracy, decided | coverage | notes |",
        "|---|---|---:|---:|---:|---|",
    ]
    for panel in panels:
        name, best = panel["name"], panel["best_juror"]
        accuracy = best["accuracy"]
        alone = {"accuracy_all": accuracy, "accuracy_decided": accuracy, "coverage": 1.0}
        lines.append(row(name, f"best juror alone ({best['name']})", alone, "authors' measure"))
        for key, label in (
            ("naive", "naive majority"),
            ("learned", "learned weights"),
            ("stacked", "stacked"),
            ("dawid_skene", "Dawid-Skene"),
        ):
            lines.append(row(name, label, panel[key]))
        for s in panel["selective"]:
            decided = splits - s["splits_empty"]
            note = (
                f"target met in {s['splits_meeting_target']} of the {decided} splits that "
                f"decided anything; {s['splits_empty']} decided nothing"
            )
            lines.append(row(name, f"selective, target {s['target']:.2f}", s, note))
        for c in panel["cascades"]:
            note = f"calls {pct(c['calls_ratio'])} %, cost {pct(c['cost_ratio'])} %"
            lines.append(row(name, f"cascade, {c['order']}", c, note))
        c = panel["cascade"]
        chosen = ", ".join(f"{k} {v}" for k, v in c["chosen"].items() if v)
        note = f"calls {pct(c['calls_ratio'])} %, cost {pct(c['cost_ratio'])} %; chose {chosen}"
        lines.append(row(name, "cascade, recommended", c, note))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--splits", type=int, default=20)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--jobs", type=int, default=2, help="splits run at once, in forked processes (2 cores)"
    )
    parser.add_argument("--llmbar", help="the llmbar folder (default: ../shared/data/llmbar)")
    parser.add_argument("--pandalm", help="the pandalm folder (default: beside llmbar's)")
    parser.add_argument(
        "--without-every-pair", action="store_true", help="leave out panel (c), the slowest"
    )
    args = parser.parse_args(argv)
    from threadpoolctl import threadpool_limits

    # One BLAS thread: the fits are small (a few hundred columns), and OpenBLAS's threads
    # cost more than the arithmetic on a shared two-core machine (a 262 x 262 solve: 15.5 ms
    # of CPU with its threads, 0.7 ms with one; benchmarks/README.md, issue 21).
    with threadpool_limits(limits=1):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    configure_logging(0)
    bar = llmbar.find_data(args.llmbar)
    # The PandaLM folder sits beside LLMBar's in shared/data.
    panda = Path(args.pandalm) if args.pandalm else bar.parent / "pandalm" if bar else None
    if bar is None or panda is None or not (panda / pandalm.DATA_FILE).is_file():
        print("juries: no data folder found (--llmbar, --pandalm)", file=sys.stderr)
        return 2
    started = time.perf_counter()
    panels = []
    items = llmbar.load_items(bar)
    data = llmbar_data(items, sorted({j for jurors in LLMBAR_PANELS.values() for j in jurors}))
    for name, jurors in LLMBAR_PANELS.items():
        panels.append(run_panel(name, data, jurors, args.splits, args.jobs))
    bar419 = [it for it in items if it["subset"].startswith("LLMBar/")]
    seat_panels = dict(SEAT_PANELS)
    pairs = every_pair(bar419)
    seat_panels[GPT4_ALONE] = tuple(j for j in pairs if model_of(j) == "GPT-4")
    if not args.without_every_pair:
        seat_panels[EVERY_PAIR] = pairs
    seat_data = llmbar_data(bar419, sorted({j for js in seat_panels.values() for j in js}))
    for name, jurors in seat_panels.items():
        panels.append(run_panel(name, seat_data, jurors, args.splits, args.jobs))
    panels.append(
        run_panel(
            "PandaLM gpt-3.5+PandaLM-7B", pandalm_data(panda), PANDALM_PANEL, args.splits, args.jobs
        )
    )
    elapsed = time.perf_counter() - started
    if args.json:
        import json

        print(json.dumps({"panels": panels}, indent=1))
        return 0
    print(f"{args.splits} seeded 50/50 splits; {elapsed:.0f} s; {machine()}")
    print(markdown(panels, args.splits))
    return 0


if __name__ == "__main__":
    sys.exit(main())
