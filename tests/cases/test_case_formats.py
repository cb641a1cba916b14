"""Cases load from the formats people have, to the same cases, and other tools' records load
as they are (`jury.cases`)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from extras import needs

from jury import Case, CaseFileError, ConfigError, iter_cases, load_cases
from jury.cases import CaseSource, content_id
from jury.cli import main

DATA = Path(__file__).parents[1] / "data"
FORMATS = DATA / "formats"
SHAPES = DATA / "shapes"
ROOT = Path(__file__).resolve().parents[2]


def reference() -> list[Case]:
    return load_cases(FORMATS / "cases.jsonl")


#: The sample in every format beside cases.jsonl (Parquet read with the parquet extra).
SAMPLES = [
    "cases.json",
    "array.json",
    "cases.csv",
    "cases.tsv",
    "cases.yaml",
    pytest.param("cases.parquet", marks=needs("parquet")),
]


@pytest.mark.parametrize("name", SAMPLES)
def test_every_format_of_the_sample_loads_to_the_same_cases(name: str) -> None:
    assert load_cases(FORMATS / name) == reference()


def test_the_sample_holds_what_each_format_must_carry() -> None:
    tool, refusal, made = reference()
    # Nested and listed fields (CSV: dotted columns and JSON cells), numbers, booleans.
    assert tool.trace.tool_calls[0].result == "Shipped 2 days ago"
    assert tool.trace.retrieved_sources == ("orders.md",)
    assert tool.min_words == 3
    assert refusal.expect_refusal is True
    assert refusal.metadata == {"source": "red team", "severity": 3}
    # Text that looks like a list stays text in a text field.
    assert refusal.question.startswith("[URGENT]")
    assert made.labels == {"pass": True}
    assert made.id == content_id(made)


@needs("datasets")
def test_a_dataset_object_loads_to_the_same_cases(tmp_path: Path) -> None:
    import datasets

    # Built locally, as `load_dataset` builds a JSON dataset: no hub access.
    dataset = datasets.Dataset.from_json(
        str(FORMATS / "cases.jsonl"), cache_dir=str(tmp_path / "cache")
    )
    assert load_cases(dataset) == reference()


@needs("datasets")
def test_a_hugging_face_dataset_by_name_runs_from_the_command_line(tmp_path: Path) -> None:
    # `load_dataset("acme/support")` reads a local folder of that name before the hub; the
    # hub is kept offline so that nothing leaves the machine.
    folder = tmp_path / "acme" / "support"
    folder.mkdir(parents=True)
    (folder / "test.jsonl").write_bytes((FORMATS / "cases.jsonl").read_bytes())
    env = {
        **{k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))},
        "HF_HOME": str(tmp_path / "hf"),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
    }
    command = [sys.executable, "-m", "jury", "run", "hf://acme/support:test", "--out", "run"]
    done = subprocess.run(
        [*command, "--progress", "none"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    recorded = [
        json.loads(line)["id"]
        for line in (tmp_path / "run" / "cases.jsonl").read_text().splitlines()
    ]
    assert recorded == [case.id for case in reference()]
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["cases"]["path"] == "hf://acme/support:test"
    assert manifest["cases"]["sha256"]


def test_standard_input_is_read_once_and_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = (FORMATS / "cases.csv").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["run", "-", "--out", str(tmp_path / "run"), "--progress", "none"]) in (0, 1)
    recorded = (tmp_path / "run" / "cases.jsonl").read_text().splitlines()
    assert [json.loads(line)["id"] for line in recorded] == [c.id for c in reference()]
    assert "1 of 3 cases have no id" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["cases.jsonl", *SAMPLES])
def test_the_same_bytes_from_standard_input_give_the_same_cases(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # From `-` the format is told by the content alone (no extension): Parquet by its magic
    # bytes, JSON from JSON Lines by whether the first line is a whole value, and so on.
    data = (FORMATS / name).read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert load_cases("-") == load_cases(FORMATS / name) == reference()


def test_yaml_that_starts_with_a_comment_is_yaml_on_standard_input(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every promptfoo configuration starts with `# yaml-language-server: $schema=...`.
    data = b"# yaml-language-server: $schema=https://example.test/config-schema.json\n"
    data += (FORMATS / "cases.yaml").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert load_cases("-") == reference()


def test_a_case_without_an_id_gets_one_from_its_content() -> None:
    first = Case.model_validate({"id": "x", "question": "q", "answer": "a"})
    same = Case.model_validate({"id": "y", "question": "q", "answer": "a"})
    other = Case.model_validate({"id": "x", "question": "q", "answer": "b"})
    assert content_id(first) == content_id(same) != content_id(other)
    assert content_id(first).startswith("case-")


def test_two_cases_of_the_same_content_without_ids_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text('{"question": "q", "answer": "a"}\n' * 2)
    with pytest.raises(CaseFileError, match=r"line 2: id: the same content as line 1"):
        load_cases(path)


def test_a_field_map_moves_values_to_case_fields(tmp_path: Path) -> None:
    path = tmp_path / "export.jsonl"
    record = {
        "uid": "r1",
        "prompt": {"text": "Where is ORD-101?"},
        "expected": {"answer": "Shipped."},
        "reply": "It shipped.",
        "team": "ops",
    }
    path.write_text(json.dumps(record) + "\n")
    fields = {
        "golden_answer": "expected.answer",
        "question": "prompt.text",
        "answer": "reply",
        "metadata.team": "team",
    }
    (case,) = load_cases(path, fields=fields)
    assert (case.id, case.question, case.answer, case.golden_answer) == (
        "r1",
        "Where is ORD-101?",
        "It shipped.",
        "Shipped.",
    )
    assert case.metadata == {"team": "ops"}


def test_a_field_map_from_the_jury_file_and_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps({"q": "Where?", "a": "Here.", "gold": {"text": "Here."}}) + "\n")
    jury_file = tmp_path / "jury.toml"
    jury_file.write_text('jurors = ["offline/reference"]\n[fields]\nquestion = "q"\nanswer = "a"\n')
    out = tmp_path / "run"
    argv = ["run", str(cases), "--jury", str(jury_file), "--out", str(out), "--progress", "none"]
    assert main([*argv, "--map", "golden_answer=gold.text"]) in (0, 1)
    (recorded,) = [json.loads(line) for line in (out / "cases.jsonl").read_text().splitlines()]
    assert recorded["golden_answer"] == "Here."
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["jury"]["fields"] == {
        "question": "q",
        "answer": "a",
        "golden_answer": "gold.text",
    }
    capsys.readouterr()


def test_a_mapped_path_that_no_record_has_is_named_with_the_closest(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps({"id": "a", "expected": {"answer": "x"}}) + "\n")
    with pytest.raises(
        ConfigError, match=r"no record has expectd\.answer \(did you mean 'expected\.answer'"
    ):
        CaseSource(path, fields={"golden_answer": "expectd.answer"}).validate()


def test_iterating_a_source_twice_reads_it_twice() -> None:
    source = CaseSource(FORMATS / "cases.csv")
    assert list(source) == list(source) == reference()


def test_iter_cases_validates_before_the_first_case(tmp_path: Path) -> None:
    path = tmp_path / "cases.csv"
    path.write_text("id,question\na,q\nb,q,extra\n")
    with pytest.raises(CaseFileError, match="line 3: 3 cells, but the header names 2 columns"):
        next(iter_cases(path))


# --- other tools' shapes ---------------------------------------------------------------------


def by_question(name: str) -> dict[str, Case]:
    return {case.question: case for case in load_cases(SHAPES / name)}


def test_openai_evals_samples() -> None:
    cases = by_question("openai_evals.jsonl")
    status = cases["Where is my order ORD-101?"]
    assert status.golden_answer == "ORD-101 has been shipped."
    # Several messages are a conversation, judged as one: the system message is a turn, the
    # question the user's last words, and the sample has no answer yet.
    assert [(t.role, t.content) for t in status.turns] == [
        ("system", "You are ShopNest's support agent."),
        ("user", "Where is my order ORD-101?"),
    ]
    assert status.answer is None
    assert "input" not in status.metadata
    returns = cases["Can I return a used item?"]
    # One user message stays a plain question.
    assert returns.turns == ()
    assert returns.golden_answer is not None
    assert "- Yes, within 30 days." in returns.golden_answer
    assert returns.metadata["ideal"] == [
        "Yes, within 30 days.",
        "Used items can be returned within 30 days.",
    ]


def test_inspect_samples() -> None:
    cases = {case.id: case for case in load_cases(SHAPES / "inspect.json")}
    assert cases["1"].metadata == {"topic": "returns", "target": ["30 days", "thirty days"]}
    assert cases["mc-2"].question == "Which carrier ships ORD-101?\n\nA) ParcelCo\nB) FastShip"
    assert cases["mc-2"].golden_answer == "A"
    assert cases["chat-3"].question == "Is ORD-102 delivered?"
    assert [t.role for t in cases["chat-3"].turns] == ["system", "user"]
    # Inspect's tool calls (the function named as text) and the error its tool message flags.
    agent = cases["agent-4"]
    assert agent.question == "Did it work?"
    assert [(c.name, c.arguments, c.error) for c in agent.trace.tool_calls] == [
        ("issue_refund", {"order": "ORD-204"}, "payment service timed out")
    ]


def test_a_chat_input_that_cannot_be_read_names_its_message(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    chat = [{"role": "user", "content": "hi"}, {"role": "bot", "content": "hello"}]
    path.write_text(json.dumps({"input": chat, "ideal": "hello"}) + "\n")
    with pytest.raises(CaseFileError, match=r"input\[1\]: unknown role 'bot'.*OpenAI evals"):
        load_cases(path)


def test_langsmith_examples_and_runs() -> None:
    cases = by_question("langsmith.jsonl")
    example = cases["Where is my order ORD-101?"]
    # A dataset's example: its outputs are the reference, there is no answer yet.
    assert (example.answer, example.golden_answer) == (None, "ORD-101 has been shipped.")
    assert example.id == "5c0f1d2e-6b1a-4c55-9d0e-2f1b7a3c9e10"
    assert example.metadata["dataset_id"].startswith("d1e2f3a4")
    run = cases["Can I return a used item?"]
    assert run.answer == "Yes, within 30 days of delivery."
    assert run.golden_answer == "Used items can be returned within 30 days."
    assert run.metadata["inputs"]["customer"] == "c-42"
    chat = cases["Is ORD-102 delivered?"]
    # inputs.messages is the conversation; of the outputs' messages, the assistant's is the answer.
    assert [t.role for t in chat.turns] == ["system", "user"]
    assert chat.answer == "Yes, on Monday."
    assert chat.metadata["inputs"] == {"customer": "c-7"}


def test_braintrust_records() -> None:
    cases = {case.id: case for case in load_cases(SHAPES / "braintrust.jsonl")}
    first = cases["bt-1"]
    assert (first.question, first.answer, first.golden_answer) == (
        "Where is my order ORD-101?",
        "ORD-101 shipped yesterday.",
        "ORD-101 has been shipped.",
    )
    assert first.metadata["tags"] == ["smoke"]
    assert first.metadata["category"] == "tool"
    assert cases["bt-2"].golden_answer == "Within 30 days."


def test_deepeval_test_cases() -> None:
    status, booking = load_cases(SHAPES / "deepeval.json")
    assert status.answer == "ORD-101 has shipped."
    assert status.trace.context == ("Orders ship within 2 days.",)
    # Beside the retrieval context, DeepEval's context is the ideal one, not evidence.
    assert status.metadata["context"] == ["ORD-101 left the warehouse on Monday."]
    assert status.trace.tool_calls[0].arguments == {"order": "ORD-101"}
    assert (status.expected_tool, status.expected_tool_argument) == (
        "getOrderStatus",
        {"order": "ORD-101"},
    )
    assert booking.answer == "Your return is booked."
    assert booking.expected_tool_order == ("checkEligibility", "bookReturn")


def test_ragas_columns_with_pandas_lists() -> None:
    cases = by_question("ragas.csv")
    status = cases["Where is my order ORD-101?"]
    assert status.trace.context == ("Orders ship within 2 days.", "ORD-101: shipped Monday.")
    assert status.golden_answer == "ORD-101 has been shipped."
    assert cases["Can I return a used item?"].trace.context == ("Returns: 30 days.",)


def test_promptfoo_tests_with_their_default_test() -> None:
    cases = by_question("promptfooconfig.yaml")
    status = cases["Where is my order ORD-101?"]
    assert status.golden_answer == "ORD-101 has been shipped."
    assert status.expected_behaviour == "Answers politely and names the order"
    assert status.metadata["description"] == "order status"
    refund = cases["Is a refund possible?"]
    # YAML 1.2: "no" is text, not false.
    assert refund.answer == "no"
    assert refund.metadata["category"] == "policy"


def test_promptfoo_csv_tests() -> None:
    cases = by_question("promptfoo.csv")
    assert cases["Where is my order ORD-101?"].golden_answer == "ORD-101 has been shipped."
    assert cases["Can I return a used item?"].expected_behaviour == "says the 30-day window"


def test_the_shape_read_is_said(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "run"
    argv = ["run", str(SHAPES / "braintrust.jsonl"), "--out", str(out), "--progress", "none"]
    assert main(argv) in (0, 1)
    assert "read 2 of 2 as Braintrust records" in capsys.readouterr().err


def test_yaml_and_json_refuse_a_key_given_twice(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("- id: a\n  answer: x\n  answer: y\n")
    with pytest.raises(CaseFileError, match='line 3: not valid YAML: found duplicate key "answer"'):
        load_cases(tmp_path / "a.yaml")
    (tmp_path / "a.json").write_text('[\n {"id": "a",\n  "id": "b"}\n]')
    with pytest.raises(CaseFileError, match='line 3: the key "id" is given twice in one object'):
        load_cases(tmp_path / "a.json")
