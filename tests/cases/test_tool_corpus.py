"""Files other tools' projects committed (tests/data/tools/README.md names each one's source
and licence) load as those tools mean them, field by field."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from jury import CaseFileError, load_cases
from jury.cases import CaseSource

TOOLS = Path(__file__).parents[1] / "data" / "tools"


def test_deepeval_goldens_csv_splits_its_lists_and_refuses_its_repeated_row() -> None:
    # The file repeats its 'Romeo and Juliet' row: without IDs, two cases of one content
    # cannot be told apart, and the file is refused rather than run with one dropped.
    with pytest.raises(CaseFileError) as caught:
        load_cases(TOOLS / "deepeval_goldens.csv")
    assert [str(e) for e in caught.value.errors] == [
        "line 16: id: the same content as line 11 (give the cases IDs)"
    ]
    # Iterating (without validating first) gives the rows before the repeated one.
    first = next(iter(CaseSource(TOOLS / "deepeval_goldens.csv")))
    assert first.question == "What is the tallest mountain in the world?"
    assert (first.answer, first.golden_answer) == ("Mount Everest", "Mount Everest")
    assert first.trace.context == ("Mountain heights list",)
    assert first.metadata["context"] == ["Geography", "Mountains"]


def test_deepeval_conversational_goldens_csv_reads_its_piped_turns() -> None:
    cases = load_cases(TOOLS / "deepeval_convo_goldens.csv")
    assert len(cases) == 3
    weather = cases[0]
    assert [(t.role, t.content, t.context) for t in weather.turns] == [
        ("user", "What's the weather like in Paris this weekend?", ("Weather API docs",)),
        (
            "assistant",
            "It's expected to be rainy with temperatures around 18°C.",
            ("Weather API response",),
        ),
    ]
    assert weather.expected_behaviour == "User receives accurate weather forecast"
    assert weather.metadata == {
        "scenario": "User asks for weather forecast for Paris",
        "user_description": "User is planning a trip to Paris and wants to check the weather",
        "context": ["Weather", "Paris"],
    }
    # A quoted cell keeps its comma ($3,250.75), and a turn may have no context.
    assert cases[2].answer == "Your current balance is $3,250.75."
    assert cases[1].turns[1].context == ()


def test_inspect_mcq_csv_letters_its_choices() -> None:
    (case,) = load_cases(TOOLS / "inspect_samples-mcq.csv")
    letters = "ABCDEFGHIJ"
    assert case.question == "Which is the smallest number?\n\n" + "\n".join(
        f"{letter}) {n}" for letter, n in zip(letters, range(1, 11), strict=True)
    )
    assert case.golden_answer == "A"
    assert case.metadata["choices"] == [str(n) for n in range(1, 11)]


def test_mt_bench_questions_load_with_and_without_references() -> None:
    records = [
        json.loads(line)
        for line in (TOOLS / "mt_bench_question.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    cases = load_cases(TOOLS / "mt_bench_question.jsonl")
    assert [c.id for c in cases] == ["81", "101", "104"]
    assert [c.category for c in cases] == ["writing", "reasoning", "reasoning"]
    for case, record in zip(cases, records, strict=True):
        first, second = record["turns"]
        assert case.question == f"Turn 1: {first}\n\nTurn 2: {second}"
        assert case.metadata["turns"] == record["turns"]
    assert cases[0].golden_answer is None
    assert cases[1].golden_answer == "Turn 1: You are in second place.\n\nTurn 2: Uncertain."


def test_alpaca_eval_outputs_keep_their_generator_in_metadata() -> None:
    path = TOOLS / "alpaca_eval_gpt4_model_outputs.json"
    records = json.loads(path.read_text(encoding="utf-8"))
    source = CaseSource(path)
    source.validate()
    cases = list(source)
    for case, record in zip(cases, records, strict=True):
        assert (case.question, case.answer) == (record["instruction"], record["output"])
        assert case.metadata == {"dataset": "helpful_base", "generator": "gpt4"}
    assert f"{path}: kept in metadata (the judges do not see it) on all 2 items: " \
        "dataset, generator" in source.notices  # fmt: skip


def test_sharegpt_conversations_load_as_turns() -> None:
    first, second = load_cases(TOOLS / "sharegpt_dummy_conversation.json")
    assert first.id == "identity_0"
    assert [t.role for t in first.turns] == ["user", "assistant", "user", "assistant"]
    assert (first.question, first.answer) == ("Have a nice day!", "You too!")
    assert second.answer == (
        "My name is Vicuna, and I'm a language model developed by Large Model Systems "
        "Organization (LMSYS)."
    )


def test_promptfoo_simple_csv_example_asks_which_var_is_the_question() -> None:
    config = TOOLS / "promptfoo_simple-csv" / "promptfooconfig.yaml"
    with pytest.raises(CaseFileError) as caught:
        load_cases(config)
    assert "on all 4 items: vars body, language, style_config: none is clearly the question; " \
        "say which with --map question=body" in str(caught.value)  # fmt: skip
    cases = load_cases(config, fields={"question": "body"})
    assert [c.question for c in cases] == ["Hello world", "I'm hungry"] * 2
    assert cases[1].metadata["vars"] == {
        "language": "French",
        "style_config": {"tone": "casual", "length": "brief", "formatting": {"bullets": True}},
    }
    assert cases[1].metadata["assert"] == [{"type": "icontains", "value": "faim"}]
    # The vars the prompt template fills in around the question are shown to the judges.
    assert cases[1].judge == cases[1].metadata["vars"]


def test_openai_evals_few_shot_samples_keep_their_example_roles() -> None:
    path = TOOLS / "openai_evals_test_fuzzy_match_samples.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    cases = load_cases(path)
    assert len(cases) == 3
    for case, record in zip(cases, records, strict=True):
        # The few-shot examples are system messages named for the role they play: they are
        # the turns of those roles, and the last user message is the question.
        roles = [t.role for t in case.turns]
        assert roles == ["system", "user", "assistant", "user", "assistant", "user"]
        assert [t.content for t in case.turns] == [m["content"] for m in record["input"]]
        assert case.question == record["input"][-1]["content"]
    assert cases[0].golden_answer == "Millie Bobby Brown"
    # Several ideal answers: any one is right, and the list is kept.
    assert cases[1].golden_answer == "Any of these answers is correct:\n- Season 11\n- 11"
    assert cases[1].metadata["ideal"] == ["Season 11", "11"]


def _fastchat_layout(tmp_path: Path) -> Path:
    # FastChat's folder of a benchmark: question.jsonl beside reference_answer/<model>.jsonl.
    bench = tmp_path / "mt_bench"
    (bench / "reference_answer").mkdir(parents=True)
    shutil.copy(TOOLS / "mt_bench_question.jsonl", bench / "question.jsonl")
    answers = bench / "reference_answer" / "gpt-4.jsonl"
    shutil.copy(TOOLS / "mt_bench_reference_answer_gpt-4.jsonl", answers)
    return answers


def test_mt_bench_answers_become_the_conversation_with_their_questions(tmp_path: Path) -> None:
    answers = _fastchat_layout(tmp_path)
    questions = {
        str(record["question_id"]): record
        for record in (
            json.loads(line)
            for line in (TOOLS / "mt_bench_question.jsonl").read_text("utf-8").splitlines()
        )
    }
    records = [json.loads(line) for line in answers.read_text("utf-8").splitlines()]
    source = CaseSource(answers)
    source.validate()
    cases = list(source)
    assert [c.id for c in cases] == ["101", "104"]
    for case, record in zip(cases, records, strict=True):
        asked, said = questions[case.id]["turns"], record["choices"][0]["turns"]
        # The second question is asked after the first answer: the case is that conversation.
        assert [(t.role, t.content) for t in case.turns] == [
            ("user", asked[0]),
            ("assistant", said[0]),
            ("user", asked[1]),
            ("assistant", said[1]),
        ]
        assert (case.question, case.answer) == (asked[1], said[1])
        assert case.category == "reasoning"
        assert case.metadata["model_id"] == "gpt-4"
        assert case.metadata["answer_id"] == record["answer_id"]
    assert cases[0].golden_answer == "Turn 1: You are in second place.\n\nTurn 2: Uncertain."
    assert f"{answers}: the questions from {answers.parent.parent / 'question.jsonl'}" in (
        source.notices
    )
    assert f"{answers}: read 2 of 2 as MT-Bench answers" in source.notices


def test_mt_bench_answers_without_their_questions_say_where_they_were_looked_for() -> None:
    path = TOOLS / "mt_bench_reference_answer_gpt-4.jsonl"
    with pytest.raises(CaseFileError) as caught:
        load_cases(path)
    assert (
        f"on all 2 lines: MT-Bench answers carry no question, and {TOOLS.parent}/question.jsonl"
        in str(caught.value)
    )


def test_an_mt_bench_answer_to_a_question_not_in_the_file_names_its_id(tmp_path: Path) -> None:
    answers = _fastchat_layout(tmp_path)
    (answers.parent.parent / "question.jsonl").write_text(
        (TOOLS / "mt_bench_question.jsonl").read_text("utf-8").splitlines()[1] + "\n", "utf-8"
    )
    with pytest.raises(CaseFileError) as caught:
        load_cases(answers)
    assert [str(e) for e in caught.value.errors] == [
        f"line 2: question_id 104: no such question in {answers.parent.parent / 'question.jsonl'}"
    ]


def test_ragas_tool_call_samples_expect_their_reference_tool_calls() -> None:
    # The CSV keeps each row's RAGAS ToolCalls ({name, args}) as JSON text in its cell, as
    # the RAGAS example that wrote it reads them back (json.loads of the cell).
    path = TOOLS / "ragas_weather_tool_calls.csv"
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    source = CaseSource(path)
    source.validate()
    cases = list(source)
    assert len(cases) == len(rows) == 5
    for case, row in zip(cases, rows, strict=True):
        (call,) = json.loads(row["reference_tool_calls"])
        assert case.question == row["user_input"]
        assert (case.expected_tool, case.expected_tool_argument) == (call["name"], call["args"])
        assert (case.answer, case.golden_answer, case.expected_tool_order) == (None, None, None)
    assert cases[2].expected_tool_argument == {"location": "Paris"}
    assert f"{path}: read 5 of 5 as RAGAS samples" in source.notices


def test_ragas_single_turn_samples_take_their_reference_as_the_golden_answer() -> None:
    path = TOOLS / "ragas_scientist_biographies.csv"
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    cases = load_cases(path)
    assert [(c.question, c.golden_answer) for c in cases] == [
        (row["user_input"], row["reference"]) for row in rows
    ]
    assert cases[1].golden_answer == "Alexander Fleming discovered penicillin in 1928."
    assert all(c.answer is None and c.metadata == {} for c in cases)
