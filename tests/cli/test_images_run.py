"""Acceptance: `jury run` of a case file whose cases have images, against the strict fake. The
jurors whose models take images are sent them in their protocols' shapes; the one that takes
none is named at load, abstains saying why, and is sent nothing; the card shows the images; a
changed image is a new call, the same image a cached one."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from images_helpers import JPEG, PNG, PNG_URI, URL

from jury.cli import main
from served import ServerThread, judge

CLAUDE, GPT, GEMINI, LLAMA = (
    "claude-haiku-4-5-20251001",
    "gpt-4.1-mini-2025-04-14",
    "gemini-2.5-flash",
    "llama3.1:8b",
)
JURY = f"""\
rubric = "five-metric"
quorum = 2

[retry]
second_chance = false

[[jurors]]
model = "anthropic/{CLAUDE}"

[[jurors]]
model = "openai/{GPT}"

[[jurors]]
model = "google/{GEMINI}"

[[jurors]]
model = "ollama/{LLAMA}"
"""


def _cases(image: str = PNG_URI) -> str:
    asked = [{"type": "text", "text": "What animal is this?"}, {"type": "image", "image": image}]
    described = [
        {"type": "text", "text": "Is this the same cat?"},
        {"type": "image_url", "image_url": {"url": URL}},
    ]
    records: list[dict[str, Any]] = [
        # Inspect: the question's image is a data URI.
        {
            "id": "inspect-cat",
            "input": [{"role": "user", "content": asked}],
            "target": "A cat.",
            "metadata": {"answer": "A cat."},
        },
        # OpenAI chat: the image is a URL, in the conversation's turns.
        {
            "id": "chat-cat",
            "turns": [
                {"role": "user", "content": described},
                {"role": "assistant", "content": "Yes, the same tabby cat."},
            ],
        },
        {"id": "plain", "question": "What is 2+2?", "answer": "4", "golden_answer": "4"},
    ]
    records[0]["answer"] = records[0].pop("metadata")["answer"]
    return "".join(json.dumps(r) + "\n" for r in records)


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[ServerThread]:
    thread = ServerThread()
    for model in (GEMINI, LLAMA):
        thread.server.script(model, judge)
    for name, value in thread.server.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("OLLAMA_BASE_URL", thread.server.openai_base_url)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JURY_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "cases.jsonl").write_text(_cases(), encoding="utf-8")
    (tmp_path / "jury.toml").write_text(JURY, encoding="utf-8")
    yield thread
    thread.stop()


def _image_parts(body: dict[str, Any], model: str) -> list[Any]:
    """The image parts of a request body, in its protocol's own shape."""
    if model == GEMINI:
        parts = [p for c in body["contents"] for p in c["parts"]]
        return [p for p in parts if "inlineData" in p or "fileData" in p]
    blocks = [b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]]
    return [b for b in blocks if b.get("type") in ("image", "image_url")]


def test_a_run_sends_the_images_to_the_jurors_that_take_them_and_says_who_cannot(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", "cases.jsonl", "--jury", "jury.toml", "--out", "run", "--progress", "none"])
    err = capsys.readouterr().err
    assert code in (0, 1), err
    # At load: the cases with images, and the juror that cannot see them.
    assert "jury: note: cases.jsonl: 2 cases have images: lines 1, 2" in err
    assert (
        "jury: warning: 2 cases have images (inspect-cat, chat-cat) that 1 juror(s) cannot see: "
        f"ollama/{LLAMA} (an OpenAI-compatible server's model is taken to read text only (set "
        "images = true on the juror when it takes images)); they abstain on those cases"
    ) in err

    by_model: dict[str, list[Any]] = {}
    for request in served.requests:
        by_model.setdefault(request.model, []).append(request)
    # Each image-taking juror was asked three times (one case each), and sent the images.
    for model in (CLAUDE, GPT, GEMINI):
        sent = [_image_parts(r.body, model) for r in by_model[model]]
        assert sorted(len(parts) for parts in sent) == [0, 1, 1], model
        assert all(r.status == 200 for r in by_model[model])
    claude = [p for r in by_model[CLAUDE] for p in _image_parts(r.body, CLAUDE)]
    assert {"type": "base64", "media_type": "image/png", "data": PNG} in [
        p["source"] for p in claude
    ]
    assert {"type": "url", "url": URL} in [p["source"] for p in claude]
    gpt = [p["image_url"]["url"] for r in by_model[GPT] for p in _image_parts(r.body, GPT)]
    assert sorted(gpt) == sorted([PNG_URI, URL])
    # The text-only juror was asked only the case without images.
    assert len(by_model[LLAMA]) == 1
    assert _image_parts(by_model[LLAMA][0].body, LLAMA) == []

    verdicts = {
        v["case_id"]: v
        for v in map(json.loads, (tmp_path / "run" / "verdicts.jsonl").read_text().splitlines())
    }
    for case_id in ("inspect-cat", "chat-cat"):
        votes = {vote["juror"]: vote for vote in verdicts[case_id]["votes"]}
        blind = votes[f"ollama/{LLAMA}"]
        assert blind["status"] == "abstained"
        assert blind["reason"].startswith("not judged: the case has 1 image(s) and ")
        assert all(votes[j]["status"] == "valid" for j in votes if j != f"ollama/{LLAMA}")
        assert verdicts[case_id]["verdict"] in ("PASS", "FAIL")
    assert verdicts["plain"]["votes"][3]["status"] == "valid"

    assert main(["report", "run", "--html", "report.html"]) == 0
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert f'<img class="thumb" src="{PNG_URI}" alt="image 1">' in page
    assert f"image 1: {URL}" in page


def test_the_same_image_is_served_from_the_cache_and_a_changed_one_is_asked_again(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["run", "cases.jsonl", "--jury", "jury.toml", "--progress", "none"]
    main([*args, "--out", "first"])
    asked = len(served.requests)
    main([*args, "--out", "again"])
    assert len(served.requests) == asked  # the same bytes: every reply from the cache
    (tmp_path / "cases.jsonl").write_text(
        _cases(f"data:image/jpeg;base64,{JPEG}"), encoding="utf-8"
    )
    main([*args, "--out", "changed"])
    new = served.requests[asked:]
    # Only the case whose image changed is asked again, by the three jurors that see it.
    assert sorted(r.model for r in new) == sorted([CLAUDE, GPT, GEMINI])
    capsys.readouterr()
