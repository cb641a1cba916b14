"""MLflow's evaluation data as MLflow's own code writes it, read as cases field by field.

The files are produced in the test by MLflow (mlflow-skinny, in the `tool-files` extra) in a
fresh interpreter with a local file store under tmp_path: ``mlflow.log_table`` artifacts (the
``{"columns", "data"}`` JSON of ``mlflow.genai.evaluate`` rows and of an older
``mlflow.evaluate`` table), and an evaluation dataset's records, written by its ``to_df()``
(pandas' JSON Lines and CSV) and by ``DatasetRecord.to_dict``. The rows are told from
Braintrust's (``input``, ``output``, ``expected``) and LangSmith's by their own keys.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from extras import needs

from jury import Case
from jury.cases import CaseSource

ROWS = [
    {
        "inputs": {"question": "What is MLflow?"},
        "outputs": "An open source platform.",
        "expectations": {
            "expected_response": "An open source ML platform.",
            "expected_facts": ["open source", "manages the ML lifecycle"],
            "guidelines": ["Answer in one sentence."],
            "tone": "neutral",
        },
        "tags": {"topic": "product"},
    },
    {
        "inputs": {
            "messages": [
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello!"},
                {"role": "user", "content": "Capital of France?"},
            ]
        },
        "outputs": {"response": "Paris"},
        "expectations": {"expected_response": "Paris"},
    },
]

MLFLOW = textwrap.dedent(
    """
    import json, pathlib, sys
    import mlflow
    import pandas as pd
    from mlflow.entities import DatasetRecord, DatasetRecordSource, EvaluationDataset

    out = pathlib.Path(sys.argv[1])
    rows = json.loads(sys.argv[2])
    mlflow.set_tracking_uri((out / "mlruns").as_uri())
    with mlflow.start_run() as run:
        mlflow.log_table(data=pd.DataFrame(rows), artifact_file="genai_rows.json")
        old = {"inputs": ["What is 2+2?", "What is 3+3?"], "outputs": ["4", "5"],
               "expected": ["4", "6"]}
        mlflow.log_table(data=old, artifact_file="old_table.json")
    for name in ("genai_rows.json", "old_table.json"):  # the artifacts as MLflow stored them
        mlflow.artifacts.download_artifacts(
            run_id=run.info.run_id, artifact_path=name, dst_path=str(out)
        )
    # An evaluation dataset's records. The store that keeps them needs SQLAlchemy, which
    # mlflow-skinny has not; the records are MLflow's own entities, to_df and to_dict its code.
    dataset = EvaluationDataset(
        dataset_id="d-1", name="qa", digest="x", created_time=1, last_update_time=2
    )
    dataset._records = [
        DatasetRecord(
            dataset_id="d-1", dataset_record_id=f"r-{n}", created_time=1700000000000 + n,
            last_update_time=1700000000000 + n, inputs=row["inputs"],
            outputs=row.get("outputs"), expectations=row["expectations"], tags=row.get("tags"),
            source=DatasetRecordSource(source_type="HUMAN", source_data={"user_id": "ann"}),
        )
        for n, row in enumerate(rows, start=1)
    ]
    frame = dataset.to_df()
    frame.to_json(out / "dataset.jsonl", orient="records", lines=True)
    frame.to_csv(out / "dataset.csv", index=False)
    (out / "records.json").write_text(json.dumps([r.to_dict() for r in dataset.records]))
    """
)


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mlflow")
    done = subprocess.run(
        [sys.executable, "-c", MLFLOW, str(out), json.dumps(ROWS)],
        check=False,
        cwd=out,
        # The filesystem store is in maintenance mode, refused unless allowed (MLflow's own
        # message); the test needs no database.
        env={**os.environ, "MLFLOW_ALLOW_FILE_STORE": "true"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def read(path: Path) -> tuple[list[Case], list[str]]:
    source = CaseSource(path)
    source.validate()
    return list(source), source.notices


def said(case: Case) -> list[tuple[str, str | None]]:
    return [(t.role, t.content) for t in case.turns]


@needs("tool-files")
def test_genai_evaluate_rows_logged_by_log_table_load_field_by_field(written: Path) -> None:
    path = written / "genai_rows.json"
    assert json.loads(path.read_text())["columns"] == ["inputs", "outputs", "expectations", "tags"]
    (first, second), notices = read(path)
    assert first.question == "What is MLflow?"
    assert first.answer == "An open source platform."
    assert first.golden_answer == "An open source ML platform."
    # Each expected fact is a point the answer must make; the guidelines are the behaviour.
    assert [(p.id, p.says, p.need) for p in first.points] == [
        ("fact-1", "open source", "must"),
        ("fact-2", "manages the ML lifecycle", "must"),
    ]
    assert first.expected_behaviour == "- Answer in one sentence."
    # The user's own expectation and the tags are kept, and said to be.
    assert first.metadata == {"expectations": {"tone": "neutral"}, "tags": {"topic": "product"}}
    # The chat input is the conversation, ending with the user; a table output's one text is
    # the answer to it.
    assert said(second) == [("user", "Hi"), ("assistant", "Hello!"), ("user", "Capital of France?")]
    assert (second.answer, second.golden_answer) == ("Paris", "Paris")
    assert second.metadata == {}  # the null tags cell of a row without tags is no value
    assert f"{path}: read 2 of 2 as MLflow evaluation rows" in notices
    assert (
        f"{path}: kept in metadata (the judges do not see it) on 1 of 2 items: "
        "tags, expectations.tone"
    ) in notices


@needs("tool-files")
def test_an_mlflow_evaluate_table_of_inputs_outputs_and_expected_has_answers_and_goldens(
    written: Path,
) -> None:
    # The audit's file: read as Braintrust's, its cases had no answer.
    path = written / "old_table.json"
    cases, notices = read(path)
    assert [(c.question, c.answer, c.golden_answer) for c in cases] == [
        ("What is 2+2?", "4", "4"),
        ("What is 3+3?", "5", "6"),
    ]
    assert all(c.metadata == {} for c in cases)
    assert f"{path}: read 2 of 2 as MLflow evaluation rows" in notices


@needs("tool-files")
@pytest.mark.parametrize("name", ["dataset.jsonl", "dataset.csv", "records.json"])
def test_an_evaluation_datasets_records_load_with_their_ids_and_expectations(
    written: Path, name: str
) -> None:
    path = written / name
    (first, second), notices = read(path)
    # The record's ID is the case's (and kept with the dataset's own fields).
    assert (first.id, second.id) == ("r-1", "r-2")
    assert (first.question, first.answer, first.golden_answer) == (
        "What is MLflow?",
        "An open source platform.",
        "An open source ML platform.",
    )
    assert [p.says for p in first.points] == ["open source", "manages the ML lifecycle"]
    assert first.expected_behaviour == "- Answer in one sentence."
    assert said(second)[-1] == ("user", "Capital of France?")
    assert (second.answer, second.golden_answer) == ("Paris", "Paris")
    for case, number in ((first, 1), (second, 2)):
        assert case.metadata["dataset_record_id"] == f"r-{number}"
        assert case.metadata["source_type"] == "HUMAN"
        assert str(case.metadata["created_time"]) == str(1700000000000 + number)
    assert first.metadata["expectations"] == {"tone": "neutral"}
    assert first.metadata["tags"] == {"topic": "product"}
    if name != "dataset.csv":  # pandas writes the source object's repr in CSV: kept as text
        assert first.metadata["source"]["source_data"] == {"user_id": "ann"}
    else:
        assert "user_id" in first.metadata["source"]
    assert f"{path}: read 2 of 2 as MLflow evaluation rows" in notices
    kept = [n for n in notices if "kept in metadata" in n and "1 of 2" in n]
    assert any("dataset_record_id" in n and "expectations.tone" in n for n in kept), notices


def write(tmp_path: Path, *records: dict[str, Any]) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("record", "shape"),
    [
        ({"input": "What is 2+2?", "output": "4", "expected": "4"}, "Braintrust records"),
        ({"inputs": "What is 2+2?", "outputs": "4", "expected": "4"}, "MLflow evaluation rows"),
        ({"inputs": {"q": "What is 2+2?"}, "outputs": "4"}, "MLflow evaluation rows"),
        (
            {"inputs": "What is 2+2?", "predictions": "4", "ground_truth": "4"},
            "MLflow evaluation rows",
        ),
    ],
)
def test_braintrust_and_mlflow_rows_are_told_apart_by_their_keys(
    tmp_path: Path, record: dict[str, Any], shape: str
) -> None:
    path = write(tmp_path, record)
    (case,), notices = read(path)
    assert case.question == "What is 2+2?"
    assert case.answer == "4"
    assert case.golden_answer == ("4" if len(record) == 3 else None)
    assert f"{path}: read 1 of 1 as {shape}" in notices


def test_an_answer_that_is_json_text_stays_the_text_the_app_returned(tmp_path: Path) -> None:
    # A JSON-mode app answers JSON as text: the judges read all of it, as it was returned.
    answer = '{"answer": "Paris", "source": "atlas.pdf p.3"}'
    question = "Give the answer and its source as JSON"
    path = write(tmp_path, {"inputs": question, "outputs": answer, "expected": answer})
    (case,), _ = read(path)
    assert (case.question, case.answer, case.golden_answer) == (question, answer, answer)
    assert "outputs" not in case.metadata


def test_a_langsmith_example_whose_outputs_are_a_table_stays_langsmiths(tmp_path: Path) -> None:
    # A LangSmith dataset's example: its outputs are the reference, not an answer.
    path = write(tmp_path, {"inputs": {"question": "Where?"}, "outputs": {"answer": "Here."}})
    (case,), notices = read(path)
    assert (case.question, case.answer, case.golden_answer) == ("Where?", None, "Here.")
    assert f"{path}: read 1 of 1 as LangSmith examples" in notices


def test_a_genai_row_of_a_trace_is_its_conversation_and_the_rows_expectations_win(
    tmp_path: Path,
) -> None:
    traces = Path(__file__).parents[1] / "data" / "traces"
    trace = (traces / "mlflow_trace.json").read_text("utf-8")
    info = json.loads(trace)["info"]
    expectations = {"expected_response": "Shipped.", "guidelines": "Name the carrier."}
    path = write(tmp_path, {"trace": trace, "expectations": expectations})
    (case,), notices = read(path)
    assert case.id == info["trace_id"]
    assert ("user", "Where is my order ORD-101?") in said(case)
    assert said(case)[-1] == ("assistant", "ORD-101 has shipped with ParcelCo.")
    assert case.golden_answer == "Shipped."  # the row's, over the trace's own expectation
    assert case.expected_behaviour == "Name the carrier."
    assert case.metadata["trace"]["trace_id"] == info["trace_id"]
    assert f"{path}: read 1 of 1 as MLflow evaluation rows" in notices


def test_a_row_with_inputs_keeps_its_mlflow_trace_and_its_own_trace_fields_stay_the_cases(
    tmp_path: Path,
) -> None:
    traces = Path(__file__).parents[1] / "data" / "traces"
    trace = json.loads((traces / "mlflow_trace.json").read_text("utf-8"))
    own = {"retrieved_sources": ["shipping.md"], "tool_calls": [{"name": "getOrder"}]}
    path = write(
        tmp_path,
        {"id": "a", "inputs": "Where?", "outputs": "Here.", "trace": trace, "expected": "Here."},
        {"id": "b", "inputs": "Where?", "outputs": "Here.", "trace": own, "expected": "Here."},
    )
    (first, second), notices = read(path)
    assert first.metadata == {"trace": trace}
    assert (first.question, first.answer, first.turns) == ("Where?", "Here.", ())
    assert second.trace.retrieved_sources == ("shipping.md",)
    assert second.trace.tool_names == ("getOrder",)
    assert second.metadata == {}
    assert f"{path}: kept in metadata (the judges do not see it) on 1 of 2 lines: trace" in notices
