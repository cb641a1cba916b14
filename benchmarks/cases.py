"""How fast cases load, per format: the same synthetic cases written as JSONL, JSON, CSV, YAML
and Parquet, each read whole by `jury.validate_cases` (parse, shape, validate, IDs).

    python benchmarks/cases.py                  # 20,000 cases
    python benchmarks/cases.py --cases 100000

Half of the cases have no ID (one is made from each case's content), so that path is timed
too. It prints, per format, the file's size, cases per second and microseconds per case.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._machine import machine
from jury import validate_cases

WORDS = "your order was shipped two days ago and the return window is thirty days".split()


def synthetic(rng: random.Random, index: int) -> dict[str, Any]:
    case: dict[str, Any] = {
        "category": rng.choice(("policy", "tool", "edge")),
        "question": f"Where is my order ORD-{index}?",
        "answer": " ".join(rng.choices(WORDS, k=rng.randint(5, 60))),
        "golden_answer": " ".join(rng.choices(WORDS, k=12)),
        "trace": {
            "retrieved_sources": ["shipping-policy.md"],
            "tool_calls": [{"name": "getOrderStatus", "arguments": f"ORD-{index}", "result": "ok"}],
            "context": ["Orders ship within two days."],
        },
    }
    if index % 2:
        case = {"id": f"c{index}", **case}
    return case


def write_all(folder: Path, cases: list[dict[str, Any]]) -> dict[str, Path]:
    paths = {name: folder / f"cases.{name}" for name in ("jsonl", "json", "csv", "yaml")}
    paths["jsonl"].write_text("".join(json.dumps(c) + "\n" for c in cases))
    paths["json"].write_text(json.dumps(cases))
    columns = ["id", "category", "question", "answer", "golden_answer", "trace"]
    with open(paths["csv"], "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        for case in cases:
            row = [case.get(c, "") for c in columns]
            writer.writerow([json.dumps(v) if isinstance(v, dict) else v for v in row])
    paths["yaml"].write_text(json.dumps(cases, indent=1))  # JSON is YAML 1.2
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return paths
    paths["parquet"] = folder / "cases.parquet"
    pq.write_table(pa.Table.from_struct_array(pa.array(cases)), paths["parquet"])
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=20_000)
    args = parser.parse_args()
    rng = random.Random(7)
    cases = [synthetic(rng, i) for i in range(args.cases)]
    print(machine())
    print("| format | file | cases/s | µs a case |\n| --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as folder:
        for name, path in write_all(Path(folder), cases).items():
            start = time.perf_counter()
            count = validate_cases(path)
            seconds = time.perf_counter() - start
            assert count == len(cases)
            size = path.stat().st_size / 1e6
            print(
                f"| {name} | {size:.1f} MB | {count / seconds:,.0f} | {seconds / count * 1e6:.1f} |"
            )


if __name__ == "__main__":
    main()
