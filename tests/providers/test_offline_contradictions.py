"""The offline panel never passes an answer that contradicts a number, date, amount, duration
or name of the golden answer, and still passes the same fact said otherwise (issue 31), on
hand-labelled cases (`tests/data/contradictions*.jsonl`); the specifics read by value."""

from __future__ import annotations

from pathlib import Path

import pytest

from jury import Case, CaseVerdict, Jury, Verdict, default_panel, load_cases
from jury.providers.offline._specifics import contradicted, specifics

DATA = Path(__file__).parents[1] / "data"
LABELLED = load_cases(DATA / "contradictions.jsonl")
HELD_OUT = load_cases(DATA / "contradictions_heldout.jsonl")
CASES = [*LABELLED, *HELD_OUT]


async def judged(case: Case) -> CaseVerdict:
    # The jurors alone: the checks are not what is measured here.
    async with Jury(default_panel(), checks=None) as jury:
        return await jury.judge(case)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
async def test_the_panel_fails_a_contradiction_and_passes_a_paraphrase(case: Case) -> None:
    verdict = await judged(case)
    expected = Verdict.PASS if case.labels["pass"] else Verdict.FAIL
    assert verdict.verdict is expected, (case.metadata["why"], verdict.reasons)


CONTRADICTIONS = [c for c in CASES if not c.labels["pass"]]


@pytest.mark.parametrize("case", CONTRADICTIONS, ids=[c.id for c in CONTRADICTIONS])
async def test_the_two_jurors_that_read_the_golden_answer_fail_its_correctness(
    case: Case,
) -> None:
    # A majority on one metric: the median of the three fails, whatever the evidence juror
    # (which judges by what the agent saw) makes of the answer.
    votes = {vote.juror: vote for vote in (await judged(case)).votes}
    for juror in ("offline/reference", "offline/facts"):
        assert votes[juror].scores["correctness"] == 1, votes[juror].reason


async def test_the_issue_case_fails_and_names_both_values() -> None:
    # The default panel passed it before (only offline/facts failed it).
    case = Case(
        id="issue-31",
        question="What is your return policy?",
        answer="You can return items within 14 days.",
        golden_answer="Products can be returned within 30 days of delivery, and refunds go to "
        "the original payment method within 5 business days of the item arriving back.",
    )
    verdict = await judged(case)
    assert verdict.verdict is Verdict.FAIL
    reasons = " ".join(vote.reason for vote in verdict.votes)
    assert "gives 14 days where the golden answer gives 30 days" in reasons


async def test_a_month_holds_thirty_days_but_not_fourteen() -> None:
    # The judgement call, written down: a month is 28 to 31 days.
    def case(golden: str) -> Case:
        return Case(
            id="c",
            question="How long do I have to return an item?",
            answer="You can return items within a month of delivery.",
            golden_answer=golden,
        )

    thirty = await judged(case("You can return items within 30 days of delivery."))
    fourteen = await judged(case("You can return items within 14 days of delivery."))
    assert (thirty.verdict, fourteen.verdict) == (Verdict.PASS, Verdict.FAIL)


SAME = [
    ("$30", "30 dollars"),
    ("$30", "USD 30"),
    ("$30", "$30.00"),
    ("$1,200", "1200 dollars"),
    ("80 euros", "€80"),
    ("14 days", "two weeks"),
    ("14 days", "a fortnight"),
    ("24 hours", "one day"),
    ("30 days", "a month"),
    ("2 years", "24 months"),
    ("5 business days", "five working days"),
    ("15%", "15 percent"),
    ("20 kg", "20 kilograms"),
    ("2025-03-14", "March 14, 2025"),
    ("2025-03-14", "14 March 2025"),
    ("March 14, 2025", "the 14th of March"),
    ("March 14, 2025", "3/14/2025"),
    ("9 am", "9:00 a.m."),
    ("ORD-102", "ORD102"),
    ("shopnest.example/returns", "https://www.shopnest.example/returns/"),
    ("3 items", "three items"),
]
OTHER = [
    ("$30", "$45"),
    ("$30", "€30"),
    ("USD 30", "CAD 30"),
    ("14 days", "a month"),
    ("2 years", "12 months"),
    ("5 business days", "10 business days"),
    ("15%", "20 percent"),
    ("2 km", "2 miles"),
    ("2025-03-14", "March 15, 2025"),
    ("14 March 2025", "14 April 2025"),
    ("9 am", "9 pm"),
    ("ORD-102", "ORD-103"),
    ("support@shop.example", "help@shop.example"),
    ("shop.example/returns", "shop.example/refunds"),
    ("X300", "Z500"),
    ("3 items", "5 items"),
    ("1998", "1989"),
]


@pytest.mark.parametrize(("gold", "answer"), SAME)
def test_the_same_specific_written_otherwise_is_the_same(gold: str, answer: str) -> None:
    (wanted,), (given,) = specifics(gold), specifics(answer)
    assert wanted.same(given), (wanted, given)
    assert contradicted(f"It is {gold}.", f"It is {answer}.") is None


@pytest.mark.parametrize(("gold", "answer"), OTHER)
def test_another_value_of_the_same_kind_is_a_contradiction(gold: str, answer: str) -> None:
    found = contradicted(f"It is {gold}.", f"It is {answer}.")
    assert found is not None
    assert (found[0].text, found[1].text) == (gold, answer)


def test_giving_every_golden_value_contradicts_nothing_whatever_it_adds() -> None:
    gold = "You can return items within 30 days of delivery."
    answer = "Within 30 days: ORD-102 was delivered 20 days ago, and refunds take 5 days."
    assert contradicted(gold, answer) is None


def test_a_time_past_is_not_compared_with_a_delay() -> None:
    gold = "ORD-102 was delivered 20 days ago."
    assert contradicted(gold, "A courier collects ORD-102 within 2 hours.") is None
    found = contradicted(gold, "ORD-102 was delivered 12 days ago.")
    assert found is not None
    assert found[1].text == "12 days"


def test_a_list_number_an_article_and_a_noun_are_no_specifics() -> None:
    assert specifics("1. Sign in.\n2. Choose the order.") == ()
    assert specifics("a discount on an order") == ()
    assert [s.dimension for s in specifics("Get 3 items in a week.")] == [
        "count item",
        "duration",
    ]
