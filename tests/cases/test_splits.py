"""Dev and held-out splits: a case's split travels with its verdict, and every report gives
results per split (summary, terminal, HTML, JUnit)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from extras import needs

from jury import Case
from jury.cli import main

XSD = Path(__file__).parents[1] / "junit" / "junit.xsd"
GOLD = "Yes. ORD-102 was delivered 20 days ago, within the 30-day return window."


def cases_file(tmp_path: Path) -> Path:
    lines = []
    for index, split in enumerate(["dev", "dev", "held-out", None]):
        data = {
            "id": f"c{index}",
            "category": "policy",
            "question": "Can I still return ORD-102?",
            "golden_answer": GOLD,
            # c1 answers the opposite: it fails.
            "answer": "No, the window has closed." if index == 1 else GOLD,
            "trace": {"context": "Delivered 20 days ago; returns within 30 days."},
        }
        if split is not None:
            data["split"] = split
        lines.append(json.dumps(data))
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_split_names_load_and_a_wrong_one_is_refused() -> None:
    assert Case(id="a", split="dev").split == "dev"
    assert Case.model_validate({"id": "a", "split": "Held_Out"}).split == "heldout"
    with pytest.raises(ValueError, match="split"):
        Case.model_validate({"id": "a", "split": "test"})


@needs("test")  # xmlschema checks the JUnit file
def test_every_report_gives_results_per_split(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    code = main(["run", str(cases_file(tmp_path)), "--out", str(run), "--progress", "none"])
    out = capsys.readouterr().out
    assert code == 1
    summary = json.loads((run / "summary.json").read_text())
    by_split = summary["by_split"]
    assert by_split["dev"]["total"] == 2
    assert by_split["dev"]["failed_ids"] == ["c1"]
    assert by_split["heldout"]["total"] == 1
    assert by_split["heldout"]["passed"] == 1
    assert set(by_split) == {"dev", "heldout"}  # c3 names no split

    assert "Results by split" in out
    split_table = out.split("Results by split", 1)[1]
    dev_row = next(line for line in split_table.splitlines() if line.split()[:1] == ["dev"])
    assert dev_row.split() == [
        "dev",
        "2",
        "1",
        "1",
        "0",
        "50.0%",
        "9.5–90.5%",  # 1 of 2: the 95% Wilson interval
    ]

    html = (run / "report.html").read_text()
    table = html.split('<table id="by-split">', 1)[1].split("</table>", 1)[0]
    assert re.search(r'<a href="#[^"]+">c1</a>', table)
    assert "<td>heldout</td>" in table

    junit = (run / "junit.xml").read_text()
    import xmlschema

    xmlschema.XMLSchema(str(XSD)).validate(junit)
    suites = {s.get("name"): s for s in ET.fromstring(junit).iter("testsuite")}
    # The cases' suites, and the gate's (zero tests: the pass rate with its interval).
    assert set(suites) == {"dev/policy", "heldout/policy", "policy", "aiojury gate"}
    assert suites["dev/policy"].get("failures") == "1"
    c2 = next(c for c in ET.fromstring(junit).iter("testcase") if c.get("name") == "c2")
    assert {p.get("name"): p.get("value") for p in c2.iter("property")}["split"] == "heldout"


def test_a_run_without_splits_shows_no_split_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps({"id": "a", "question": "Q?", "answer": GOLD}) + "\n")
    main(["run", str(path), "--out", str(tmp_path / "run"), "--progress", "none"])
    assert "Results by split" not in capsys.readouterr().out
    assert 'id="by-split"' not in (tmp_path / "run" / "report.html").read_text()
