"""How correlated the errors of seats are on real recorded judges: the evidence behind the
"adds little" threshold of `jury.agreement._seat_errors` (issue 21, item 2).

On the 419 LLMBar Natural and Adversarial items (`../shared/data/llmbar`), each seat is one
(judge, prompt strategy) of the recorded data. A seat's verdict on an item is its verdict when
both presentation orders agree, else none (the swap-abstain rule of the pairwise rubric); its
error is that verdict differing from the gold label. Each pair of seats' error correlation is
computed by `seat_errors` (phi of the 0/1 errors on the items both rated), and the pairs are
summarised for seats of one judge (one model) and of different judges.

    python benchmarks/seat_errors.py [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from jury.agreement import Ratings
from jury.agreement._panel_stats import with_labels
from jury.agreement._seat_errors import MIN_ITEMS, THRESHOLD, seat_errors
from jury.agreement._seats import Seat, Seats

DATA = Path(__file__).resolve().parents[2] / "shared/data/llmbar/llmbar_multijudge.jsonl"
JUDGES = ("ChatGPT", "PaLM2", "LLaMA2", "GPT-4")
STRATEGIES = ("Vanilla_NoRules", "Metrics_Reference", "Reference")


def measure(path: Path) -> dict[str, Any]:
    items = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    items = [item for item in items if item["subset"].startswith("LLMBar")]
    seats = [f"{judge}/{strategy}" for judge in JUDGES for strategy in STRATEGIES]
    rows = []
    for item in items:
        row = []
        for seat in seats:
            said = item["judges"].get(seat)
            agreed = said is not None and said["noswap"] == said["swap"] != "None"
            row.append(said["noswap"] if agreed else None)
        rows.append(row)
    units = [f"{item['subset']}#{item['idx']}" for item in items]
    ratings = Ratings.from_rows(rows, values=("1", "2"), raters=seats, units=units)
    gold = {unit: str(item["gold"]) for unit, item in zip(units, items, strict=True)}
    table = Seats(Seat(s, s.split("/")[0], s.split("/")[0]) for s in seats)
    found = seat_errors(with_labels(ratings, gold), table)

    def summary(same: bool) -> dict[str, Any]:
        values = [
            p.correlation.value
            for p in found.pairs
            if p.same_model is same and p.correlation.value is not None
        ]
        return {
            "pairs": len(values),
            "min": round(min(values), 3),
            "median": round(statistics.median(values), 3),
            "max": round(max(values), 3),
            "at_or_above_threshold": sum(v >= THRESHOLD for v in values),
        }

    return {
        "items": len(items),
        "seats": seats,
        "threshold": THRESHOLD,
        "min_items": MIN_ITEMS,
        "same_model": summary(True),
        "other_models": summary(False),
        "fewest_items_in_a_pair": min(p.items for p in found.pairs),
        "adds_little": [f.sentence() for f in found.adds_little],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--data", type=Path, default=DATA, help="llmbar_multijudge.jsonl")
    args = parser.parse_args(argv)
    result = measure(args.data)
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    print(f"{result['items']} items, {len(result['seats'])} seats")
    for key in ("same_model", "other_models"):
        print(f"{key}: {result[key]}")
    print(f"fewest items in a pair: {result['fewest_items_in_a_pair']}")
    for line in result["adds_little"]:
        print(f"  {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
