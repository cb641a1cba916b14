"""Every judge prompt is one cacheable prefix, then the case: what does not change between
cases (the instructions, the rubric, the seat's strategy) is the system text, the same bytes
for every case, and the case is only in the last user message. The providers' prompt caches
match a prefix exactly (Anthropic's up to its ``cache_control`` mark, OpenAI's and Gemini's
automatically), so one byte of a case in the system text would make every call pay in full."""

from __future__ import annotations

from pathlib import Path

import pytest

from jury import Case, load_rubric
from jury.adapters._registry import builtin_rubrics
from jury.adapters._strategy import strategy_named
from jury.rubrics import STRATEGIES

GOLDEN = Path(__file__).parent.parent / "golden"
CASES = [
    Case.model_validate_json(line)
    for line in (GOLDEN / "cases.jsonl").read_text(encoding="utf-8").splitlines()
]
SEATS = [
    (rubric, strategy)
    for rubric in builtin_rubrics()
    for strategy in STRATEGIES
    if strategy_named(strategy).refuses(load_rubric(rubric)) is None
]


@pytest.mark.parametrize(("rubric_name", "strategy_name"), SEATS)
def test_the_system_text_is_the_same_for_every_case_and_holds_nothing_of_any(
    rubric_name: str, strategy_name: str
) -> None:
    rubric = load_rubric(rubric_name)
    strategy = strategy_named(strategy_name)
    prompts = [p for case in CASES for p in strategy.apply(rubric, rubric.prompts(case))]
    assert len({p.system for p in prompts}) == 1
    system = prompts[0].system
    for case in CASES:
        for text in (case.question, case.answer, case.golden_answer, case.answer_b):
            if text:
                assert text not in system
    # The case is fenced in the user message, from its first line on: nothing static of any
    # size follows the prefix (only the one-line ask at the end names the case's code).
    for prompt in prompts:
        assert prompt.user.startswith("<question-")
        assert len(prompt.user.rsplit("\n\n", 1)[-1]) < 120


@pytest.mark.parametrize("rubric_name", ["five-metric", "toxicity", "pairwise-preference"])
def test_the_reply_schema_is_the_same_for_every_case_where_the_rubric_asks_no_case_fields(
    rubric_name: str,
) -> None:
    # OpenAI's cached prefix starts with the schema (it "serves as a prefix to the system
    # message", its prompt-caching guide): a schema that changed per case would cache nothing.
    rubric = load_rubric(rubric_name)
    schemas = {repr(p.schema) for case in CASES for p in rubric.prompts(case)}
    assert len(schemas) == 1
