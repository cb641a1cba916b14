"""Cascades: ``[[tier]]`` groups in the jury file; a later tier is asked only for the cases the
tiers before it left unsure; every escalation is recorded with its reason; the calls not made
are counted."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from conftest import case
from jury import Juror, Jury, JuryFileError, Panel, Verdict, load_panel, summarize
from jury.adapters import JudgeRequest
from jury.cli import main
from jury.panel._warnings import panel_warnings
from jury.testing import ScriptedModel


def criterion(passes: dict[str, bool]) -> Any:
    """A criterion juror whose verdict depends on the case."""

    def reply(request: JudgeRequest) -> dict[str, Any]:
        assert request.case is not None
        return {"reason": "as scripted", "pass": passes[request.case.id]}

    return reply


def cascade(order: tuple[int, int] = (0, 1)) -> tuple[Panel, list[ScriptedModel]]:
    # Tier 1 agrees on c1 (pass) and c2 (fail) and splits on c3; tier 2 says pass on c3.
    a = ScriptedModel(criterion({"c1": True, "c2": False, "c3": True}), name="s/a")
    b = ScriptedModel(criterion({"c1": True, "c2": False, "c3": False}), name="s/b")
    c = ScriptedModel(criterion({"c1": False, "c2": True, "c3": True}), name="s/c")
    first = [Juror(model=a, tier=1), Juror(model=b, tier=1)]
    jurors = (*[first[i] for i in order], Juror(model=c, tier=2))
    return Panel(jurors=jurors, rubric="grounded-answer", quorum=2), [a, b, c]


async def judge_all(panel: Panel) -> dict[str, Any]:
    async with Jury(panel, checks=None) as jury:
        return {cid: await jury.judge(case(cid)) for cid in ("c1", "c2", "c3")}


async def test_a_later_tier_is_asked_only_when_the_tiers_before_it_are_unsure() -> None:
    panel, (a, b, c) = cascade()
    verdicts = await judge_all(panel)
    assert (a.calls, b.calls, c.calls) == (3, 3, 1)  # c only on the split case
    assert [r.case.id for r in c.requests if r.case] == ["c3"]
    assert verdicts["c1"].verdict is Verdict.PASS
    assert verdicts["c2"].verdict is Verdict.FAIL
    assert verdicts["c1"].not_asked == ("s/c",)
    assert verdicts["c1"].tier_calls_saved == 1
    assert verdicts["c1"].escalations == ()
    escalated = verdicts["c3"]
    assert escalated.escalations == ("tier 1: jurors split evenly on the criterion",)
    assert escalated.not_asked == ()
    assert len(escalated.votes) == 3
    assert escalated.verdict is Verdict.PASS  # 2 of 3 with tier 2
    summary = summarize(verdicts.values())
    assert (summary.escalated, summary.tier_calls_saved) == (1, 2)


async def test_a_cascade_verdict_never_depends_on_the_order_of_jurors_within_a_tier() -> None:
    results = []
    for order in itertools.permutations((0, 1)):
        panel, _ = cascade(order)  # type: ignore[arg-type]
        verdicts = await judge_all(panel)
        results.append({k: (v.verdict, v.escalations) for k, v in verdicts.items()})
    assert results[0] == results[1]


async def test_an_unavailable_tier_escalates_and_is_never_a_fail() -> None:
    down = ScriptedModel([RuntimeError("down")], name="s/down")
    later = ScriptedModel([{"reason": "fine", "pass": True}], name="s/later")
    panel = Panel(
        jurors=(Juror(model=down, tier=1), Juror(model=later, tier=2)),
        rubric="grounded-answer",
        quorum=1,
    )
    async with Jury(panel, checks=None) as jury:
        verdict = await jury.judge(case("c1"))
    assert verdict.verdict is Verdict.PASS
    assert verdict.escalations[0].startswith("tier 1: quorum not met")


def test_tier_groups_in_a_jury_file(tmp_path: Path) -> None:
    path = tmp_path / "jury.toml"
    path.write_text(
        '[[tier]]\njurors = ["offline/reference", {model = "offline/reference", name = "b"}]\n'
        '[[tier]]\njurors = [{model = "offline/reference", name = "c"}]\n',
        "utf-8",
    )
    panel = load_panel(path)
    assert [(j.id, j.tier) for j in panel.jurors] == [
        ("offline/reference", 1),
        ("b", 1),
        ("c", 2),
    ]
    assert panel.tiers == 2


@pytest.mark.parametrize(
    ("text", "key", "reason"),
    [
        (
            'jurors = ["offline/reference"]\n[[tier]]\njurors = ["offline/reference"]',
            "tier",
            "either",
        ),
        ("[[tier]]\njurors = []", "tier[0].jurors", "expected a list of jurors"),
        ('[[tier]]\njurors = ["offline/reference"]\nweight = 2', "tier[0]", "one key"),
        (
            '[[tier]]\njurors = [{model = "offline/reference", tier = 3}]',
            "tier[0].jurors",
            "no other tier",
        ),
    ],
)
def test_a_bad_tier_names_its_key(tmp_path: Path, text: str, key: str, reason: str) -> None:
    path = tmp_path / "jury.toml"
    path.write_text(text, "utf-8")
    with pytest.raises(JuryFileError) as caught:
        load_panel(path)
    assert caught.value.key == key
    assert reason in caught.value.reason


def test_tiers_without_a_gap(tmp_path: Path) -> None:
    path = tmp_path / "jury.toml"
    path.write_text('[[juror]]\nmodel = "offline/reference"\ntier = 2\n', "utf-8")
    with pytest.raises(JuryFileError, match="without a gap"):
        load_panel(path)


def test_estimate_gives_the_range_from_tier_one_to_the_full_panel(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"id": "c1", "question": "q", "answer": "a"}\n', "utf-8")
    jury = tmp_path / "jury.toml"
    jury.write_text(
        'rubric = "grounded-answer"\n[[tier]]\njurors = ["offline/reference"]\n'
        '[[tier]]\njurors = [{model = "offline/reference", name = "b"}]\n',
        "utf-8",
    )
    assert main(["estimate", str(cases), "--jury", str(jury)]) == 0
    out = capsys.readouterr().out
    assert "Cascade of 2 tiers: from 1 calls" in out
    assert "to 2 (" in out


def test_the_readme_examples_of_a_learned_jury_and_a_cascade_parse() -> None:
    import re
    import tomllib

    from jury.panel._panel import panel_from_mapping

    page = (Path(__file__).parents[2] / "docs/labels-and-learned-juries.md").read_text("utf-8")
    section = page[page.index("## A jury that beats its best juror") :]
    learned, tiers = re.findall(r"```toml\n(.*?)```", section, re.S)[:2]
    panel = panel_from_mapping(tomllib.loads(learned + tiers))
    assert panel.aggregation == "learned"
    assert panel.calibration == "fit.toml"
    assert (panel.target_agreement, panel.risk) == (0.85, 0.1)
    assert [(j.id, j.tier) for j in panel.jurors] == [
        ("openai/gpt-4.1-2025-04-14", 1),
        ("google/gemini-3.5-flash-lite", 2),
        ("anthropic/claude-haiku-4-5-20251001", 2),
    ]


async def test_a_juror_lost_under_require_every_juror_asks_no_later_tier() -> None:
    # The gate wants every juror: a lost one stays lost, so asking tier 2 would only cost.
    down = ScriptedModel([RuntimeError("down")], name="s/down")
    fine = ScriptedModel([{"reason": "fine", "pass": True}], name="s/fine")
    later = ScriptedModel([{"reason": "fine", "pass": True}], name="s/later")
    panel = Panel(
        jurors=(
            Juror(model=down, tier=1),
            Juror(model=fine, tier=1),
            Juror(model=later, tier=2),
        ),
        rubric="grounded-answer",
        quorum=1,
        gate={"require_every_juror": True},
    )
    async with Jury(panel, checks=None) as jury:
        verdict = await jury.judge(case("c1"))
    assert verdict.verdict is Verdict.INCONCLUSIVE
    assert verdict.reasons[0].startswith("[gate] require_every_juror")
    assert later.calls == 0
    assert verdict.escalations == ()


def test_a_first_tier_of_one_juror_under_a_reducer_is_warned_of() -> None:
    # One vote never splits: the later tiers are asked only for a missing or invalid vote.
    # A run prints the panel's warnings and keeps them in every report.
    one, two, three = (Juror(model=f"offline/{n}") for n in ("reference", "evidence", "facts"))
    alone = Panel(
        jurors=(
            one.model_copy(update={"tier": 1}),
            *(j.model_copy(update={"tier": 2}) for j in (two, three)),
        )
    )
    said = [w for w in panel_warnings(alone) if w.startswith("tier 1 is one juror")]
    assert said == [
        'tier 1 is one juror (offline/reference): under aggregation = "median" one vote is '
        "never split, so tier 2 is asked only when that vote is missing or invalid; put two "
        'jurors or more in tier 1 (a split escalates), or use aggregation = "learned" (a low '
        "confidence escalates)"
    ]
    # Two jurors first, or a quorum the user chose, or no cascade at all: nothing to say.
    pair = alone.model_copy(
        update={
            "jurors": (
                *alone.jurors[:1],
                two.model_copy(update={"tier": 1}),
                three.model_copy(update={"tier": 2}),
            )
        }
    )
    for panel in (pair, alone.model_copy(update={"quorum": 2}), Panel(jurors=(one, two, three))):
        assert not [w for w in panel_warnings(panel) if w.startswith("tier 1 is one juror")]
