"""`jury calibrate --cascades` on a real run (issue 21): `jury run` against the strict fake
provider server with seats of two models of known prices (two seats of the cheap one, with two
strategies), hand labels given, then `jury calibrate --votes RUN --cascades`. Its orders are
priced by the tokens each seat's votes recorded, through the price tables (not by the USD the
records store), and each order is fitted on one inner fold of the labels and measured on the
other: never on a case its fit read."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import jury.agreement._fitting as fitting
import jury.agreement._recommend as recommend
from jury.adapters import Usage, price
from jury.cli import main
from served import ServerThread

MINI = "gpt-4.1-mini-2025-04-14"
HAIKU = "claude-haiku-4-5-20251001"
JURY = f"""\
rubric = "five-metric"

[[jurors]]
model = "openai/{MINI}"

[[jurors]]
model = "openai/{MINI}"
strategy = "cot"

[[jurors]]
model = "anthropic/{HAIKU}"
"""
SEATS = {
    f"openai/{MINI}": ("openai", MINI),
    f"openai/{MINI}+cot": ("openai", MINI),
    f"anthropic/{HAIKU}": ("anthropic", HAIKU),
}


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[ServerThread]:
    # `served.judge` (every seat's script) finds an answer marked WRONG wrong: every seat is
    # right on every labelled case, so the cheap tier decides them all.
    thread = ServerThread()
    for name, value in thread.server.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JURY_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "jury.toml").write_text(JURY, encoding="utf-8")
    yield thread
    thread.stop()


def labelled(tmp_path: Path, count: int) -> None:
    """`count` cases, a third of them wrong (and labelled so), the rest right."""
    lines = [
        {
            "id": f"c{i}",
            "question": f"Can order ORD-{100 + i} be returned{'?' * (i % 5)}",
            "answer": "WRONG: never." if i % 3 == 0 else f"Yes, within 30 days{'.' * i}",
            "labels": {"pass": i % 3 != 0},
        }
        for i in range(count)
    ]
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")


def priced_run(tmp_path: Path, count: int) -> dict[str, float]:
    """Run the jury on `count` labelled cases; each seat's mean cost a case, its recorded
    tokens priced by the tables. The stored USD is then made wrong on purpose, so that a cost
    read from it would show."""
    labelled(tmp_path, count)
    argv = ["run", "cases.jsonl", "--jury", "jury.toml", "--out", "run", "--no-checks"]
    assert main([*argv, "--progress", "none"]) in (0, 1)
    path = tmp_path / "run" / "verdicts.jsonl"
    records = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    spent: dict[str, list[float]] = {}
    for record in records:
        for vote in record["votes"]:
            calls = vote["calls"]
            usage = Usage(
                calls["input_tokens"], calls["output_tokens"], calls.get("cached_tokens", 0)
            )
            cost = price(*SEATS[vote["juror"]], usage)
            assert cost is not None
            assert cost > 0
            spent.setdefault(vote["juror"], []).append(cost)
            calls["cost"] = 123.0 if vote["juror"].startswith("openai") else 0.0001
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    assert set(spent) == set(SEATS)
    return {seat: sum(costs) / len(costs) for seat, costs in spent.items()}


def test_calibrate_recommends_a_cascade_of_a_real_run_priced_by_its_tokens(
    served: ServerThread,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cost = priced_run(tmp_path, 42)
    # Each order's fits and measures, as the recommendation makes them.
    fitted: list[set[int]] = []
    measured: list[tuple[set[int], tuple[str, ...], list[int]]] = []
    fit_jury, engine_measure = fitting.fit_jury, recommend.engine_measure

    def fit(table: Any, tiers: Any, *args: Any, **kwargs: Any) -> Any:
        fitted.append({i for i, label in enumerate(table.labels) if label >= 0})
        return fit_jury(table, tiers, *args, **kwargs)

    def measure_of(*args: Any) -> Any:
        measure = engine_measure(*args)

        def measured_on(found: Any, tiers: Any, members: Any) -> Any:
            first = tuple(sorted(j for j, tier in tiers.items() if tier == min(tiers.values())))
            measured.append((fitted[-1], first, list(members)))
            return measure(found, tiers, members)

        return measured_on

    monkeypatch.setattr(recommend, "fit_jury", fit)
    monkeypatch.setattr(recommend, "engine_measure", measure_of)
    capsys.readouterr()
    calibrate = ["calibrate", "cases.jsonl", "--jury", "jury.toml", "--votes", "run"]
    code = main([*calibrate, "--cascades"])
    out, err = capsys.readouterr()
    assert code == 0, err
    found = re.findall(r"^  (.+?): accuracy ([\d.]+) %, cost ([\d.]+) %", out, re.M)
    accuracy = {name: float(value) for name, value, _ in found}
    options = {name: float(share) for name, _, share in found}
    assert set(options) == {
        "as the panel has it",
        "strongest first",
        "cheapest first",
        "cheapest first, by cost band",
    }, out
    # The two mini seats (one model: one tier) are cheaper than haiku; every seat is right,
    # so that tier decides every case and haiku is never asked.
    mini = cost[f"openai/{MINI}"] + cost[f"openai/{MINI}+cot"]
    assert mini < cost[f"anthropic/{HAIKU}"]
    full = mini + cost[f"anthropic/{HAIKU}"]
    assert options["as the panel has it"] == 100.0
    assert options["cheapest first"] == pytest.approx(100 * mini / full, abs=0.05)
    assert options["cheapest first"] < 50.0  # the stored $123 a mini vote would make it ~100
    assert accuracy["cheapest first"] == accuracy["as the panel has it"] == 100.0
    (line,) = [x for x in out.splitlines() if x.startswith("Recommended cascade: ")]
    assert line.startswith("Recommended cascade: cheapest first")
    assert f"openai/{MINI} 1, openai/{MINI}+cot 1" in line
    # Out of sample: each order measured on both inner folds, each time on cases its fit
    # did not read, and every labelled case measured once an order.
    assert len(measured) == 2 * len(options)
    for read, _, members in measured:
        assert read
        assert members
        assert not read & set(members)
    # An order's two folds, one after the other: together every labelled case, once.
    for first, second in zip(measured[::2], measured[1::2], strict=True):
        assert first[1] == second[1]  # one order's tiers
        assert sorted(first[2] + second[2]) == list(range(42))


def test_too_few_labels_for_the_inner_folds_are_refused_by_their_count(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 30 labelled cases are enough for a fit, but each inner fold's fit would read 15.
    priced_run(tmp_path, 30)
    capsys.readouterr()
    calibrate = ["calibrate", "cases.jsonl", "--jury", "jury.toml", "--votes", "run"]
    assert main([*calibrate, "--cascades"]) == 2
    err = capsys.readouterr().err
    assert "30 case(s) labelled on pass: too few to recommend a cascade out of sample" in err
    assert "fits each order on 1 of 2 folds of them (15 case(s) here)" in err
    assert "label about 40 or more" in err
    assert "Traceback" not in err
