"""Agreement statistics on real raters (PandaLM test set) beside the published figures, and the
cost of a bootstrap interval on a large run.

    python -m benchmarks.agreement [--data ../shared/data/pandalm] [--resamples 1000]

PandaLM (WeOpenML/PandaLM, test set v1): 999 pairwise items, three human annotators and two
LLM judges. Labels: 0 = tie, 1 = response 1 better, 2 = response 2 better. The authors report
pairwise Cohen's kappa between annotators of 0.85, 0.88 and 0.86, and a majority-label
distribution of 105 / 422 / 472.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from jury.adapters._rubric import Level
from jury.agreement import (
    Bootstrap,
    Ratings,
    cohen_kappa,
    effective_judges,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    percent_agreement,
)


def _default_data() -> Path:
    """``shared/data/pandalm`` beside the repository (or beside a folder above a worktree)."""
    here = Path(__file__).resolve().parents[1]
    for folder in here.parents:
        candidate = folder / "shared" / "data" / "pandalm"
        if candidate.is_dir():
            return candidate
    return here.parent / "shared" / "data" / "pandalm"


DEFAULT_DATA = _default_data()
PUBLISHED_KAPPA = {(1, 2): 0.85, (1, 3): 0.88, (2, 3): 0.86}
PUBLISHED_MAJORITY = {0: 105, 1: 422, 2: 472}
GPT35 = {"1": 1, "2": 2, "Tie": 0}


def load(data: Path) -> list[dict[str, Any]]:
    path = data / "pandalm_testset_multirater.jsonl"
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def majority(labels: list[int]) -> int | None:
    value, count = Counter(labels).most_common(1)[0]
    return value if count >= 2 else None


def humans(items: list[dict[str, Any]], boot: Bootstrap) -> None:
    rows = [item["human"] for item in items]
    ratings = Ratings.from_rows(rows, values=[0, 1, 2], raters=["a1", "a2", "a3"])
    print("## Human annotators (999 items, labels 0 tie / 1 / 2)\n")
    print("| statistic | aiojury | published |")
    print("|---|---|---|")
    for (i, j), published in PUBLISHED_KAPPA.items():
        pair = ratings.select([f"a{i}", f"a{j}"])
        print(f"| Cohen's kappa a{i}-a{j} | {cohen_kappa(pair, bootstrap=boot)} | {published} |")
    print(f"| Fleiss' kappa (3 raters) | {fleiss_kappa(ratings, bootstrap=boot)} | - |")
    print(f"| Krippendorff's alpha, nominal | {krippendorff_alpha(ratings, bootstrap=boot)} | - |")
    print(f"| Gwet's AC1 | {gwet_ac1(ratings, bootstrap=boot)} | - |")
    print(f"| percent agreement | {percent_agreement(ratings, bootstrap=boot)} | - |")
    counts = Counter(majority(r) for r in rows)
    shown = " / ".join(str(counts.get(k, 0)) for k in (0, 1, 2))
    reported = " / ".join(str(v) for v in PUBLISHED_MAJORITY.values())
    print(
        f"| majority label 0 / 1 / 2 | {shown} (no majority: {counts.get(None, 0)}) | {reported} |"
    )
    print()


def judges(items: list[dict[str, Any]], boot: Bootstrap) -> None:
    gold = [majority(item["human"]) for item in items]
    garbage = sum(item["gpt35_raw"] not in GPT35 for item in items)
    print(
        f"## LLM judges against the human majority ({sum(g is not None for g in gold)} items "
        f"with a majority; gpt-3.5 replied garbage on {garbage})\n"
    )
    print("| judge | unparseable counted as | scored items | accuracy | Cohen's kappa |")
    print("|---|---|---|---|---|")
    columns: dict[str, list[int | None]] = {
        "gpt35_raw (invalid)": [GPT35.get(item["gpt35_raw"]) for item in items],
        "gpt35_raw (tie)": [GPT35.get(item["gpt35_raw"], 0) for item in items],
        "pandalm7b": [int(item["pandalm7b"]) for item in items],
    }
    for name, votes in columns.items():
        rows = [[v, g] for v, g in zip(votes, gold, strict=True)]
        pair = Ratings.from_rows(rows, values=[0, 1, 2], raters=["judge", "human"])
        accuracy = percent_agreement(pair, bootstrap=boot)
        judge, how = [*name.split(" "), "-"][:2]
        assert accuracy.value is not None
        print(
            f"| {judge} | {how.strip('()')} | {accuracy.units} | {accuracy.value:.2%} "
            f"[{accuracy.low:.2%}, {accuracy.high:.2%}] | {cohen_kappa(pair, bootstrap=boot)} |"
        )
    # Accuracy over all 999 items, an unparseable reply counted as wrong: the other reading.
    votes = columns["gpt35_raw (invalid)"]
    wrong = sum(v is None or v != g for v, g in zip(votes, gold, strict=True) if g is not None)
    scored = sum(g is not None for g in gold)
    print(
        f"\ngpt35_raw, an unparseable reply counted as a wrong answer: "
        f"{(scored - wrong) / scored:.2%} of {scored}."
    )
    panel = Ratings.from_rows(
        [[a, b] for a, b in zip(columns["gpt35_raw (invalid)"], columns["pandalm7b"], strict=True)],
        values=[0, 1, 2],
        raters=["gpt35", "pandalm7b"],
    )
    labels = {u: g for u, g in zip(panel.units, gold, strict=True) if g is not None}
    effective = effective_judges(panel, labels, bootstrap=boot)
    print(
        f"Effective independent judges of the two: {effective.effective} "
        f"(error correlation {effective.mean_error_correlation}).\n"
    )


def _timed(work: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def cost(resamples: int, repeats: int) -> None:
    rng = np.random.default_rng(0)
    truth = rng.integers(1, 6, size=10_000)
    scores = np.clip(truth[:, None] + rng.integers(-1, 2, size=(10_000, 5)), 1, 5).astype(float)
    scores[rng.random(scores.shape) < 0.1] = np.nan  # 10% unavailable: missing
    rows = scores.tolist()
    print(
        f"## Cost: 10,000 cases x 5 jurors (10% missing), {resamples} resamples, median of "
        f"{repeats}\n"
    )
    print("| level | point estimate (s) | with bootstrap (s) | bootstrap / point |")
    print("|---|---|---|---|")
    levels: tuple[Level, ...] = ("ordinal", "interval", "nominal")
    for level in levels:
        ratings = Ratings.from_rows(rows, level=level, values=[1, 2, 3, 4, 5])
        point = _timed(lambda r=ratings: krippendorff_alpha(r), repeats)  # type: ignore[misc]
        boot = Bootstrap(resamples, seed=1)
        full = _timed(lambda r=ratings, b=boot: krippendorff_alpha(r, bootstrap=b), repeats)  # type: ignore[misc]
        print(f"| {level} | {point:.3f} | {full:.2f} | {full / point:.0f}x |")
    try:
        import krippendorff
    except ImportError:
        return
    matrix = scores.T
    one = _timed(
        lambda: krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal"),
        repeats,
    )
    print(
        f"\nThe krippendorff package, one ordinal alpha on the same data: {one:.3f} s; "
        f"a loop of {resamples} resamples through it would take about {one * resamples:.0f} s."
    )


def summary_cost(resamples: int) -> None:
    """The whole run-level summary (what `jury agreement` computes) on a large run."""
    from jury import Case, CaseVerdict, Verdict, Vote, VoteStatus
    from jury.adapters._registry import load_rubric
    from jury.agreement import summarize_agreement

    rng = np.random.default_rng(0)
    metrics = load_rubric("five-metric").metrics(Case(id="-", answer=""))
    verdicts = []
    for unit in range(10_000):
        truth = int(rng.integers(1, 6))
        votes = []
        for juror in range(5):
            if rng.random() < 0.1:
                votes.append(Vote(juror=f"j{juror}", status=VoteStatus.UNAVAILABLE))
                continue
            scores = {m.name: int(np.clip(truth + rng.integers(-1, 2), 1, 5)) for m in metrics}
            passed = min(scores.values()) >= 4
            votes.append(
                Vote(
                    juror=f"j{juror}",
                    status=VoteStatus.VALID,
                    scores=scores,
                    verdict=Verdict.PASS if passed else Verdict.FAIL,
                )
            )
        verdicts.append(CaseVerdict(case_id=f"c{unit}", verdict=Verdict.PASS, votes=tuple(votes)))
    started = time.perf_counter()
    summarize_agreement(verdicts, metrics, bootstrap=resamples)
    print(
        f"\nsummarize_agreement (five metrics and pass/fail, {resamples} resamples) on 10,000 "
        f"cases x 5 jurors: {time.perf_counter() - started:.1f} s."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"Python {platform.python_version()}, numpy {np.__version__}\n")
    boot = Bootstrap(args.resamples, seed=0)
    items = load(args.data)
    humans(items, boot)
    judges(items, boot)
    cost(args.resamples, args.repeats)
    summary_cost(args.resamples)


if __name__ == "__main__":
    main()
