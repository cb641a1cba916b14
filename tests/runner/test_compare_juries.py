"""`jury compare` says what the comparison stands on (a new user's trial: `jury compare`
across a jury of offline jurors and one of FAKE replies, with 18 of 24 cases in A only, read
"Result PASSED · exit 0" and nothing else): the juries' differences from the manifests, what
degraded in each side's runs, and the cases left uncompared, in the terminal, the JSON and
the library's result. A comparison across juries stays allowed (comparing juries is a use),
said loudly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jury import CallStats, CaseVerdict, Juror, Panel, Verdict, Vote, VoteStatus
from jury.cli import main
from jury.runner._compare import compare


def write(
    path: Path, panel: Panel, cases: list[str], *, fake: bool = False, jury: bool = True
) -> str:
    path.mkdir(parents=True)
    calls = CallStats(attempts=1, cost=0.0, fake=1 if fake else 0)
    with (path / "verdicts.jsonl").open("w", encoding="utf-8") as handle:
        for case in cases:
            votes = tuple(
                Vote(juror=j.id, status=VoteStatus.VALID, verdict=Verdict.PASS, calls=calls)
                for j in panel.jurors
            )
            verdict = CaseVerdict(case_id=case, verdict=Verdict.PASS, votes=votes)
            handle.write(verdict.model_dump_json() + "\n")
    manifest: dict[str, object] = {"format": 2, "rubric": {"name": "pass-fail", "fingerprint": "f"}}
    if jury:
        manifest["jury"] = panel.model_dump(mode="json")
    (path / "manifest.json").write_text(json.dumps(manifest))
    return str(path)


OFFLINE = Panel(jurors=(Juror(model="offline/reference"), Juror(model="offline/facts")))
OTHER = Panel(
    jurors=(
        Juror(model="openai/gpt-4.1-mini-2025-04-14"),
        Juror(model="anthropic/claude-haiku-4-5-20251001"),
    )
)
CASES = [f"c{i:02}" for i in range(24)]


def test_compare_names_other_juries_fake_replies_and_uncompared_cases(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = write(tmp_path / "a", OFFLINE, CASES)
    b = write(tmp_path / "b", OTHER, CASES[:6], fake=True)
    assert main(["compare", a, b]) == 0  # allowed: comparing juries is a use of its own
    out = " ".join(capsys.readouterr().out.split())
    assert "the two sides were judged by different juries (jurors: A" in out
    assert "B: FAKE replies (anthropic/claude-haiku-4-5-20251001" in out
    assert "Result PASSED · exit 0 · on 6 of 24 cases · different juries" in out
    assert "on the 6 cases in common only: 18 not compared (18 only in A)" in out
    assert main(["compare", a, b, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["jury_changes"]["jurors"][1] == sorted(j.id for j in OTHER.jurors)
    assert list(data["degraded"]) == ["B"]  # only B's replies are FAKE
    assert any("18 not compared" in reason for reason in data["reasons"])


def test_a_change_of_aggregation_alone_is_named(tmp_path: Path) -> None:
    a = write(tmp_path / "a", OFFLINE, CASES)
    learned = OFFLINE.model_copy(update={"aggregation": "majority"})
    b = write(tmp_path / "b", learned, CASES)
    result = compare(a, b)
    assert list(result.jury_changes) == ["aggregation"]
    assert result.jury_changes["aggregation"] == [OFFLINE.aggregation, "majority"]
    assert any("across different juries (aggregation differ)" in r for r in result.reasons)
    same = compare(a, write(tmp_path / "c", OFFLINE, CASES))
    assert same.jury_changes == {}
    assert not any("juries" in w for w in same.warnings)


def test_a_side_without_a_recorded_jury_is_said_unknown(tmp_path: Path) -> None:
    a = write(tmp_path / "a", OFFLINE, CASES)
    b = write(tmp_path / "b", OFFLINE, CASES, jury=False)
    result = compare(a, b)
    assert any("the jury of B is not recorded" in w for w in result.warnings)
