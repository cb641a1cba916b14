"""`jury calibrate` and `jury agreement` on seats: two replayed seats whose records name one
model are seats of that model; the error correlation between seats is printed, written to
``--json`` and drawn in the ``--html`` page; a run records which seats share a model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from learned_helpers import write_panel

from jury.cli import main

GPT = "gpt-4-0613"


def seats_panel(folder: Path, cases: int = 120) -> tuple[Path, Path]:
    """Two seats recorded from one model (GPT-4, two prompts) that err together, and a seat
    of another family that errs on its own."""
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
            "palm": (truth if own < 0.75 else not truth, "text-bison-001"),
        }
        for name, (value, model) in said.items():
            reply = {"reason": "recorded", "pass": value}
            records[name].append({"case": f"c{i:03d}", "reply": reply, "model": model})
    return write_panel(folder, lines, records, "grounded-answer")


def test_calibrate_reports_replayed_seats_of_one_model_and_their_shared_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases, jury = seats_panel(tmp_path)
    found = tmp_path / "found.json"
    code = main(["calibrate", str(cases), "--jury", str(jury), "--json", str(found)])
    out = capsys.readouterr().out
    assert code == 0
    assert "pass: effective independent judges " in out
    assert "of 3 seats (2 models, 2 families)" in out
    assert "between seats of one model " in out
    assert "errors shared between seats (phi of the 0/1 errors" in out
    assert "gpt4+metrics adds little: its errors correlate " in out
    assert "with gpt4+plain's (seats of one model)" in out
    data = json.loads(found.read_text("utf-8"))
    assert data["seats"]["gpt4+plain"] == {"model": GPT, "family": "openai"}
    assert data["seats"]["gpt4+metrics"] == {"model": GPT, "family": "openai"}
    assert data["seats"]["palm"]["model"] == "text-bison-001"
    errors = data["labels"]["pass"]["errors"]
    pairs = {(p["a"], p["b"]): p for p in errors["pairs"]}
    # The panel's own verdict ("jury") is no seat: it is in no pair and no judge count.
    assert all("jury" not in key for key in pairs)
    assert data["labels"]["pass"]["effective"]["jurors"] == 3
    same = pairs["gpt4+metrics", "gpt4+plain"]
    assert same["same_model"] is True
    assert same["correlation"]["value"] >= errors["threshold"]
    assert pairs["gpt4+metrics", "palm"]["same_model"] is False
    assert [f["seat"] for f in errors["adds_little"]] == ["gpt4+metrics"]


def test_calibrate_fit_prints_writes_and_draws_the_seats_error_correlation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases, jury = seats_panel(tmp_path)
    found, page = tmp_path / "found.json", tmp_path / "page.html"
    argv = ["calibrate", str(cases), "--jury", str(jury), "--fit", str(tmp_path / "fit.toml")]
    code = main([*argv, "--json", str(found), "--html", str(page)])
    out = capsys.readouterr().out
    assert code == 0
    assert "of 3 seats (2 models, 2 families)" in out
    assert "gpt4+metrics adds little" in out
    target = json.loads(found.read_text("utf-8"))["targets"]["pass"]
    assert target["effective_judges"]["models"] == 2
    assert target["error_correlation"]["adds_little"][0]["other"] == "gpt4+plain"
    html = page.read_text("utf-8")
    assert '<section id="seat-errors"><h2>Errors shared between seats</h2>' in html
    assert "gpt4+metrics adds little" in html
    assert "of 3 seats (2 models, 2 families)" in html


def test_agreement_of_a_run_knows_which_seats_share_a_model_from_its_manifest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases, jury = seats_panel(tmp_path, cases=60)
    run = tmp_path / "run"
    main(["run", str(cases), "--jury", str(jury), "--out", str(run), "--progress", "none"])
    capsys.readouterr()
    report = (run / "report.html").read_text("utf-8")
    # The run's report shows the seats' shared errors beside the trade-off.
    assert '<section id="seat-errors"><h2>Errors shared between seats</h2>' in report
    assert "gpt4+metrics adds little: its errors correlate" in report
    manifest = json.loads((run / "manifest.json").read_text("utf-8"))
    assert set(manifest["seats"]) == {"gpt4+plain", "gpt4+metrics", "palm"}
    assert manifest["seats"]["palm"]["family"] == "replay"
    code = main(["agreement", str(run), "--cases", str(cases), "--bootstrap", "0", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    effective = data["verdict"]["labels"]["effective"]
    assert (effective["jurors"], effective["models"], effective["families"]) == (3, 2, 2)
    pairs = data["verdict"]["labels"]["errors"]["pairs"]
    same = [(p["a"], p["b"]) for p in pairs if p["same_model"]]
    assert same == [("gpt4+metrics", "gpt4+plain")]
    main(["agreement", str(run), "--cases", str(cases), "--bootstrap", "0"])
    out = capsys.readouterr().out
    assert "of 3 seats (2 models, 2 families)" in out
    assert "errors shared between seats" in out
