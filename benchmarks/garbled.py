"""The garbled check on real model outputs: how many it flags, for which sign, and how fast.

    python benchmarks/garbled.py                 # counts, CPU time, a sample to read
    python benchmarks/garbled.py --sample 30 --seed 13

Data: the answers of ../shared/data (LLMBar's 885 items and PandaLM's 999, two outputs each):
real outputs of real models, some of them stuck in a loop or cut off. It prints, per data set
and sign, how many outputs the check flags, the CPU time per output, then every LLMBar flag
and a seeded sample of the PandaLM flags with the sign and the end of the text, to be read
and labelled by hand (garbled or not): the precision in benchmarks/README.md comes from that
reading, not from this script.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._machine import machine
from jury.checks._garbled import signs_of_garbling

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def outputs() -> list[tuple[str, str, str]]:
    """(data set, item label, text) for every output that is text."""
    found = []
    with open(DATA / "llmbar" / "llmbar_multijudge.jsonl", encoding="utf-8") as handle:
        for line in handle:
            item = json.loads(line)
            for key in ("output_1", "output_2"):
                label = f"{item['subset']}#{item['idx']}.{key}"
                found.append(("LLMBar", label, item[key]))
    with open(DATA / "pandalm" / "pandalm_testset_multirater.jsonl", encoding="utf-8") as handle:
        for line in handle:
            item = json.loads(line)
            found.extend(
                ("PandaLM", f"{item['idx']}.{key}", item[key]) for key in ("response1", "response2")
            )
    return [(name, label, text) for name, label, text in found if isinstance(text, str)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sample", type=int, default=30, help="PandaLM flags to print")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    texts = outputs()
    totals: Counter[str] = Counter(name for name, _, _ in texts)
    flagged: dict[str, list[tuple[str, str, str]]] = {"LLMBar": [], "PandaLM": []}
    signs: Counter[tuple[str, str]] = Counter()
    started = time.process_time()
    for name, label, text in texts:
        found = signs_of_garbling(text)
        if found:
            flagged[name].append((label, found[0], text))
        signs.update((name, sign.split(":", 1)[0]) for sign in found)
    cpu = time.process_time() - started
    print(f"machine: {machine()}")
    print(f"{len(texts)} outputs, {cpu / len(texts) * 1e3:.2f} ms of CPU per output\n")
    print("| data set | outputs | flagged | truncated | repetition | mojibake | markup |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in ("LLMBar", "PandaLM"):
        counts = [signs[(name, s)] for s in ("truncated", "repetition", "mojibake", "markup")]
        print(
            f"| {name} | {totals[name]} | {len(flagged[name])} | {' | '.join(map(str, counts))} |"
        )
    random.seed(args.seed)
    sample = random.sample(flagged["PandaLM"], min(args.sample, len(flagged["PandaLM"])))
    for title, rows in (("every LLMBar flag", flagged["LLMBar"]), ("PandaLM sample", sample)):
        print(f"\n{title}:")
        for number, (label, sign, text) in enumerate(rows, start=1):
            print(f"{number:3}. {label}: {sign[:100]}")
            print(f"     ...{text[-140:]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
