"""Soft confidence (issue 21, item 3): the CPU a vote's probability costs to read from a reply's
token log-probabilities (`jury.engine._soft.outcomes`, then `verdict_odds`).

    python benchmarks/soft.py [--replies 2000]

A five-metric reply (as the fake server tokenizes it, about 60 tokens), with five alternatives
listed at the first token of two metrics' values (the others near certain): every alternative
reply is read by the rubric, so the cost grows with the product of the alternatives.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._machine import machine
from jury import Case, load_rubric
from jury.adapters import TokenLogprob
from jury.engine._soft import outcomes, verdict_odds
from jury.testing._logprobs import tokens_of


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replies", type=int, default=2000)
    args = parser.parse_args()
    rubric = load_rubric("five-metric")
    case = Case(id="c", question="q?", answer="a.", golden_answer="a.")
    prompt = rubric.prompts(case)[0]
    reply = {"reason": "fine", **dict.fromkeys((m.name for m in rubric.metrics(case)), 5)}
    reply["correctness"] = 4
    text = json.dumps(reply)
    five = {"5": 0.6, "4": 0.2, "3": 0.1, "2": 0.05, "1": 0.05}
    odds = {"correctness": {"4": 0.5, "5": 0.3, "3": 0.2}, "relevance": five}
    tokens = tuple(TokenLogprob(t.text, t.logprob, t.top) for t in tokens_of(text, odds, 5))
    found: dict[str, float] = {}
    read: list[Any] | None = None
    started = time.process_time()
    for _ in range(args.replies):
        read = outcomes(rubric, case, prompt, reply, text, tokens)
        assert read is not None
        found = verdict_odds(rubric, case, [(prompt, read)])
    spent = time.process_time() - started
    print(
        f"{spent / args.replies * 1e6:.0f} µs of CPU per reply read ({len(tokens)} tokens, "
        f"{len(read or ())} alternative replies); distribution {found}; {machine()}"
    )


if __name__ == "__main__":
    main()
