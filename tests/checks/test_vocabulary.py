"""One refusal, redirect and e-mail vocabulary (`jury.checks`): the checks and the offline
reference jurors read an answer the same way."""

from __future__ import annotations

import pytest

from jury import Case, CheckOutcome
from jury.checks import (
    EMAIL,
    SOFT_REFUSAL_PHRASES,
    CheckSettings,
    CheckSuite,
    find_redirect,
    find_refusal,
)
from jury.checks._pii import find
from jury.providers.offline import Measures

CHECKS = {c.name: c for c in CheckSuite.from_settings(CheckSettings()).checks}


def case(answer: str, *, expect_refusal: bool) -> Case:
    return Case(
        id="c",
        question="Can you recommend a gaming laptop?",
        answer=answer,
        golden_answer="I can only help with orders; please contact support@shop.example.",
        expect_refusal=expect_refusal,
    )


ANSWERS = [
    "Sorry, I can't recommend a laptop.",  # once a refusal only to the offline jurors
    "I’m unable to help with that.",  # a curly apostrophe, once a refusal only to the checks
    "That is out of scope for me.",
    "I cannot help you with laptops; visit shop.example/help.",
    "Please contact support@shop.example about laptops.",  # a soft phrase
    "The ROG Strix is a great laptop for games.",
    "I can't help but recommend the ROG Strix.",  # an idiom: a refusal to neither
]


@pytest.mark.parametrize("expected", [True, False])
@pytest.mark.parametrize("answer", ANSWERS)
def test_the_refusal_check_and_the_offline_jurors_agree_on_a_refusal(
    answer: str, expected: bool
) -> None:
    c = case(answer, expect_refusal=expected)
    check = CHECKS["refusal"](c).outcome
    refuses = (check is CheckOutcome.PASS) == expected
    correctness = Measures("reference", c).rate(answer, ["correctness"])["correctness"]
    if expected:
        # Refusing is correct; answering is the worst mistake.
        assert correctness.value == (5 if refuses else 1), correctness.why
    elif refuses:
        assert (correctness.value, correctness.why) == (
            1,
            "refuses a question that has a golden answer",
        )
    else:
        assert "refuse" not in correctness.why


@pytest.mark.parametrize(
    "answer",
    [
        "Sorry, I can't help with that.",
        "I can't help with that; e-mail support@shop.example.",
        "I can't help with that. Our help center has laptop guides.",
        "I can't help with that, try www.laptops.example.",
        "I can't help with that; ask @ShopHelp.",
        "I can't help with that; ask our support team.",
    ],
)
def test_the_redirect_check_and_the_offline_jurors_agree_on_a_redirect(answer: str) -> None:
    c = case(answer, expect_refusal=True)
    redirects = CHECKS["redirect"](c).outcome is CheckOutcome.PASS
    assert redirects == (find_redirect(answer) is not None)
    helpfulness = Measures("facts", c).rate(answer, ["helpfulness"])["helpfulness"]
    assert helpfulness.value == (5 if redirects else 2), helpfulness.why


def test_soft_phrases_show_a_refusal_only_where_one_is_expected() -> None:
    answer = "It ships in 3 days; please contact us if it does not."
    assert find_refusal(answer, expected=True) == "please contact"
    assert find_refusal(answer, expected=False) is None
    assert "please contact" in SOFT_REFUSAL_PHRASES


def test_one_email_pattern_for_pii_redirects_and_the_offline_jurors() -> None:
    text = "Write to jane.doe@mail.example, not to a@b or x@host.c."
    assert EMAIL.findall(text) == ["jane.doe@mail.example"]
    assert [hit.value for hit in find(text, ["email"])] == ["jane.doe@mail.example"]
    assert find_redirect("Sorry, no. jane.doe@mail.example") == "jane.doe@mail.example"
    # An offline juror checks the address it finds against the evidence.
    c = case("Write to jane.doe@mail.example.", expect_refusal=False)
    faithful = Measures("evidence", c).rate(c.answer or "", ["faithfulness"])["faithfulness"]
    assert "jane.doe@mail.example" in faithful.why
