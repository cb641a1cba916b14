"""`jury run --agent` on cases with images: a model agent is sent them (and a rerun pays for
no answer twice), a model that takes none is refused at load before any call, an endpoint
whose body template places none is warned about, and a request the provider refuses fails
its case at the stage "agent"."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from images_helpers import BMP, PNG_URI

from jury.cli import main
from served import ServerThread

AGENT_MODEL = "gpt-5.4-mini-2026-03-17"
#: The offline juror cannot see the image: that case is left undecided and the gate does not
#: pass (the exit of a gate not met); the plain case passes.
NOT_PASSED = 1
CASES: list[dict[str, Any]] = [
    {
        "id": "cat",
        "golden_answer": "A cat.",
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What animal is this?"},
                    {"type": "image_url", "image_url": {"url": PNG_URI}},
                ],
            }
        ],
    },
    {"id": "plain", "question": "What is 2 + 2?", "golden_answer": "4"},
]


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[ServerThread]:
    thread = ServerThread()
    thread.server.script(AGENT_MODEL, {"answer": "A cat."})
    for name, value in thread.server.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JURY_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in CASES))
    (tmp_path / "jury.toml").write_text('jurors = ["offline/reference"]\n')
    yield thread
    thread.stop()


def _asked(served: ServerThread, model: str = AGENT_MODEL) -> list[str]:
    return [json.dumps(r.body) for r in served.requests if r.model == model]


def test_a_model_agent_is_sent_the_image_and_a_rerun_pays_for_it_once(
    served: ServerThread, tmp_path: Path
) -> None:
    argv = ["run", "cases.jsonl", "--jury", "jury.toml", "--agent", f"openai/{AGENT_MODEL}"]
    assert main([*argv, "--out", "run"]) == NOT_PASSED
    asked = _asked(served)
    assert len(asked) == 2
    assert sum(PNG_URI in body for body in asked) == 1  # the image case's request carries it
    lines = (tmp_path / "run/cases.jsonl").read_text().splitlines()
    recorded = {case["id"]: case for case in map(json.loads, lines)}
    assert len(lines) == len(recorded) == 2  # each answered case recorded once
    assert recorded["cat"]["answer"] == "A cat."
    # The record keeps the image with the answered case: judging it again sees what it saw.
    assert recorded["cat"]["images"][0]["data"] == PNG_URI.split(",", 1)[1]
    assert main([*argv, "--out", "again"]) == NOT_PASSED
    assert len(_asked(served)) == 2  # served from the cache, images and all


def test_a_model_agent_that_takes_no_images_is_refused_at_load_naming_it_and_the_cases(
    served: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    # Retired, but still the plainest text-only model: the rule is what is tested.
    spec = "openai/gpt-3.5-turbo-0125"
    (Path("jury.toml")).write_text('jurors = ["offline/reference"]\nallow_retired = true\n')
    argv = ["run", "cases.jsonl", "--jury", "jury.toml", "--agent", spec, "--out", "run"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"the agent {spec} cannot be sent images" in err
    assert "gpt-3.5-turbo-0125 takes text only" in err
    assert "1 case has images (cat)" in err
    assert "Traceback" not in err
    assert served.requests == []  # nothing asked, nothing paid


def test_a_text_only_model_agent_runs_when_the_cases_taken_have_no_images(
    served: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = "openai/gpt-3.5-turbo-0125"
    served.server.script("gpt-3.5-turbo-0125", {"answer": "4"})
    (Path("jury.toml")).write_text('jurors = ["offline/reference"]\nallow_retired = true\n')
    argv = ["run", "cases.jsonl", "--jury", "jury.toml", "--agent", spec, "--out", "run"]
    assert main([*argv, "--ids", "plain"]) == 0  # the image case is not taken
    assert "cannot be sent images" not in capsys.readouterr().err
    assert len(served.requests) == 1


def test_agent_images_true_lets_a_compatible_servers_model_answer_the_image_case(
    served: ServerThread, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACME_BASE_URL", served.server.openai_base_url)
    monkeypatch.setenv("ACME_API_KEY", "sk-acme")
    vision = "qwen2.5-vl-7b-instruct"
    served.server.script(vision, {"answer": "A cat."})
    argv = ["run", "cases.jsonl", "--jury", "jury.toml", "--agent", f"openai-api/acme/{vision}"]
    assert main([*argv, "--out", "refused"]) == 2
    Path("jury.toml").write_text('jurors = ["offline/reference"]\nagent_images = true\n')
    assert main([*argv, "--out", "run"]) == NOT_PASSED
    assert sum(PNG_URI in body for body in _asked(served, vision)) == 1


def test_a_request_the_provider_refuses_for_its_image_fails_that_case_at_the_agent_stage(
    served: ServerThread, tmp_path: Path
) -> None:
    bitmap: dict[str, Any] = {**CASES[0], "id": "bmp"}
    bitmap["messages"] = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What animal is this?"},
                {"type": "image_url", "image_url": {"url": f"data:image/bmp;base64,{BMP}"}},
            ],
        }
    ]
    (tmp_path / "cases.jsonl").write_text(json.dumps(bitmap) + "\n" + json.dumps(CASES[1]) + "\n")
    argv = ["run", "cases.jsonl", "--jury", "jury.toml", "--agent", f"openai/{AGENT_MODEL}"]
    assert main([*argv, "--out", "run"]) == 1
    verdicts = {
        v["case_id"]: v
        for v in map(json.loads, (tmp_path / "run/verdicts.jsonl").read_text().splitlines())
    }
    assert verdicts["bmp"]["verdict"] == "FAIL"
    assert verdicts["bmp"]["checks"][0]["stage"] == "agent"
    assert "unsupported image" in verdicts["bmp"]["checks"][0]["reason"]
    assert verdicts["plain"]["checks"][0]["stage"] != "agent"


def test_an_endpoint_whose_body_template_places_no_images_is_warned_about(
    served: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("jury.toml").write_text(
        'jurors = ["offline/reference"]\nagent = "http://127.0.0.1:9/ask"\n'
        'agent_body = {q = "{{question}}"}\n'
    )
    # Nobody listens on port 9: the run stops as unreachable, after its load-time warnings.
    assert main(["run", "cases.jsonl", "--jury", "jury.toml", "--out", "run"]) == 2
    err = capsys.readouterr().err
    assert "warning: the agent http://127.0.0.1:9/ask is sent no images" in err
    assert "its agent_body places no {{images}}" in err
    assert "1 case has images (cat)" in err
