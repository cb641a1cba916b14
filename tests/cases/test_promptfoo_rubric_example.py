"""promptfoo's own `eval-customer-support-rubric` example loads as promptfoo means it: four
vars and none named as the question stops with the `--map` line to paste, and once the
question is mapped, the `{{var}}` of that var in the assertions is still filled in."""

from __future__ import annotations

from pathlib import Path

import pytest

from jury import CaseFileError, load_cases

EXAMPLE = Path(__file__).parents[1] / "data" / "tools" / "promptfoo_eval-customer-support-rubric"
CONFIG = EXAMPLE / "promptfooconfig.yaml"
MAPPED = {"question": "customer_message", "answer": "reply"}


def test_the_stop_names_the_var_that_holds_the_customers_words_as_the_one_to_map() -> None:
    with pytest.raises(CaseFileError) as caught:
        load_cases(CONFIG)
    assert str(caught.value).splitlines()[1] == (
        "  on all 8 items: vars context, customer_message, language, reply: none is clearly "
        "the question; say which with --map question=customer_message (or [fields] question "
        '= "customer_message") (read as promptfoo tests)'
    )


def test_a_var_mapped_to_the_question_is_still_filled_in_the_assertions() -> None:
    first = load_cases(CONFIG, fields=MAPPED)[0]
    message = "Me cobraron dos veces mi factura de octubre, quiero mi dinero de vuelta"
    assert first.question == message
    assert (first.answer or "").startswith("Hola, lamento el doble cobro.")
    behaviour = (first.expected_behaviour or "").splitlines()
    assert len(behaviour) == 5  # the five llm-rubric assertions of its defaultTest
    assert behaviour[0].startswith(
        f'The support agent\'s reply is factually correct for the issue in "{message}" '
        "(account context: Prepago mensual de 19,99 EUR cobrado dos veces"
    )
    assert "{{" not in (first.expected_behaviour or "")
    assert behaviour[4].startswith(
        "The support agent's reply is written in the same language as the customer message (es)"
    )


def test_the_example_keeps_its_description_severity_and_threshold_and_shows_its_vars() -> None:
    cases = load_cases(CONFIG, fields=MAPPED)
    assert len(cases) == 8
    first, tariff = cases[0], cases[3]
    assert first.metadata["description"] == "ES refund ticket answered in Spanish"
    assert first.metadata["severity"] == "high"
    assert tariff.metadata["threshold"] == "0"
    assert first.judge == {
        "language": "es",
        "context": "Prepago mensual de 19,99 EUR cobrado dos veces el 3 de octubre. "
        "Reembolso pendiente desde hace 12 dias.",
    }
