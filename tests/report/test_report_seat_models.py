"""The run report's table of errors shared between seats knows each seat's model, as
`jury calibrate` knows it: read from the run's manifest (``seats``) and, for a replayed seat,
from the model its records name."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from learned_helpers import write_panel

from jury.cli import main

GPT = "gpt-4-0613"
PALM = "text-bison-001"


def seats_of_one_model(folder: Path, cases: int = 120) -> tuple[Path, Path]:
    """Two seats recorded from GPT-4 (two prompts) that err together, and a PaLM seat that
    errs on its own."""
    rng = np.random.default_rng(7)
    lines: list[dict[str, Any]] = []
    records: dict[str, list[dict[str, Any]]] = {"gpt4+plain": [], "gpt4+metrics": [], "palm": []}
    for i in range(cases):
        truth = bool(rng.random() < 0.5)
        shared, own = rng.random(), rng.random()
        lines.append({"id": f"c{i:03d}", "question": "q", "answer": "a", "labels": {"pass": truth}})
        said = {
            "gpt4+plain": (truth if shared < 0.85 else not truth, GPT),
            "gpt4+metrics": (truth if shared < 0.8 else not truth, GPT),
            "palm": (truth if own < 0.75 else not truth, PALM),
        }
        for name, (value, model) in said.items():
            reply = {"reason": "recorded", "pass": value}
            records[name].append({"case": f"c{i:03d}", "reply": reply, "model": model})
    return write_panel(folder, lines, records, "grounded-answer")


def seat_errors_section(page: str) -> str:
    found = re.search(r'<section id="seat-errors">.*?</section>', page, re.S)
    assert found is not None, "no table of errors shared between seats"
    return found.group(0)


def test_the_run_reports_seat_error_table_names_each_seats_model_as_calibrate_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases, jury = seats_of_one_model(tmp_path)
    run, page = tmp_path / "run", tmp_path / "calibrate.html"
    main(["run", str(cases), "--jury", str(jury), "--out", str(run), "--progress", "none"])
    argv = ["calibrate", str(cases), "--jury", str(jury), "--fit", str(tmp_path / "fit.toml")]
    assert main([*argv, "--html", str(page)]) == 0
    capsys.readouterr()
    reported = seat_errors_section((run / "report.html").read_text("utf-8"))
    rows = re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td>.*?<td>([^<]*)</td></tr>", reported)
    by_pair = {(a, b): one for a, b, one in rows}
    # Each seat is named with the model it judged with (its records name it), and the two
    # seats of GPT-4 are marked as seats of one model.
    plain, metrics = (f"{seat} <small>({GPT})</small>" for seat in ("gpt4+plain", "gpt4+metrics"))
    palm = f"palm <small>({PALM})</small>"
    assert by_pair == {(metrics, plain): "yes", (metrics, palm): "", (plain, palm): ""}
    assert "with gpt4+plain&#x27;s (seats of one model)" in reported
    # The same table, row for row, as the calibration page's.
    assert reported == seat_errors_section(page.read_text("utf-8"))
