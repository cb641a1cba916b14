"""An answer with nothing to measure it against (no golden answer, no evidence: AlpacaEval's
outputs) is not failed by the offline jurors for the names it gives: they cannot tell
"Sergey Brin" from an invention, so they abstain on correctness, faithfulness and
hallucination-free, and the case is decided on what they could measure (issue 23, item 3)."""

from __future__ import annotations

from pathlib import Path

from jury import Case, CaseVerdict, Jury, Verdict, default_panel, load_cases

TOOLS = Path(__file__).parents[1] / "data" / "tools"


async def judged(case: Case) -> CaseVerdict:
    async with Jury(default_panel(env={}), checks=None) as jury:
        return await jury.judge(case)


def larry_page() -> Case:
    # tatsu-lab/alpaca_eval results/gpt4/model_outputs.json, item 8: "Who is Larry Page?"
    cases = load_cases(TOOLS / "alpaca_eval_gpt4_model_outputs.json")
    return next(c for c in cases if c.question == "Who is Larry Page?")


async def test_an_alpaca_eval_answer_full_of_names_is_not_failed_for_want_of_evidence() -> None:
    verdict = await judged(larry_page())
    assert verdict.verdict is Verdict.PASS, verdict.reasons
    assert list(verdict.reasons) == [
        "not measured by any juror, left out of the pass rule: correctness, faithfulness, "
        "hallucinationFree"
    ]
    for vote in verdict.votes:
        assert "hallucinationFree" not in vote.scores
        assert "no evidence and no golden answer to check its words against" in vote.reason


async def test_the_evidence_juror_does_not_grade_correctness_with_nothing_to_grade_it_by() -> None:
    verdict = await judged(larry_page())
    evidence = next(v for v in verdict.votes if v.juror == "offline/evidence")
    assert "correctness" not in evidence.scores
    assert "correctness not measured: no evidence and no golden answer" in evidence.reason


async def test_with_a_golden_answer_an_invented_name_is_still_held_against_the_answer() -> None:
    case = larry_page().model_copy(
        update={"golden_answer": "Larry Page co-founded Google with Sergey Brin."}
    )
    verdict = await judged(case.model_copy(update={"answer": "Larry Page founded Zorbix Inc."}))
    assert verdict.verdict is Verdict.FAIL
    assert "asserts zorbix" in " ".join(v.reason for v in verdict.votes).lower()


async def test_a_refusal_with_no_golden_answer_is_not_said_to_refuse_a_golden_answer() -> None:
    case = Case(id="r", question="Who is Larry Page?", answer="I'm sorry, I can't help with that.")
    verdict = await judged(case)
    reasons = " ".join(v.reason for v in verdict.votes)
    assert "refuses a question it was expected to answer" in reasons
    assert "has a golden answer" not in reasons
