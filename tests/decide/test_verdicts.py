"""Quorum, ties and disagreement, through the engine with scripted jurors.

Every row is also run with every permutation of the jurors: a verdict never depends on the
order in which jurors are listed or answer.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from conftest import case, scores
from jury import Juror, Jury, Panel, RubricError, Verdict, VoteStatus
from jury.adapters import InvalidRequestError
from jury.testing import ScriptedModel

BEHAVIOURS: dict[str, Any] = {
    "pass": scores(5, reason="fully correct"),
    "fail": scores(5, reason="wrong on the main point", correctness=2),
    "unavailable": InvalidRequestError("400 bad request"),
    "invalid": '{"reason": "x", "relevance": 7}',
}


def juror(kind: str, index: int) -> Juror:
    return Juror(model=ScriptedModel([BEHAVIOURS[kind]], name=f"scripted/{kind}-{index}"))


async def verdict_of(kinds: tuple[str, ...], **settings: Any) -> Any:
    panel = Panel(jurors=tuple(juror(k, i) for i, k in enumerate(kinds)), **settings)
    async with Jury(panel) as jury:
        return await jury.judge(case())


ROWS = [
    # (jurors, settings, verdict, a reason fragment)
    (("pass", "fail", "unavailable"), {"quorum": 2}, Verdict.INCONCLUSIVE, "split between 2 and 5"),
    (("pass", "pass", "unavailable"), {"quorum": 2}, Verdict.PASS, None),
    (
        ("pass", "unavailable", "unavailable"),
        {"quorum": 2},
        Verdict.INCONCLUSIVE,
        "quorum not met: 1 valid vote of 3 jurors, 2 needed",
    ),
    (("fail", "fail", "pass"), {}, Verdict.FAIL, "correctness 2 < 4"),
    (("pass", "fail", "unavailable"), {"ties": "fail"}, Verdict.FAIL, None),
    (("pass", "fail", "unavailable"), {"ties": "pass"}, Verdict.PASS, None),
    (("pass", "invalid", "invalid"), {"quorum": 1}, Verdict.PASS, None),
    (("pass", "invalid", "invalid"), {}, Verdict.INCONCLUSIVE, "quorum not met"),
    (("fail", "unavailable", "unavailable"), {"quorum": 1}, Verdict.FAIL, None),
    (("unavailable", "unavailable", "unavailable"), {}, Verdict.INCONCLUSIVE, "0 valid votes"),
    (("pass", "pass", "fail"), {}, Verdict.PASS, None),
    (("pass", "fail", "fail", "pass"), {}, Verdict.INCONCLUSIVE, "split"),
]


@pytest.mark.parametrize(("kinds", "settings", "expected", "reason"), ROWS)
async def test_quorum_and_ties(
    kinds: tuple[str, ...], settings: dict[str, Any], expected: Verdict, reason: str | None
) -> None:
    verdict = await verdict_of(kinds, **settings)
    assert verdict.verdict is expected
    if reason is not None:
        assert any(reason in r for r in verdict.reasons), verdict.reasons
    statuses = sorted(v.status.value for v in verdict.votes)
    expected_statuses = sorted(
        {"pass": "valid", "fail": "valid", "unavailable": "unavailable", "invalid": "invalid"}[k]
        for k in kinds
    )
    assert statuses == expected_statuses


@pytest.mark.parametrize(("kinds", "settings", "expected", "reason"), ROWS)
async def test_every_permutation_gives_the_same_verdict(
    kinds: tuple[str, ...], settings: dict[str, Any], expected: Verdict, reason: str | None
) -> None:
    first = None
    for order in itertools.permutations(range(len(kinds))):
        jurors = tuple(juror(kinds[i], i) for i in order)
        async with Jury(Panel(jurors=jurors, **settings)) as jury:
            verdict = await jury.judge(case())
        summary = (
            verdict.verdict,
            verdict.reasons,
            verdict.metrics,
            verdict.disagreement_reasons,
            verdict.dissent,
        )
        if first is None:
            first = summary
        assert summary == first
    assert first is not None
    assert first[0] is expected


async def test_disagreement_carries_each_dissenters_reason() -> None:
    verdict = await verdict_of(("pass", "pass", "fail"))
    assert verdict.verdict is Verdict.PASS
    assert verdict.disagreement
    assert "jurors split: 2 pass, 1 fail" in verdict.disagreement_reasons
    assert "correctness: scores range from 2 to 5" in verdict.disagreement_reasons
    assert [d.juror for d in verdict.dissent] == ["scripted/fail-2"]
    assert verdict.dissent[0].reason == "wrong on the main point"
    assert verdict.dissent[0].verdict is Verdict.FAIL


async def test_spread_alone_flags_disagreement() -> None:
    # All pass at threshold 3, but helpfulness 5 and 3 spread by 2 (the rubric's alert).
    models = (
        ScriptedModel([scores(5)], name="scripted/a"),
        ScriptedModel([scores(5, helpfulness=4)], name="scripted/b"),
        ScriptedModel([scores(5, helpfulness=3, reason="thin")], name="scripted/c"),
    )
    panel = Panel(jurors=tuple(Juror(model=m) for m in models), thresholds={"*": 3})
    async with Jury(panel) as jury:
        verdict = await jury.judge(case())
    assert verdict.verdict is Verdict.PASS
    assert verdict.disagreement_reasons == ("helpfulness: scores range from 3 to 5",)
    assert {d.juror for d in verdict.dissent} == {"scripted/a", "scripted/c"}


async def test_no_disagreement_when_all_agree() -> None:
    verdict = await verdict_of(("pass", "pass", "pass"))
    assert not verdict.disagreement
    assert verdict.dissent == ()
    assert verdict.metrics["correctness"].value == 5


async def test_weights() -> None:
    models = (
        Juror(model=ScriptedModel([BEHAVIOURS["pass"]], name="scripted/heavy"), weight=3),
        Juror(model=ScriptedModel([BEHAVIOURS["fail"]], name="scripted/a")),
        Juror(model=ScriptedModel([BEHAVIOURS["fail"]], name="scripted/b")),
    )
    async with Jury(Panel(jurors=models)) as jury:
        verdict = await jury.judge(case())
    assert verdict.verdict is Verdict.PASS


async def test_thresholds_override() -> None:
    async with Jury(Panel(jurors=(juror("fail", 0),), thresholds={"correctness": 2})) as jury:
        verdict = await jury.judge(case())
    assert verdict.verdict is Verdict.PASS
    async with Jury(Panel(jurors=(juror("fail", 0),), thresholds={"*": 1})) as jury:
        verdict = await jury.judge(case())
    assert verdict.verdict is Verdict.PASS


def test_a_threshold_off_the_rubrics_scale_is_refused() -> None:
    # Above the top of the scale every case would fail without a word.
    with pytest.raises(RubricError, match=r"6 is outside the scale 1\.\.5 of five-metric"):
        Jury(Panel(jurors=(juror("pass", 0),), thresholds={"*": 6}))


async def test_juror_verdicts_are_recorded_on_votes() -> None:
    verdict = await verdict_of(("pass", "fail", "unavailable"))
    by_status = {v.juror: (v.status, v.verdict) for v in verdict.votes}
    assert by_status["scripted/pass-0"] == (VoteStatus.VALID, Verdict.PASS)
    assert by_status["scripted/fail-1"] == (VoteStatus.VALID, Verdict.FAIL)
    assert by_status["scripted/unavailable-2"] == (VoteStatus.UNAVAILABLE, None)
