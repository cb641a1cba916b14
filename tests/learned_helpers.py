"""A labelled panel of recorded jurors, made up with a seed: one strong juror and two weak ones
that err together, so that their majority is worse than the strong juror alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

#: Each juror's chance of being right; the weak two copy one shared coin when wrong.
ACCURACY = {"strong": 0.9, "weak-a": 0.62, "weak-b": 0.6}


def scenario(
    folder: Path,
    cases: int = 160,
    seed: int = 0,
    *,
    jury: str = "",
    missing: int = 0,
    accuracy: dict[str, float] | None = None,
) -> tuple[Path, Path, list[bool]]:
    """Cases with pass/fail labels, a record file per juror, and a jury file naming them as
    replay jurors (criterion rubric). `missing` cases have no record for "weak-a": its vote
    is unavailable there. `jury` is appended to the jury file; `accuracy` overrides
    `ACCURACY`."""
    accuracies = {**ACCURACY, **(accuracy or {})}
    rng = np.random.default_rng(seed)
    truth = [bool(x) for x in rng.random(cases) < 0.5]
    shared = rng.random(cases)
    lines = []
    records: dict[str, list[dict[str, Any]]] = {name: [] for name in accuracies}
    for i, passed in enumerate(truth):
        case_id = f"c{i:03d}"
        lines.append(
            {"id": case_id, "question": f"q{i}", "answer": f"a{i}", "labels": {"pass": passed}}
        )
        for name, right in accuracies.items():
            if name == "weak-a" and i < missing:
                continue
            coin = shared[i] if name.startswith("weak") else rng.random()
            said = passed if coin < right else not passed
            reply = {"reason": f"{name} says so", "pass": said}
            records[name].append({"case": case_id, "reply": reply})
    cases_path, jury_path = write_panel(folder, lines, records, "grounded-answer", jury)
    return cases_path, jury_path, truth


def write_panel(
    folder: Path,
    lines: list[dict[str, Any]],
    records: dict[str, list[dict[str, Any]]],
    rubric: str,
    jury: str = "",
) -> tuple[Path, Path]:
    """The cases file, a record file per juror and a jury file naming them as replay jurors
    (`jury` appended to it)."""
    cases_path = folder / "cases.jsonl"
    cases_path.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    jurors = []
    for name, recs in records.items():
        path = folder / f"{name}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in recs), "utf-8")
        jurors.append(f'[[juror]]\nmodel = "replay/{path}"\nname = "{name}"\n')
    jury_path = folder / "jury.toml"
    text = f'rubric = "{rubric}"\nreasks = 0\n' + jury + "\n" + "\n".join(jurors)
    jury_path.write_text(text, "utf-8")
    return cases_path, jury_path
