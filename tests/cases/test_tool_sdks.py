"""Files written by other tools' own code (their SDKs, offline), read as those tools mean them.

Braintrust's rows are what its own logger (its public `init_logger`) posts to a loopback fake
of Braintrust's HTTP API, LangSmith's examples from its SDK's own `Example`
schema: what a user's export holds, key for key, with no hand-written record in between.
The SDKs are in the `tool-files` extra (part of `dev`)."""

from __future__ import annotations

import datetime
import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from extras import needs

from jury.cases import CaseSource


def _written(path: Path, records: list[dict[str, object]]) -> Path:
    # Each tool's rows, one JSON object a line, as a user saves an export.
    path.write_text("".join(json.dumps(r, default=str) + "\n" for r in records), "utf-8")
    return path


class _BraintrustApi(BaseHTTPRequestHandler):
    """Braintrust's HTTP API as its SDK uses it to log, on 127.0.0.1, keeping what it posts.

    - ``POST /api/apikey/login`` (app URL) answers the organizations the key belongs to, each
      with the API URL to use (``braintrust/api/auth.py``, ``login``: it refuses a reply
      without ``org_info``);
    - ``POST /v1/project`` with ``name`` creates (or finds) a project and answers it, ``id``
      and ``name`` (https://www.braintrust.dev/docs/reference/api/Projects);
    - ``GET /version`` answers the API's limits (none here: the SDK's defaults apply);
    - ``POST /logs3`` takes ``{"rows": [...], "api_version": 2}`` (``logger.py``,
      ``construct_logs3_data``), the rows as they are stored.
    Every call must carry the key as a bearer token, as the API requires; anything else is a
    404, so a call the SDK makes that this does not know fails the test."""

    posted: list[dict[str, Any]]
    key = "bt-test-key-not-secret"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a library prints nothing."""

    def _reply(self, status: int, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _authorised(self) -> bool:
        if self.headers.get("authorization") == f"Bearer {self.key}":
            return True
        self._reply(401, {"error": "missing or invalid API key"})
        return False

    def do_GET(self) -> None:
        if self._authorised():
            self._reply(200, {}) if self.path == "/version" else self._reply(404, {})

    def do_POST(self) -> None:
        if not self._authorised():
            return
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length) or b"null")
        base = f"http://127.0.0.1:{self.server.server_port}"  # type: ignore[attr-defined]
        if self.path == "/api/apikey/login":
            org = {"id": "org-1", "name": "jury", "api_url": base, "proxy_url": base}
            self._reply(200, {"org_info": [org]})
        elif self.path == "/v1/project" and isinstance(body.get("name"), str):
            self._reply(200, {"id": "proj-1", "org_id": "org-1", "name": body["name"]})
        elif self.path == "/logs3" and isinstance(body.get("rows"), list):
            assert body.get("api_version") == 2, body
            self.posted.append(body)
            self._reply(200, {})
        else:
            self._reply(404, {"error": f"not found: {self.path}"})


def _braintrust_rows(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, object]]:
    import braintrust

    # The organization's API URL is the fake's, unless the environment overrides it.
    for name in ("BRAINTRUST_API_URL", "BRAINTRUST_PROXY_URL", "BRAINTRUST_APP_PUBLIC_URL"):
        monkeypatch.delenv(name, raising=False)
    posted: list[dict[str, Any]] = []
    handler = type("Api", (_BraintrustApi,), {"posted": posted})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        project = braintrust.init_logger(
            project="jury-corpus",
            api_key=_BraintrustApi.key,
            app_url=f"http://127.0.0.1:{server.server_port}",
            async_flush=False,
            set_current=False,
        )
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
        project.flush()
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
    return [row for body in posted for row in body["rows"]]


@needs("tool-files")
def test_braintrust_logged_rows_keep_their_own_keys_in_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = _braintrust_rows(monkeypatch)
    assert len(rows) == 2
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


@needs("tool-files")
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
