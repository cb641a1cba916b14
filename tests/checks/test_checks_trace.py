"""Trace checks: each with a passing, a failing and a not-applicable case, and the ShopNest
examples the seed article debugs (tool skipped, ORD-999, order tool on a policy question)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jury import Case, CheckOutcome, load_cases
from jury.checks import CheckSettings, CheckSuite

PASS, FAIL, NA = CheckOutcome.PASS, CheckOutcome.FAIL, CheckOutcome.NOT_APPLICABLE
SHOPNEST = {
    c.id: c for c in load_cases(Path(__file__).parents[2] / "examples/shopnest/cases.jsonl")
}
SUITE = CheckSuite.from_settings()


def case(**fields: Any) -> Case:
    return Case.model_validate({"id": "c", "answer": "An answer.", **fields})


def calls(*pairs: tuple[str, Any]) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": args} for name, args in pairs]}


def outcome(name: str, c: Case) -> CheckOutcome:
    return SUITE[name](c).outcome


# --- tool choice ------------------------------------------------------------------------


def test_tool_choice_passes_when_the_expected_tool_was_called() -> None:
    assert outcome("tool_choice", SHOPNEST["tool-status-01"]) is PASS


def test_tool_choice_fails_the_correct_answer_that_skipped_its_tool() -> None:
    result = SUITE["tool_choice"](SHOPNEST["combined-return-02"])
    assert result.outcome is FAIL
    assert "getOrderStatus was never called" in result.reason
    assert result.stage == "tool choice"


def test_tool_choice_fails_a_policy_question_that_calls_the_order_tool() -> None:
    result = SUITE["tool_choice"](SHOPNEST["policy-shipping-02"])
    assert result.outcome is FAIL
    assert "no tool should be called" in result.reason
    assert result.evidence == "getOrderStatus"


def test_expected_no_tool_and_none_called_passes() -> None:
    assert outcome("tool_choice", SHOPNEST["policy-shipping-01"]) is PASS


def test_tool_choice_is_not_applicable_without_an_expectation() -> None:
    # Left out is not the same as null: nothing is said about tools.
    c = case(trace=calls(("getOrderStatus", "ORD-1")))
    assert not c.expects_no_tool
    assert outcome("tool_choice", c) is NA


# --- tool argument ----------------------------------------------------------------------


def test_tool_argument_catches_the_wrong_order_id() -> None:
    result = SUITE["tool_argument"](SHOPNEST["tool-status-02"])
    assert result.outcome is FAIL
    assert "ORD-999" in result.reason
    assert "ORD-101" in result.reason
    assert result.stage == "tool argument"


def test_tool_argument_passes_with_the_right_id() -> None:
    assert outcome("tool_argument", SHOPNEST["tool-status-01"]) is PASS


def test_tool_argument_fails_when_the_tool_was_never_called() -> None:
    assert outcome("tool_argument", SHOPNEST["combined-return-02"]) is FAIL


@pytest.mark.parametrize(
    "c",
    [
        case(expected_tool="getOrderStatus", trace=calls(("getOrderStatus", "ORD-1"))),
        case(expected_tool=None, expected_tool_argument="ORD-1", trace=calls(("t", "ORD-1"))),
    ],
    ids=["no expected argument", "no tool expected"],
)
def test_tool_argument_not_applicable(c: Case) -> None:
    assert outcome("tool_argument", c) is NA


@pytest.mark.parametrize(
    ("expected", "given", "verdict"),
    [
        ("ORD-101", "ORD-101", PASS),
        ("ORD-101", " ORD-101 ", PASS),
        ("ORD-101", "ord-101", FAIL),
        # One value matches a call whose arguments are exactly one value.
        ("ORD-101", {"order_id": "ORD-101"}, PASS),
        ("ORD-101", ["ORD-101"], PASS),
        ("ORD-101", {"order_id": "ORD-101", "verbose": True}, FAIL),
        ("ORD-101", '{"order_id": "ORD-101"}', PASS),
        # Dicts: every key the case gives must match; extra keys are allowed.
        ({"order_id": "ORD-102", "size": "L"}, {"size": "L", "order_id": "ORD-102"}, PASS),
        ({"order_id": "ORD-102", "size": "L"}, {"order_id": "ORD-102", "size": "L", "x": 1}, PASS),
        ({"order_id": "ORD-102", "size": "L"}, {"order_id": "ORD-102", "size": "M"}, FAIL),
        ({"order_id": "ORD-102", "size": "L"}, {"order_id": "ORD-102"}, FAIL),
        ({"order_id": "ORD-102"}, "ORD-102", FAIL),
        ({"order_id": "ORD-102"}, '{"order_id": "ORD-102"}', PASS),
        ({"filter": {"ids": [1, 2]}}, {"filter": {"ids": [1, 2], "all": False}}, PASS),
        ({"filter": {"ids": [1, 2]}}, {"filter": {"ids": [2, 1]}}, FAIL),
        ({"limit": 1}, {"limit": True}, FAIL),
        ({"limit": 1}, {"limit": 1.0}, PASS),
    ],
)
def test_argument_matching_rule(expected: Any, given: Any, verdict: CheckOutcome) -> None:
    c = case(
        expected_tool="lookup",
        expected_tool_argument=expected,
        trace=calls(("other", expected), ("lookup", given)),
    )
    assert outcome("tool_argument", c) is verdict


def test_any_call_of_the_expected_tool_may_carry_the_argument() -> None:
    c = case(
        expected_tool="lookup",
        expected_tool_argument="B",
        trace=calls(("lookup", "A"), ("lookup", "B")),
    )
    assert outcome("tool_argument", c) is PASS


def test_without_an_expected_tool_any_tool_may_carry_the_argument() -> None:
    c = case(expected_tool_argument="B", trace=calls(("a", "A"), ("b", "B")))
    assert outcome("tool_argument", c) is PASS


# --- source -----------------------------------------------------------------------------


def test_source_passes_when_the_document_was_retrieved() -> None:
    assert outcome("source", SHOPNEST["combined-return-01"]) is PASS


def test_source_fails_when_another_document_was_retrieved() -> None:
    c = case(
        expected_source="return-policy.md", trace={"retrieved_sources": ["shipping-policy.md"]}
    )
    result = SUITE["source"](c)
    assert result.outcome is FAIL
    assert "return-policy.md was not retrieved" in result.reason
    assert result.stage == "retrieval"


def test_source_not_applicable_when_null() -> None:
    assert outcome("source", SHOPNEST["tool-status-01"]) is NA


@pytest.mark.parametrize(
    "retrieved", ["docs/return-policy.md", "./return-policy.md", "Return-Policy.md#window"]
)
def test_source_names_match_by_path_tail_case_and_fragment(retrieved: str) -> None:
    c = case(expected_source="return-policy.md", trace={"retrieved_sources": [retrieved]})
    assert outcome("source", c) is PASS


def test_a_longer_name_is_not_the_same_source() -> None:
    c = case(
        expected_source="return-policy.md", trace={"retrieved_sources": ["old-return-policy.md"]}
    )
    assert outcome("source", c) is FAIL


# --- tool order -------------------------------------------------------------------------

ORDER = ["check_availability", "book_appointment"]


def test_tool_order_passes_when_checked_before_booking() -> None:
    c = case(
        expected_tool_order=ORDER,
        trace=calls(("check_availability", {}), ("get_price", {}), ("book_appointment", {})),
    )
    assert outcome("tool_order", c) is PASS


def test_tool_order_fails_when_booked_before_checking() -> None:
    c = case(
        expected_tool_order=ORDER,
        trace=calls(("book_appointment", {}), ("check_availability", {}), ("book_appointment", {})),
    )
    result = SUITE["tool_order"](c)
    assert result.outcome is FAIL
    assert result.reason == "book_appointment was called before check_availability"
    assert result.evidence == "book_appointment → check_availability → book_appointment"


def test_tool_order_fails_when_a_tool_is_missing() -> None:
    c = case(expected_tool_order=ORDER, trace=calls(("book_appointment", {})))
    assert SUITE["tool_order"](c).reason == "check_availability never called"


def test_tool_order_on_shopnest() -> None:
    assert outcome("tool_order", SHOPNEST["tool-exchange-01"]) is FAIL
    assert outcome("tool_order", SHOPNEST["tool-exchange-02"]) is PASS
    assert outcome("tool_order", SHOPNEST["tool-status-01"]) is NA


# --- tools healthy ----------------------------------------------------------------------


def test_tools_healthy() -> None:
    broken = SUITE["tools_healthy"](SHOPNEST["tool-status-04"])
    assert broken.outcome is FAIL
    assert "getOrderStatus: unknown argument 'order'" in broken.reason
    assert outcome("tools_healthy", SHOPNEST["tool-status-01"]) is PASS
    assert outcome("tools_healthy", SHOPNEST["policy-shipping-01"]) is NA


def test_a_false_or_empty_error_is_no_error() -> None:
    c = case(trace={"tool_calls": [{"name": "t", "error": False}, {"name": "u", "error": ""}]})
    assert outcome("tools_healthy", c) is PASS


# --- cites only what it read ------------------------------------------------------------


def test_cited_sources_from_the_trace() -> None:
    read = case(trace={"retrieved_sources": ["a.md", "b.md"], "cited_sources": ["a.md"]})
    unread = case(trace={"retrieved_sources": ["a.md"], "cited_sources": ["a.md", "c.md"]})
    assert outcome("cites_only_what_it_read", read) is PASS
    result = SUITE["cites_only_what_it_read"](unread)
    assert result.outcome is FAIL
    assert result.evidence == "c.md"


def test_citations_in_the_answer_text() -> None:
    assert outcome("cites_only_what_it_read", SHOPNEST["policy-return-02"]) is FAIL
    c = case(
        answer="Day 30 counts [source: return-policy.md; docs/shipping.md] and [faq.md].",
        trace={"retrieved_sources": ["return-policy.md", "shipping.md"]},
    )
    result = SUITE["cites_only_what_it_read"](c)
    assert result.outcome is FAIL
    assert result.evidence == "faq.md"


def test_no_citation_is_not_applicable() -> None:
    assert outcome("cites_only_what_it_read", SHOPNEST["policy-return-01"]) is NA


def test_answer_text_citations_can_be_turned_off_or_repatterned() -> None:
    c = case(answer="See (doc: faq.md) and [faq.md].", trace={"retrieved_sources": ["a.md"]})
    off = CheckSuite.from_settings(
        CheckSettings.model_validate({"cites_only_what_it_read": {"in_answer": False}})
    )
    assert off["cites_only_what_it_read"](c).outcome is NA
    custom = CheckSuite.from_settings(
        CheckSettings.model_validate({"cites_only_what_it_read": {"pattern": r"\(doc: ([^)]+)\)"}})
    )
    result = custom["cites_only_what_it_read"](c)
    assert result.outcome is FAIL
    assert result.evidence == "faq.md"


# --- the seed article's four checks on the whole ShopNest set ---------------------------


def test_shopnest_failures_are_exactly_the_broken_traces() -> None:
    failing = {
        c.id: sorted(r.name for r in SUITE(c) if r.outcome is FAIL) for c in SHOPNEST.values()
    }
    failing = {cid: names for cid, names in failing.items() if names}
    assert failing == {
        "combined-return-02": ["tool_argument", "tool_choice"],
        "tool-status-02": ["tool_argument"],
        "policy-shipping-02": ["tool_choice"],
        "edge-out-of-scope-02": ["redirect"],
        "tool-exchange-01": ["tool_order"],
        "tool-status-04": ["tools_healthy"],
        "policy-return-02": ["cites_only_what_it_read"],
        "policy-shipping-03": ["length"],
        "edge-pii-01": ["pii"],
        "structured-status-02": ["json_schema"],
    }
