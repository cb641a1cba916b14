"""``--max-cost`` tried end to end against `jury.testing`'s fake: its replies cost $0 (the
call layer prices them so: nothing was paid), yet the budget counts each at the price the
real API would charge for its usage, so that the run stops where a real one would, and says
that the limit was reached by FAKE replies."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

import jury
from jury.report import print_report

MODEL = "gpt-4.1-mini-2025-04-14"


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JURY_CACHE_DIR", raising=False)
    case = {"question": "Can I return it?", "answer": "Yes, within the 30-day window."}
    (tmp_path / "five.jsonl").write_text(
        "".join(json.dumps({"id": f"c{n}", **case}) + "\n" for n in range(5))
    )
    (tmp_path / "jury.toml").write_text(f'jurors = ["openai/{MODEL}"]\n')


async def test_max_cost_stops_a_run_against_the_fake_where_a_real_run_would(
    tmp_path: Path, server: Any
) -> None:
    # The first reply's price is over the limit: no call starts after it.
    run = await jury.run(
        "five.jsonl", jury="jury.toml", max_cost=1e-9, concurrency=1, out="run", no_cache=True
    )
    assert len(server.requests_for(MODEL)) == 1
    summary = run.summary
    assert (summary.passed + summary.failed, summary.inconclusive) == (1, 4)
    assert run.exit_code == 3
    assert run.cost == 0.0  # the fake's replies are paid and reported as $0
    reasons = [reason for note in summary.inconclusives for reason in note.reasons]
    assert all("cost limit of $1e-09 was reached" in reason for reason in reasons)
    assert all("FAKE replies priced as the real API would charge them" in r for r in reasons)
    out = io.StringIO()
    print_report(run, out)
    assert "cost limit of $1e-09 was reached" in out.getvalue()
