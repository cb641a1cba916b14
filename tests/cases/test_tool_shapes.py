"""Other tools' records load as those tools write them, field by field, and nothing of them
is dropped without a word (`jury.cases._shapes` and its family modules)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jury import Case, CaseFileError, ConfigError, load_cases
from jury.cases import CaseSource


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def lines(*records: dict[str, Any]) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def one(path: Path, **kw: Any) -> Case:
    cases = load_cases(path, **kw)
    assert len(cases) == 1
    return cases[0]


def notices(path: Path, **kw: Any) -> list[str]:
    source = CaseSource(path, **kw)
    source.validate()
    return source.notices


# --- DeepEval ---------------------------------------------------------------------------------


def test_a_deepeval_conversational_golden_with_turns_as_json_text_loads(tmp_path: Path) -> None:
    turns = [
        {"role": "user", "content": "My order is late"},
        {"role": "assistant", "content": "Sorry! Let me check."},
    ]
    golden = {
        "scenario": "A customer wants a refund for a late order",
        "expected_outcome": "The agent offers a refund",
        "user_description": "an impatient customer",
        "turns": json.dumps(turns),
        "additional_metadata": {"source": "support"},
        "custom_column_key_values": {"team": "returns"},
    }
    case = one(write(tmp_path, "goldens.json", json.dumps([golden])))
    assert case.expected_behaviour == "The agent offers a refund"
    assert [(t.role, t.content) for t in case.turns] == [(t["role"], t["content"]) for t in turns]
    assert case.answer == "Sorry! Let me check."
    assert case.metadata["scenario"] == golden["scenario"]
    assert case.metadata["user_description"] == "an impatient customer"
    assert case.metadata["custom_column_key_values"] == {"team": "returns"}
    assert case.metadata["source"] == "support"


def test_a_deepeval_csv_export_splits_its_pipe_joined_lists(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "deepeval.csv",
        "input,actual_output,expected_output,context,retrieval_context,source_file\n"
        "What ships fast?,In 2 days,Two days,policy A|policy B,"
        "Orders ship within two days.|Returns take 30 days.,docs.md\n",
    )
    case = one(path)
    assert (case.question, case.answer, case.golden_answer) == ("What ships fast?", "In 2 days",
                                                                "Two days")  # fmt: skip
    assert case.trace.context == ("Orders ship within two days.", "Returns take 30 days.")
    assert case.metadata["context"] == ["policy A", "policy B"]
    assert case.metadata["source_file"] == "docs.md"


def test_deepeval_expected_tools_with_input_parameters_are_the_expected_tool_calls(
    tmp_path: Path,
) -> None:
    # DeepEval's ToolCall (deepeval/test_case/llm_test_case.py): name, input_parameters, output.
    tools = [
        {"name": "checkEligibility", "input_parameters": {"order": "ORD-7"}},
        {"name": "bookReturn", "input_parameters": {"order": "ORD-7"}, "output": "RMA-1"},
        {"name": "sendEmail"},
    ]
    named = [{"name": "checkEligibility"}, {"name": "bookReturn"}]
    path = write(
        tmp_path,
        "deepeval.json",
        json.dumps(
            [
                {"input": "Return ORD-7", "actual_output": "Booked.", "expected_tools": tools},
                {"input": "Return ORD-8", "actual_output": "Booked.", "expectedTools": named},
            ]
        ),
    )
    with_arguments, names_only = load_cases(path)
    assert [(c.name, c.arguments) for c in with_arguments.expected_tool_calls or ()] == [
        ("checkEligibility", {"order": "ORD-7"}),
        ("bookReturn", {"order": "ORD-7"}),
        ("sendEmail", None),
    ]
    # The expected output has no field: the calls as given are kept, not dropped.
    assert with_arguments.metadata["expected_tools"] == tools
    assert with_arguments.expected_tool_order is None
    # Names only: their order, as before.
    assert names_only.expected_tool_order == ("checkEligibility", "bookReturn")
    assert (names_only.expected_tool_calls, names_only.metadata) == (None, {})


# --- promptfoo --------------------------------------------------------------------------------


def test_a_promptfoo_csv_is_recognised_by_its_own_columns_without_expected(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path,
        "tests.csv",
        "question,tone,__description,__metadata:team,__threshold\n"
        "Where is my order?,polite,first test,returns,0.5\n",
    )
    case = one(path)
    assert case.question == "Where is my order?"
    assert case.metadata["vars"] == {"tone": "polite"}
    assert case.judge == {"tone": "polite"}
    assert case.metadata["description"] == "first test"
    assert case.metadata["team"] == "returns"
    assert case.metadata["threshold"] == "0.5"
    assert "read 1 of 1 as promptfoo tests" in " ".join(notices(path))


def test_a_double_underscore_column_that_is_not_promptfoos_is_no_promptfoo_test(
    tmp_path: Path,
) -> None:
    # pandas writes its index into Parquet as __index_level_0__: a case's own fields still.
    path = write(tmp_path, "cases.jsonl", lines({"question": "q", "__index_level_0__": 3}))
    with pytest.raises(CaseFileError) as caught:
        load_cases(path)
    assert "line 1: unknown field __index_level_0__" in str(caught.value)
    assert "promptfoo" not in str(caught.value)


def test_a_promptfoo_config_follows_tests_from_a_file_with_its_default_test(
    tmp_path: Path,
) -> None:
    write(tmp_path, "tests.csv", "question,city\nWeather in {{city}}?,Paris\n")
    config = write(
        tmp_path,
        "promptfooconfig.yaml",
        "# yaml-language-server: $schema=https://promptfoo.dev/config-schema.json\n"
        "prompts: ['{{question}}']\n"
        "tests: file://tests.csv\n"
        "defaultTest:\n"
        "  assert:\n"
        "    - type: llm-rubric\n"
        "      value: Gives the weather in {{city}}\n",
    )
    case = one(config)
    assert case.question == "Weather in {{city}}?"
    assert case.expected_behaviour == "Gives the weather in Paris"
    assert case.metadata["vars"] == {"city": "Paris"}


def test_a_promptfoo_test_whose_vars_name_no_question_stops_with_the_map_to_paste(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path,
        "promptfooconfig.yaml",
        "prompts: ['Write about {{topic}} in a {{tone}} tone']\n"
        "tests:\n"
        "  - vars: {topic: shipping, tone: polite}\n"
        "  - vars: {topic: returns, tone: curt}\n",
    )
    with pytest.raises(CaseFileError) as caught:
        load_cases(path)
    message = str(caught.value)
    assert "on all 2 items: vars tone, topic: none is clearly the question" in message
    assert "--map question=vars.tone" in message
    case = load_cases(path, fields={"question": "vars.topic"})[1]
    assert case.question == "returns"
    assert case.metadata["vars"] == {"tone": "curt"}


# --- Inspect ------------------------------------------------------------------------------


def test_an_inspect_csv_splits_its_choices_cell_on_commas(tmp_path: Path) -> None:
    path = write(tmp_path, "mcq.csv", 'input,choices,target\nWhich is a fruit?,"apple, stone",A\n')
    case = one(path)
    assert case.question == "Which is a fruit?\n\nA) apple\nB) stone"
    assert case.golden_answer == "A"
    assert case.metadata["choices"] == ["apple", "stone"]


def test_an_image_part_of_a_message_is_kept_and_numbered_where_it_was(tmp_path: Path) -> None:
    content = [
        {"type": "text", "text": "What is in this picture?"},
        {"type": "image", "image": "data:image/png;base64,AAAA"},
    ]
    record = {"input": [{"role": "user", "content": content}], "target": ["a cat"]}
    case = one(write(tmp_path, "images.jsonl", lines(record)))
    assert case.question == "What is in this picture?\n[image 1]"
    assert [(i.media_type, i.data) for i in case.images] == [("image/png", "AAAA")]


# --- OpenAI evals -------------------------------------------------------------------------


def test_openai_evals_few_shot_names_are_kept_as_the_roles_they_play(tmp_path: Path) -> None:
    record = {
        "input": [
            {"role": "system", "content": "Answer briefly"},
            {"role": "system", "name": "example_user", "content": "2+2?"},
            {"role": "system", "name": "example_assistant", "content": "4"},
            {"role": "user", "content": "3+3?"},
        ],
        "ideal": "6",
    }
    case = one(write(tmp_path, "samples.jsonl", lines(record)))
    assert [t.role for t in case.turns] == ["system", "user", "assistant", "user"]
    assert (case.question, case.golden_answer) == ("3+3?", "6")


def test_a_labelled_model_graded_sample_keeps_its_completion_and_choice(tmp_path: Path) -> None:
    record = {"input": "Is the sky blue?", "completion": "Yes", "choice": "Y"}
    case = one(write(tmp_path, "labelled.jsonl", lines(record)))
    assert (case.question, case.answer, case.labels) == ("Is the sky blue?", "Yes", {"choice": "Y"})


# --- RAGAS ------------------------------------------------------------------------------------


def test_ragas_reference_tool_calls_are_the_expected_tool_calls(tmp_path: Path) -> None:
    calls = [{"name": "weather", "args": {"city": "Paris"}}, {"name": "news", "args": {}}]
    path = write(
        tmp_path,
        "ragas.jsonl",
        lines(
            {"user_input": "Paris?", "reference_tool_calls": calls[:1]},
            {"user_input": "Both?", "reference_tool_calls": calls},
        ),
    )
    single, several = load_cases(path)
    assert (single.expected_tool, single.expected_tool_argument) == ("weather", {"city": "Paris"})
    # Several: each call's name, in order, with its arguments (RAGAS's `{}`: none given).
    assert [(c.name, c.arguments) for c in several.expected_tool_calls or ()] == [
        ("weather", {"city": "Paris"}),
        ("news", {}),
    ]
    assert (several.expected_tool_order, several.metadata) == (None, {})
    assert single.expected_tool_calls is None


def test_a_ragas_csv_cell_python_wrote_as_a_table_is_the_table_a_set_stays_text(
    tmp_path: Path,
) -> None:
    # RAGAS's to_csv writes a dict cell as Python's str() of it (csv.DictWriter).
    path = write(
        tmp_path,
        "ragas.csv",
        "user_input,rubrics,tags\n"
        "Q?,\"{'score1_description': 'wrong', 'score5_description': 'right'}\",\"{1, 2}\"\n",
    )
    case = one(path)
    assert case.metadata["rubrics"] == {
        "score1_description": "wrong",
        "score5_description": "right",
    }
    assert case.metadata["tags"] == "{1, 2}"


# --- Braintrust ---------------------------------------------------------------------------


def test_a_braintrust_logged_row_keeps_its_own_keys_and_says_objects_as_json(
    tmp_path: Path,
) -> None:
    row = {
        "id": "r1",
        "span_id": "s1",
        "root_span_id": "s1",
        "created": "2024-01-01T00:00:00Z",
        "input": {"city": "Paris", "units": "C"},
        "output": {"temp": 21},
        "metrics": {"start": 1.0, "end": 2.0},
        "span_attributes": {"name": "eval", "type": "eval"},
        "context": {"caller_filename": "app.py", "caller_lineno": 12},
    }
    case = one(write(tmp_path, "logs.jsonl", lines(row)))
    assert json.loads(case.question) == row["input"]
    assert json.loads(case.answer or "") == {"temp": 21}
    assert case.trace.context == ()  # the caller's source location is not retrieval context
    for key in ("id", "span_id", "root_span_id", "created", "metrics", "span_attributes"):
        assert case.metadata[key] == row[key]
    assert case.metadata["context"] == row["context"]


# --- MT-Bench, AlpacaEval, ShareGPT -------------------------------------------------------


def test_an_mt_bench_question_loads_its_turns_and_references(tmp_path: Path) -> None:
    record = {
        "question_id": 101,
        "category": "reasoning",
        "turns": ["You overtake the second person. Your position?", "And the last person?"],
        "reference": ["Second", "Impossible"],
    }
    case = one(write(tmp_path, "question.jsonl", lines(record)))
    assert case.id == "101"
    assert case.category == "reasoning"
    assert case.question == (
        "Turn 1: You overtake the second person. Your position?\n\nTurn 2: And the last person?"
    )
    assert case.golden_answer == "Turn 1: Second\n\nTurn 2: Impossible"
    assert case.metadata["turns"] == record["turns"]


def test_alpaca_eval_outputs_keep_their_generator_and_say_so_once(tmp_path: Path) -> None:
    record = {
        "dataset": "helpful_base",
        "instruction": "Name some famous actors.",
        "output": "Tom Hanks",
        "generator": "gpt4",
        "datasplit": "eval",
    }
    path = write(tmp_path, "outputs.json", json.dumps([record, {**record, "output": "Meryl"}]))
    first, _ = load_cases(path)
    assert (first.question, first.answer) == ("Name some famous actors.", "Tom Hanks")
    assert first.metadata == {"dataset": "helpful_base", "generator": "gpt4", "datasplit": "eval"}
    said = [n for n in notices(path) if "kept in metadata" in n]
    assert said == [
        f"{path}: kept in metadata (the judges do not see it) on all 2 items: "
        "dataset, generator, datasplit"
    ]


def test_a_sharegpt_conversation_is_read_from_its_from_and_value(tmp_path: Path) -> None:
    record = {
        "id": "abc",
        "conversations": [{"from": "human", "value": "Hi"}, {"from": "gpt", "value": "Hello!"}],
    }
    case = one(write(tmp_path, "sharegpt.json", json.dumps([record])))
    assert case.id == "abc"
    assert [(t.role, t.content) for t in case.turns] == [("user", "Hi"), ("assistant", "Hello!")]
    assert (case.question, case.answer) == ("Hi", "Hello!")


def test_a_sharegpt_message_from_an_unknown_speaker_is_named(tmp_path: Path) -> None:
    record = {"conversations": [{"from": "narrator", "value": "Once"}]}
    with pytest.raises(CaseFileError, match=r"conversations\[0\]: from 'narrator'"):
        load_cases(write(tmp_path, "sharegpt.json", json.dumps([record])))


# --- documents whose top is an object ---------------------------------------------------


def test_an_inspect_eval_log_is_named_and_read_with_root(tmp_path: Path) -> None:
    log = {
        "version": 2,
        "status": "success",
        "eval": {"task": "mcq"},
        "samples": [{"id": 1, "input": "2+2?", "target": ["4"]}],
    }
    path = write(tmp_path, "log.json", json.dumps(log))
    with pytest.raises(ConfigError) as caught:
        load_cases(path)
    assert "keys version, status, eval, samples" in str(caught.value)
    assert "it looks like an Inspect eval log: read its cases with --root samples" in str(
        caught.value
    )
    case = one(path, root="samples")
    assert (case.id, case.question, case.golden_answer) == ("1", "2+2?", "4")


def test_a_root_that_is_not_there_names_what_is(tmp_path: Path) -> None:
    path = write(tmp_path, "run.json", json.dumps({"testCases": [], "testPassed": 0}))
    with pytest.raises(ConfigError, match=r"--root rows: no 'rows' there \(found testCases, "):
        load_cases(path, root="rows")


def test_an_mlflow_table_is_read_row_by_row(tmp_path: Path) -> None:
    table = {"columns": ["question", "answer"], "data": [["q1", "a1"], ["q2", "a2"]]}
    cases = load_cases(write(tmp_path, "table.json", json.dumps(table)))
    assert [(c.question, c.answer) for c in cases] == [("q1", "a1"), ("q2", "a2")]


# --- errors -------------------------------------------------------------------------------


def test_the_same_problem_on_every_line_is_said_once_with_the_map_to_paste(
    tmp_path: Path,
) -> None:
    records = [{"question": f"q{n}", "answer": "a", "hint": "h", "level": n} for n in range(805)]
    with pytest.raises(CaseFileError) as caught:
        load_cases(write(tmp_path, "cases.jsonl", lines(*records)))
    message = str(caught.value).splitlines()
    assert len(caught.value.errors) == 2 * 805
    assert message == [
        f"{tmp_path / 'cases.jsonl'}: 805 bad lines (1610 problems); nothing was run",
        "  on all 805 lines: unknown fields hint, level",
        "  to keep them in metadata, add: --map metadata.hint=hint --map metadata.level=level "
        "(or a [fields] entry each)",
    ]


def test_a_problem_on_some_lines_gives_its_count_and_the_first_places(tmp_path: Path) -> None:
    records = [{"question": "q", "id": str(n), "min_words": "x" if n % 2 else 1} for n in range(20)]
    with pytest.raises(CaseFileError) as caught:
        load_cases(write(tmp_path, "cases.jsonl", lines(*records)))
    assert 'on 10 lines (2, 4, 6, 8, 10, ...): min_words: expected a whole number, got "x"' in (
        str(caught.value)
    )


@pytest.mark.parametrize(
    "key", ["question_id", "dataset", "completion_time", "expected_outcomes", "created"]
)
def test_a_key_that_is_no_typo_gets_no_did_you_mean(tmp_path: Path, key: str) -> None:
    path = write(tmp_path, "cases.jsonl", lines({"id": "a", "question": "q", key: 1}))
    with pytest.raises(CaseFileError) as caught:
        load_cases(path)
    assert f"unknown field {key}" in str(caught.value)
    assert "did you mean" not in str(caught.value)


def test_a_typo_still_gets_its_did_you_mean(tmp_path: Path) -> None:
    path = write(tmp_path, "cases.jsonl", lines({"id": "a", "question": "q", "answr": "x"}))
    with pytest.raises(CaseFileError, match=r"answr: unknown field \(did you mean 'answer'\?\)"):
        load_cases(path)


def test_an_error_names_the_key_the_record_gave(tmp_path: Path) -> None:
    path = write(tmp_path, "ragas.jsonl", lines({"user_input": "q", "reference": 3}))
    with pytest.raises(CaseFileError) as caught:
        load_cases(path)
    assert "line 1: reference: expected text, got 3" in str(caught.value)
    assert "(read as golden answer)" in str(caught.value)


# --- standard input -----------------------------------------------------------------------

STDIN = {
    "cases.jsonl": lines({"id": "a", "question": "q1"}, {"id": "b", "question": "q2"}),
    "cases.json": json.dumps([{"id": "a", "question": "q1"}, {"id": "b", "question": "q2"}]),
    "cases.csv": "id,question\na,q1\nb,q2\n",
    "cases.tsv": "id\tquestion\na\tq1\nb\tq2\n",
    "cases.yaml": "- id: a\n  question: q1\n- id: b\n  question: q2\n",
    "promptfooconfig.yaml": (
        "# yaml-language-server: $schema=https://promptfoo.dev/config-schema.json\n"
        "prompts: ['{{question}}']\n"
        "tests:\n  - vars: {question: q1}\n  - vars: {question: q2}\n"
    ),
}


@pytest.mark.parametrize("name", list(STDIN))
def test_the_same_bytes_from_a_path_and_from_standard_input_give_the_same_cases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    import io
    import sys

    path = write(tmp_path, name, STDIN[name])
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(path.read_bytes())))
    from_stdin = load_cases("-")
    assert from_stdin == load_cases(path)
    assert [c.question for c in from_stdin] == ["q1", "q2"]


def test_the_command_line_reads_a_log_with_root_and_refuses_it_without(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from jury.cli import main

    log = {"eval": {}, "status": "success", "samples": [{"input": "2+2?", "target": ["4"]}]}
    path = write(tmp_path, "log.json", json.dumps(log))
    assert main(["run", str(path), "--out", str(tmp_path / "a"), "--progress", "none"]) == 2
    assert "read its cases with --root samples" in capsys.readouterr().err
    # The log's samples are prompts: an agent answers them (without one, exit 2 says so).
    agent = write(tmp_path, "agent.py", "def answer(case):\n    return '4'\n")
    argv = ["run", str(path), "--root", "samples", "--out", str(tmp_path / "b"), "--progress"]
    assert main([*argv, "none", "--agent", f"{agent}:answer"]) in (0, 1)
    recorded = (tmp_path / "b" / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["question"] for line in recorded] == ["2+2?"]
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["reading"]["root"] == "samples"


def test_one_ragas_reference_call_of_no_arguments_expects_none(tmp_path: Path) -> None:
    # RAGAS writes `args: {}` for a call without arguments: the tool is expected, and no
    # argument the call must have been given (as `{}` means in expected_tool_calls).
    record = {"user_input": "Time?", "reference_tool_calls": [{"name": "clock", "args": {}}]}
    case = one(write(tmp_path, "clock.jsonl", lines(record)))
    assert case.expected_tool == "clock"
    assert case.expected_tool_argument is None


def test_reference_tool_calls_with_an_item_that_is_no_call_name_it_in_a_line_error(
    tmp_path: Path,
) -> None:
    record = {"user_input": "q", "response": "a", "reference_tool_calls": ["search", 5]}
    path = write(tmp_path, "bad.jsonl", lines(record))
    with pytest.raises(CaseFileError) as bad:
        load_cases(path)
    assert "line 1: reference_tool_calls[1]" in str(bad.value)
