"""Output checks: PII and secrets (never shown whole), JSON schema, length, refusal and
redirect, blocklist."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jury import Case, CheckOutcome, load_cases
from jury.checks import CheckSettings, CheckSuite, propose_length_bounds
from jury.checks._pii import find, scrub

PASS, FAIL, NA = CheckOutcome.PASS, CheckOutcome.FAIL, CheckOutcome.NOT_APPLICABLE
SHOPNEST = {
    c.id: c for c in load_cases(Path(__file__).parents[2] / "examples/shopnest/cases.jsonl")
}
SUITE = CheckSuite.from_settings()

CARD = "4111 1111 1111 1111"
OPENAI_KEY = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
ANTHROPIC_KEY = "sk-ant-api03-" + "Zy9xWv8uTs7rQp6oNm5lKj4iHg3fEd2cBa1"


def case(answer: str | None = "An answer.", **fields: Any) -> Case:
    return Case.model_validate({"id": "c", "answer": answer, **fields})


def suite(**settings: Any) -> CheckSuite:
    return CheckSuite.from_settings(CheckSettings.model_validate(settings))


def with_luhn(body: str) -> str:
    """`body` plus the check digit that makes it pass Luhn."""
    for last in "0123456789":
        digits = body + last
        total = 0
        for i, ch in enumerate(reversed(digits)):
            d = int(ch) * (2 if i % 2 else 1)
            total += d - 9 if d > 9 else d
        if total % 10 == 0:
            return digits
    raise AssertionError("unreachable")


# --- answer present ---------------------------------------------------------------------


@pytest.mark.parametrize(("answer", "verdict"), [("Yes.", PASS), ("   \n", FAIL), (None, FAIL)])
def test_answer_present(answer: str | None, verdict: CheckOutcome) -> None:
    assert SUITE["answer_present"](case(answer)).outcome is verdict


# --- PII and secrets --------------------------------------------------------------------


def test_a_card_and_a_key_fail_and_are_never_shown_whole() -> None:
    result = SUITE["pii"](case(f"Card {CARD}, key {OPENAI_KEY}."))
    assert result.outcome is FAIL
    text = f"{result.reason} {result.evidence}"
    assert "card ****1111" in text
    assert "OpenAI key sk-***" in text
    assert CARD not in text
    assert CARD.replace(" ", "") not in text
    assert OPENAI_KEY not in text
    assert OPENAI_KEY[8:20] not in text


def test_a_card_number_needs_the_luhn_check() -> None:
    assert SUITE["pii"](case("Card 4111 1111 1111 1112 on file.")).outcome is PASS


@pytest.mark.parametrize(
    "text",
    [
        "4111-1111-1111-1111",
        "4111111111111111",
        "paid in 2024 with 5500 0000 0000 0004 2024",
        "Amex 3782 822463 10005",
    ],
)
def test_card_shapes(text: str) -> None:
    assert [hit.kind for hit in find(text)] == ["card"]


def test_order_numbers_dates_and_amounts_are_not_pii() -> None:
    text = "ORD-101 shipped on 2024-05-12 for $120.50; tracking 1Z999AA10123456784, 3 to 5 days."
    assert find(text) == []


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("SSN 123-45-6789", "ssn"),
        ("call (555) 123-4567", "phone"),
        ("call +1 555.123.4567", "phone"),
        ("call +44 20 7946 0958", "phone"),
        ("AKIAIOSFODNN7EXAMPLE", "api_key"),
        (ANTHROPIC_KEY, "api_key"),
        ("ghp_" + "a" * 36, "api_key"),
        ("AIza" + "B" * 35, "api_key"),
        ("-----BEGIN RSA PRIVATE KEY-----", "api_key"),
    ],
)
def test_each_kind_is_found(text: str, kind: str) -> None:
    hits = find(text)
    assert [hit.kind for hit in hits] == [kind]
    assert SUITE["pii"](case(text)).outcome is FAIL


@pytest.mark.parametrize("text", ["SSN 000-45-6789", "SSN 666-45-6789", "5551234567 is an ID"])
def test_numbers_never_issued_or_without_separators_are_not_pii(text: str) -> None:
    assert find(text) == []


def test_an_anthropic_key_is_labelled_as_one() -> None:
    hit = find(ANTHROPIC_KEY)[0]
    assert hit.masked.startswith("Anthropic key sk-ant-***")
    assert ANTHROPIC_KEY[7:] not in hit.masked


def test_email_is_checked_only_where_the_case_gives_an_allow_list() -> None:
    text = "Write to support@shopnest.example or jane.doe@mail.example."
    assert SUITE["pii"](case(text)).outcome is PASS
    allowed = SUITE["pii"](case(text, allowed_emails=["@shopnest.example"]))
    assert allowed.outcome is FAIL
    assert allowed.evidence == "j***@mail.example"
    both = case(text, allowed_emails=["support@shopnest.example", "mail.example"])
    assert SUITE["pii"](both).outcome is PASS
    assert SUITE["pii"](case(text, allowed_emails=[])).outcome is FAIL


def test_email_everywhere_with_a_jury_file_allow_list() -> None:
    checks = suite(pii={"email_everywhere": True, "allowed_emails": ["@shopnest.example"]})
    assert checks["pii"](case("Mail support@help.shopnest.example.")).outcome is PASS
    assert checks["pii"](case("Mail jane@mail.example.")).outcome is FAIL


def test_pii_kinds_can_be_narrowed() -> None:
    checks = suite(pii={"kinds": ["card"]})
    assert checks["pii"](case("SSN 123-45-6789")).outcome is PASS
    assert checks["pii"](case(CARD)).outcome is FAIL


def test_pii_not_applicable_without_an_answer() -> None:
    assert SUITE["pii"](case(None)).outcome is NA


def test_shopnest_leak_is_caught_and_masked() -> None:
    result = SUITE["pii"](SHOPNEST["edge-pii-01"])
    assert result.outcome is FAIL
    assert result.evidence == "card ****1111 (16 digits); j***@mail.example"


@settings(max_examples=200, deadline=None)
@given(
    body=st.text(alphabet="0123456789", min_size=12, max_size=18),
    sep=st.sampled_from(["", " ", "-"]),
    before=st.text(alphabet="abc .,:", max_size=10),
    after=st.text(alphabet="abc .,:", max_size=10),
)
def test_no_luhn_valid_card_survives_scrubbing(
    body: str, sep: str, before: str, after: str
) -> None:
    digits = with_luhn(body)
    written = sep.join(digits[i : i + 4] for i in range(0, len(digits), 4))
    text = f"{before} {written} {after}"
    cleaned = scrub(text)
    assert digits not in cleaned.replace(" ", "").replace("-", "")
    result = SUITE["pii"](case(text))
    assert result.outcome is FAIL
    assert written not in f"{result.reason}{result.evidence}"


@settings(max_examples=100, deadline=None)
@given(
    st.text(
        alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
        min_size=24,
        max_size=60,
    )
)
def test_no_key_survives_scrubbing(tail: str) -> None:
    for key in (f"sk-{tail}", f"sk-ant-{tail}", f"xoxb-{tail}"):
        assert key not in scrub(f"the key is {key}.")


def test_every_check_masks_what_it_quotes() -> None:
    # Evidence from any check goes through the same mask: a refusal check quotes the answer.
    c = case(f"Here is the card {CARD}.", expect_refusal=True)
    result = SUITE["refusal"](c)
    assert result.outcome is FAIL
    assert result.evidence is not None
    assert "card ****1111" in result.evidence
    assert CARD not in result.evidence


# --- JSON schema ------------------------------------------------------------------------

SCHEMA = {
    "type": "object",
    "required": ["action", "next_steps"],
    "properties": {
        "action": {"enum": ["resolved", "escalated", "needs_info"]},
        "next_steps": {"type": "array", "items": {"type": "string"}},
    },
}


def test_json_in_a_markdown_fence_passes() -> None:
    answer = 'Here you go:\n```json\n{"action": "resolved", "next_steps": []}\n```'
    assert SUITE["json_schema"](case(answer, json_schema=SCHEMA)).outcome is PASS


def test_schema_failures_name_every_path() -> None:
    answer = '{"action": "closed", "next_steps": ["a", 2]}'
    result = SUITE["json_schema"](case(answer, json_schema=SCHEMA))
    assert result.outcome is FAIL
    assert "$.action: 'closed' is not one of" in result.reason
    assert "$.next_steps[1]: 2 is not of type 'string'" in result.reason
    missing = SUITE["json_schema"](case('{"action": "resolved"}', json_schema=SCHEMA))
    assert "$: 'next_steps' is a required property" in missing.reason


def test_not_json_fails_with_where() -> None:
    result = SUITE["json_schema"](case("Sure! The action is resolved.", json_schema=SCHEMA))
    assert result.outcome is FAIL
    assert result.reason.startswith("not valid JSON: Expecting value at line 1 column 1")


def test_json_schema_not_applicable_without_a_schema() -> None:
    assert SUITE["json_schema"](case('{"a": 1}')).outcome is NA


def test_jury_file_schema_applies_and_a_case_schema_wins(tmp_path: Path) -> None:
    path = tmp_path / "reply.schema.json"
    path.write_text('{"type": "object", "required": ["ok"]}')
    checks = suite(json_schema={"schema": str(path)})
    assert checks["json_schema"](case('{"ok": true}')).outcome is PASS
    assert checks["json_schema"](case("{}")).outcome is FAIL
    own = case('{"action": "resolved", "next_steps": []}', json_schema=SCHEMA)
    assert checks["json_schema"](own).outcome is PASS


def test_shopnest_structured_cases() -> None:
    assert SUITE["json_schema"](SHOPNEST["structured-status-01"]).outcome is PASS
    result = SUITE["json_schema"](SHOPNEST["structured-status-02"])
    assert result.outcome is FAIL
    assert "'delivered' is a required property" in result.reason
    assert "$.status: 'in transit' is not one of" in result.reason


def test_a_broken_case_schema_is_refused_when_the_case_loads() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="not a valid JSON schema"):
        case("{}", json_schema={"type": "no-such-type"})


# --- length -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "verdict", "reason"),
    [
        ("one two three", FAIL, "too short: 3 words (minimum 4)"),
        ("one two three four", PASS, ""),
        ("one two three four five six", FAIL, "too long: 6 words (maximum 5)"),
    ],
)
def test_length_bounds(answer: str, verdict: CheckOutcome, reason: str) -> None:
    result = SUITE["length"](case(answer, min_words=4, max_words=5))
    assert result.outcome is verdict
    assert result.reason == reason or verdict is PASS


def test_length_from_the_jury_file_unless_the_case_says() -> None:
    checks = suite(length={"max_words": 3})
    assert checks["length"](case("one two three four")).outcome is FAIL
    assert checks["length"](case("one two three four", max_words=10)).outcome is PASS
    assert SUITE["length"](case("one two three four")).outcome is NA


def test_propose_length_bounds_uses_p10_and_p90() -> None:
    answers = [" ".join(["w"] * n) for n in range(10, 101, 10)]  # 10, 20, ..., 100 words
    # Inclusive deciles of 10..100: P10 = 19, P90 = 91.
    assert propose_length_bounds(answers) == (13, 119)


def test_propose_length_bounds_needs_a_sample() -> None:
    with pytest.raises(ValueError, match="at least two"):
        propose_length_bounds(["just one"])


def test_min_above_max_is_refused() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="min_words 9 is more than max_words 3"):
        case("x", min_words=9, max_words=3)


# --- refusal and redirect ---------------------------------------------------------------


def test_refusal_with_redirect_passes_both() -> None:
    c = SHOPNEST["edge-out-of-scope-01"]
    assert SUITE["refusal"](c).outcome is PASS
    assert SUITE["redirect"](c).outcome is PASS


def test_refusal_without_redirect_fails_the_redirect() -> None:
    c = SHOPNEST["edge-out-of-scope-02"]
    assert SUITE["refusal"](c).outcome is PASS
    result = SUITE["redirect"](c)
    assert result.outcome is FAIL
    assert result.reason == "refuses without a redirect (no contact, link or place to go)"


def test_answering_an_out_of_scope_question_fails_the_refusal() -> None:
    c = case("The ASUS ROG is a great gaming laptop.", expect_refusal=True)
    assert SUITE["refusal"](c).outcome is FAIL


def test_refusing_an_in_scope_question_fails_but_a_contact_line_does_not() -> None:
    refused = case("Sorry, that is outside my scope.", expect_refusal=False)
    assert SUITE["refusal"](refused).outcome is FAIL
    helpful = case("It ships in 3 days; please contact us if it does not.", expect_refusal=False)
    assert SUITE["refusal"](helpful).outcome is PASS


def test_refusal_and_redirect_not_applicable_without_expectation() -> None:
    c = SHOPNEST["tool-status-01"]
    assert SUITE["refusal"](c).outcome is NA
    assert SUITE["redirect"](c).outcome is NA
    assert SUITE["redirect"](case("x", expect_refusal=False)).outcome is NA


def test_curly_apostrophes_and_extra_phrases() -> None:
    assert SUITE["refusal"](case("I can’t help with that.", expect_refusal=True)).outcome is PASS
    checks = suite(
        refusal={"phrases": ["not my department"]}, redirect={"patterns": [r"\bdesk 4\b"]}
    )
    c = case("Not my department, ask at desk 4.", expect_refusal=True)
    assert checks["refusal"](c).outcome is PASS
    assert checks["redirect"](c).outcome is PASS


# --- blocklist --------------------------------------------------------------------------


def test_blocklist_by_level() -> None:
    profane = case("That is some bullshit, sorry.")
    assert SUITE["blocklist"](profane).outcome is PASS  # default level: high
    medium = suite(blocklist={"level": "medium"})
    result = medium["blocklist"](profane)
    assert result.outcome is FAIL
    assert result.evidence == 'medium: "b******t"'
    threat = case("I will kill you.")
    assert SUITE["blocklist"](threat).reason == "a critical-severity term"
    critical_only = suite(blocklist={"level": "critical", "terms": {"high": ["refund"]}})
    assert critical_only["blocklist"](case("No refund.")).outcome is NA


def test_the_most_severe_term_decides() -> None:
    medium = suite(blocklist={"level": "medium"})
    result = medium["blocklist"](case("Damn this shit, you deserve to die."))
    assert result.reason == "a critical-severity term"
    assert result.evidence == 'critical: "y****************e"'


def test_blocklist_matches_whole_words_and_wildcards() -> None:
    checks = suite(blocklist={"level": "medium", "terms": {"medium": ["damn*", "ass"]}})
    assert checks["blocklist"](case("Damned parcel.")).outcome is FAIL
    assert checks["blocklist"](case("We will assess the class of the pass.")).outcome is PASS


def test_blocklist_extra_terms_add_to_the_built_in_ones() -> None:
    checks = suite(blocklist={"extra_terms": {"high": ["wire the money to"]}})
    assert checks["blocklist"](case("Please wire  the money to me.")).outcome is FAIL
    assert checks["blocklist"](case("Kill yourself.")).outcome is FAIL
