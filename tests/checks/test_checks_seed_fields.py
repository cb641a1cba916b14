"""The seed articles' checks: what the answer must find, and a garbled answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jury import Case, CaseFileError, CheckOutcome, load_cases
from jury.checks import CheckSettings, CheckSuite
from jury.checks._garbled import signs_of_garbling


def run(check: str, **fields: Any) -> tuple[CheckOutcome, str]:
    case = Case.model_validate({"id": "c", "question": "Q?", **fields})
    result = CheckSuite.from_settings()[check](case)
    return result.outcome, result.reason


# --- must_find --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wanted", "answer", "outcome"),
    [
        (["section 91F"], "Under Section  91F(4)(d), no.", CheckOutcome.PASS),  # case, spaces
        (["91F"], "Under s 191F, no.", CheckOutcome.FAIL),  # not inside a longer word
        ([{"regex": r"s\s?91[EF]"}], "See s 91E.", CheckOutcome.PASS),
        ([{"regex": r"s\s?91[EF]"}], "See s 91G.", CheckOutcome.FAIL),
        # The seed article's shape: every part of the object must be found.
        (
            [{"act": "Tax Administration Act 1994", "section": "91F"}],
            "TAA s 91F",
            CheckOutcome.FAIL,
        ),
        (
            [{"act": "Tax Administration Act 1994", "section": "91F"}],
            "Tax Administration Act 1994, s 91F.",
            CheckOutcome.PASS,
        ),
    ],
)
def test_must_find_needs_every_phrase_or_match(
    wanted: list[Any], answer: str, outcome: CheckOutcome
) -> None:
    assert run("must_find", mustFind=wanted, answer=answer)[0] is outcome


def test_must_find_names_what_is_missing_and_is_na_without_a_list() -> None:
    outcome, reason = run("must_find", must_find=["30 days", "ORD-102"], answer="30 days.")
    assert outcome is CheckOutcome.FAIL
    assert reason == "1 of 2 not found: ORD-102"
    assert run("must_find", answer="Yes.")[0] is CheckOutcome.NOT_APPLICABLE


@pytest.mark.parametrize(
    ("item", "says"),
    [
        ({"regex": "(unclosed"}, "not a valid regular expression"),
        ({"phrase": "  "}, "a phrase must not be empty"),
        ({"act": 1994}, "expected a phrase, {phrase}, {regex}, or an object of phrases"),
    ],
)
def test_a_bad_must_find_item_refuses_the_file_naming_it(
    tmp_path: Path, item: Any, says: str
) -> None:
    path = tmp_path / "cases.jsonl"
    bad = {"id": "x", "answer": "a", "mustFind": ["fine", item]}
    path.write_text('{"id": "ok", "answer": "a"}\n' + json.dumps(bad) + "\n")
    with pytest.raises(CaseFileError) as caught:
        load_cases(path)
    assert "line 2" in str(caught.value)
    assert "mustFind[1]" in str(caught.value)  # as the file spells it
    assert says in str(caught.value)


# --- garbled ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "sign"),
    [
        ("Your refund will be paid in full by the end of", "truncated: ends on 'of'"),
        ("The return window is 30 days, and", "truncated: ends on 'and'"),
        ("We will refund the full price of the", "truncated: ends on 'the'"),
        ("You can return it within 30 days,", "truncated: ends on ','"),
        ("Sure. I can help. I can help. I can help.", "repetition: 'i can help' 3 times"),
        ("the the the the window", "repetition: 'the' 4 times"),
        ("Itâ€™s within the window.", "mojibake: 'Itâ€™s'"),
        ("The caf\ufffd is open.", "mojibake: the replacement character U+FFFD"),
        ("Done.\x07", "mojibake: control character U+0007"),
        ('Here:\n```json\n{"status": "shipped"}', "markup: a ``` code fence is never closed"),
        ("See <b>the policy.", "markup: <b> is never closed"),
        ("Returns are free (within 30 days.", "markup: '(' opened and never closed"),
    ],
)
def test_each_sign_of_a_garbled_answer_is_named(text: str, sign: str) -> None:
    assert any(found.startswith(sign) for found in signs_of_garbling(text)), signs_of_garbling(text)


@pytest.mark.parametrize(
    "text",
    [
        "Yes. ORD-102 was delivered 20 days ago, within the 30-day return window.",
        "I’m sorry, I can’t help with that — please contact support@shopnest.example.",
        "Steps:\n1) Open your orders.\n2) Pick ORD-102.\n- then tap Return",
        "Naïve café prices: 5 € to 10 €, “quoted”.",
        '```json\n{"status": "shipped", "items": [1, 2]}\n```',
        "Use <br> for a break, or <b>bold</b>.",
        "No, no, it has not shipped.",
        "| order | status |\n| --- | --- |\n| ORD-1 | shipped |",
        "Your order is on its way",
        "a",  # short answers are not cut sentences
        "A, B and",
        "Paris,",
    ],
)
def test_ordinary_answers_show_no_sign(text: str) -> None:
    assert signs_of_garbling(text) == []


def test_garbled_reads_every_assistant_turn_and_says_which() -> None:
    turns = [
        {"role": "user", "content": "Status?"},
        {"role": "assistant", "content": "Let me check the the the the order"},
        {"role": "assistant", "content": "It shipped."},
    ]
    outcome, reason = run("garbled", turns=turns)
    assert outcome is CheckOutcome.FAIL
    assert reason.startswith("reply 1 of 2: repetition")
    assert run("garbled", answer="It shipped.")[0] is CheckOutcome.PASS


def test_garbled_looks_only_for_the_signs_configured() -> None:
    suite = CheckSuite.from_settings(
        CheckSettings.model_validate({"garbled": {"signs": ["mojibake"]}})
    )
    case = Case(id="c", answer="The refund will be paid in full by the end of")
    assert suite["garbled"](case).outcome is CheckOutcome.PASS


# --- check-quotes -------------------------------------------------------------------------

ACT = (
    "91F Product rulings\n(4) The Commissioner may not make a product ruling if—\n"
    "(d) the matter on which the ruling is sought is being dealt with, or in the "
    "Commissioner's opinion should be dealt with, by one or both competent authorities."
)


def quoted(quote: str, **fields: Any) -> dict[str, Any]:
    return {
        "id": "nz-d12",
        "answer": "No.",
        "points": [{"id": "nz-d12.1", "says": "Concludes no.", "quote": quote}],
        **fields,
    }


@pytest.mark.parametrize(
    ("quote", "found"),
    [
        ("is being dealt with, or in the Commissioner's\n opinion should be", True),  # spacing
        (
            "the matter on which the ruling is sought is being dealt with… competent authorities",
            True,
        ),
        ("the matter on which the ruling is sought…", True),  # the seed's trailing ellipsis
        ("IS BEING DEALT WITH", False),  # word for word: case counts
        ("competent authorities… the matter on which", False),  # the parts in order
        ("the matter on which the ruling is requested", False),
    ],
)
def test_a_quote_is_found_word_for_word_in_the_retrieved_context(quote: str, found: bool) -> None:
    outcome, _ = run("check_quotes", **quoted(quote, trace={"context": ACT}))
    assert outcome is (CheckOutcome.PASS if found else CheckOutcome.FAIL)


def test_check_quotes_is_advisory_and_reads_tool_results_too() -> None:
    case = Case.model_validate(
        quoted(
            "should be dealt with",
            trace={"tool_calls": [{"name": "search", "arguments": "91F", "result": ACT}]},
        )
    )
    check = CheckSuite.from_settings()["check_quotes"]
    assert check.required is False
    assert check(case).outcome is CheckOutcome.PASS
    assert check(Case(id="plain", answer="x")).outcome is CheckOutcome.NOT_APPLICABLE


def test_jury_check_quotes_reads_a_library_and_exits_1_on_a_missing_quote(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from jury.cli import main

    library = tmp_path / "acts"
    (library / "taa").mkdir(parents=True)
    (library / "taa" / "s91F.txt").write_text(ACT, encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    good = quoted("by one or both competent authorities")
    bad = quoted("a ruling on a matter of interpretation", id="nz-d13")
    cases.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    code = main(["check-quotes", str(cases), "--sources", str(library)])
    out = capsys.readouterr().out
    assert code == 1
    assert f"✓ nz-d12 nz-d12.1: found in {library / 'taa' / 's91F.txt'}" in out
    assert '✗ nz-d13 nz-d12.1: not found: "a ruling on a matter of interpretation"' in out
    assert out.rstrip().endswith("1 of 2 quotes found word for word")
    cases.write_text(json.dumps(good) + "\n")
    assert main(["check-quotes", str(cases), "--sources", str(library)]) == 0


def test_jury_check_quotes_refuses_a_bad_file_before_looking(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from jury.cli import main

    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"id": "a", "points": [{"id": "p"}]}\n')
    assert main(["check-quotes", str(cases)]) == 2
    assert "line 1: points[0].says" in capsys.readouterr().err
