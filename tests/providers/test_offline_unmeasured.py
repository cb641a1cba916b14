"""An offline juror that cannot measure an aspect (correctness with no golden answer) leaves it
out, in every rubric kind, instead of voting the neutral stand-in it computes with: a case
without a reference is judged on the evidence, not failed for the want of one."""

from __future__ import annotations

import pytest

from jury import Case, Jury, Verdict, default_panel
from jury.adapters import Rating
from jury.providers.offline import METHODS, Measures

# No golden answer; an answer that the retrieved context supports, word for word.
GROUNDED = Case(
    id="returns",
    question="How many days do I have to return a jacket?",
    answer="You have 30 days to return the jacket.",
    trace={"context": ["Returns: a jacket may be returned within 30 days of delivery."]},
)


async def test_a_criterion_is_met_on_the_evidence_when_there_is_no_golden_answer() -> None:
    async with Jury(default_panel(env={}, rubric="grounded-answer"), checks=None) as jury:
        verdict = await jury.judge(GROUNDED)
    assert verdict.verdict is Verdict.PASS, [v.reason for v in verdict.votes]
    reasons = {v.juror: v.reason for v in verdict.votes}
    # The jurors that compare with a golden answer say what they could not measure.
    assert reasons["offline/reference"] == (
        "[offline reference] pass true: lowest of its measured scores is 5 (correctness, "
        "helpfulness not measured: no golden answer to measure it against)"
    )


async def test_pairwise_without_a_golden_answer_ranks_by_what_was_measured() -> None:
    pair = GROUNDED.model_copy(
        update={"answer_b": "You have 90 days to return the jacket, and $20 back."}
    )
    async with Jury(default_panel(env={}, rubric="pairwise-preference"), checks=None) as jury:
        verdict = await jury.judge(pair)
    reasons = {v.juror: v.reason for v in verdict.votes}
    assert "correctness, helpfulness not measured: no golden answer" in reasons["offline/facts"]
    assert "correctness 3" not in reasons["offline/facts"]


def test_an_aspect_rated_by_the_mean_takes_only_the_measured_scores() -> None:
    # "tone" names no score of the juror's: it takes their mean, of the measured ones (the
    # grounded answer's 5s), not pulled down by the stand-in 3s of correctness and helpfulness.
    (tone,) = Measures("reference", GROUNDED).rate(GROUNDED.answer or "", ["tone"]).values()
    assert (tone.value, tone.measured) == (5, True)
    assert tone.why == "the mean of its measured scores"


def test_nothing_measured_is_not_a_criterion_met_nor_failed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stand_in = Rating(3, "no golden answer to measure it against", measured=False)
    unmeasured = {"correctness": stand_in, "helpfulness": stand_in}
    monkeypatch.setitem(METHODS, "reference", lambda case, text: unmeasured)
    found = Measures("reference", GROUNDED).meets("Grounded.", "anything")
    assert (found.verdict, found.why) == ("cant_tell", "none of its scores could be measured")
