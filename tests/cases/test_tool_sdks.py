"""Files written by other tools' own code (their SDKs, offline), read as those tools mean them.

Braintrust's rows come from its own logger (the in-memory background logger its SDK's test
helpers use in place of the service), LangSmith's examples from its SDK's own `Example`
schema: what a user's export holds, key for key, with no hand-written record in between.
The SDKs are in the `tool-files` extra (part of `dev`)."""

from __future__ import annotations

import datetime
import json
import uuid
from pathlib import Path

from jury.cases import CaseSource


def _written(path: Path, records: list[dict[str, object]]) -> Path:
    # Each tool's rows, one JSON object a line, as a user saves an export.
    path.write_text("".join(json.dumps(r, default=str) + "\n" for r in records), "utf-8")
    return path


def _braintrust_rows() -> list[dict[str, object]]:
    from braintrust import logger
    from braintrust.test_helpers import init_test_logger

    with logger._internal_with_memory_background_logger() as memory:
        project = init_test_logger("jury-corpus")
        project.log(
            input={"question": "What is the capital of France?"},
            output="Paris",
            expected="Paris",
            scores={"exact": 1.0},
            metadata={"split": "dev"},
            tags=["geo"],
        )
        project.log(
            input={"messages": [{"role": "user", "content": "Say hi"}]},
            output={"text": "hi", "tokens": 1},
            scores={"exact": 0.0},
        )
        rows: list[dict[str, object]] = memory.pop()
    logger._state.reset_parent_state()  # type: ignore[no-untyped-call]
    return rows


def test_braintrust_logged_rows_keep_their_own_keys_in_metadata(tmp_path: Path) -> None:
    rows = _braintrust_rows()
    source = CaseSource(_written(tmp_path / "logs.jsonl", rows))
    source.validate()
    first, second = list(source)
    assert (first.id, first.question) == (rows[0]["id"], "What is the capital of France?")
    assert (first.answer, first.golden_answer) == ("Paris", "Paris")
    # The row's own keys are metadata: its span, its timings, and `context`, which is the
    # caller's source location (not retrieval context: the trace has none).
    for key in ("span_id", "root_span_id", "created", "metrics", "span_attributes", "context"):
        assert first.metadata[key] == json.loads(json.dumps(rows[0][key], default=str)), key
    assert first.trace.context == ()
    assert (first.metadata["split"], first.metadata["tags"]) == ("dev", ["geo"])
    assert first.metadata["scores"] == {"exact": 1.0}
    # A chat input of one message is its text; an object output is reduced to its text, and
    # kept whole in metadata.
    assert (second.question, second.answer, second.golden_answer) == ("Say hi", "hi", None)
    assert second.metadata["output"] == {"text": "hi", "tokens": 1}
    assert f"{tmp_path / 'logs.jsonl'}: read 2 of 2 as Braintrust records" in source.notices


def _langsmith_examples() -> list[dict[str, object]]:
    from langsmith import schemas

    dataset = uuid.UUID(int=1)
    created = datetime.datetime(2026, 3, 1, 12, 0, tzinfo=datetime.UTC)
    chat = {
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello! How can I help?"},
            {"role": "user", "content": "What is 2+2?"},
        ]
    }
    examples = [
        schemas.Example(
            id=uuid.UUID(int=10),
            dataset_id=dataset,
            created_at=created,
            inputs=chat,
            outputs={"answer": "4"},
            metadata={"dataset_split": ["base"]},
        ),
        schemas.Example(
            id=uuid.UUID(int=11),
            dataset_id=dataset,
            created_at=created,
            inputs={"question": "Capital of France?", "language": "en"},
            outputs={"answer": "Paris"},
        ),
    ]
    return [example.model_dump(mode="json") for example in examples]


def test_langsmith_dataset_examples_load_with_the_outputs_as_reference(tmp_path: Path) -> None:
    records = _langsmith_examples()
    source = CaseSource(_written(tmp_path / "examples.jsonl", records))
    source.validate()
    chat, plain = list(source)
    assert chat.id == str(uuid.UUID(int=10))
    assert [(t.role, t.content) for t in chat.turns] == [
        ("user", "Hi"),
        ("assistant", "Hello! How can I help?"),
        ("user", "What is 2+2?"),
    ]
    # A dataset's example has no run: its outputs are the reference, not an answer.
    assert (chat.answer, chat.golden_answer) == (None, "4")
    assert chat.metadata["dataset_split"] == ["base"]
    assert chat.metadata["dataset_id"] == str(uuid.UUID(int=1))
    assert chat.metadata["created_at"] == records[0]["created_at"]
    assert (plain.question, plain.golden_answer) == ("Capital of France?", "Paris")
    # The other input is kept (in metadata), not dropped with the question taken out.
    assert plain.metadata["inputs"] == {"question": "Capital of France?", "language": "en"}
    assert f"{tmp_path / 'examples.jsonl'}: read 2 of 2 as LangSmith examples" in source.notices
