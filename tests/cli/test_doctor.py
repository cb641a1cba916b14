"""`jury doctor`: one small live call per juror against the strict fake server, reporting what
served it and how; exit 2 naming the first juror that cannot serve."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from jury.cli import main
from jury.testing import Fault
from served import ServerThread

JURORS = (
    "anthropic/claude-haiku-5-5",
    "openai/gpt-5.4-mini-2026-03-17",
    "google/gemini-3.5-flash-lite",
)


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[ServerThread]:
    thread = ServerThread(rpm={"openai": 500, "anthropic": 50})
    for name, value in thread.server.env().items():
        monkeypatch.setenv(name, value)
    try:
        yield thread
    finally:
        thread.stop()


def jury_file(tmp_path: Path, *jurors: str, extra: str = "") -> str:
    path = tmp_path / "jury.toml"
    listed = ", ".join(f'"{juror}"' for juror in jurors)
    path.write_text(f"jurors = [{listed}]\n{extra}", encoding="utf-8")
    return str(path)


def test_each_juror_is_called_once_and_reported(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["doctor", "--jury", jury_file(tmp_path, *JURORS)]) == 0
    out = capsys.readouterr().out
    # One small call each, nothing else.
    assert sorted(r.model for r in served.requests) == sorted(j.split("/")[1] for j in JURORS)
    # The fake says what it is, as a run's every output does: never passed off as the provider.
    assert "3 of 3 jurors ready; 3 answered by jury.testing's FAKE server, not the provider" in out
    for juror in JURORS:
        assert f"juror {juror}" in out
    assert (
        "served by      FAKE: jury.testing's server, not the provider "
        "(as gpt-5.4-mini-2026-03-17)" in out
    )
    assert out.count("price per call $0 (a FAKE reply; the provider's price: $") == 3
    assert out.count("structured     yes") == 3
    assert "tokens" in out
    assert "latency" in out
    # The rate-limit headers each provider sent (Gemini sends none).
    assert "x-ratelimit-limit-requests=500" in out
    assert "anthropic-ratelimit-requests-limit=50" in out
    assert "no rate-limit header" in out
    assert "claude-haiku-5-5 is current (no retirement announced" in out


def test_a_server_that_is_not_the_fake_is_reported_as_what_it_serves(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The same server without the fake's header stands for a real provider: no FAKE label.
    thread = ServerThread(mark=False)
    for name, value in thread.server.env().items():
        monkeypatch.setenv(name, value)
    try:
        assert main(["doctor", "--jury", jury_file(tmp_path, JURORS[1])]) == 0
    finally:
        thread.stop()
    out = capsys.readouterr().out
    assert "served by      gpt-5.4-mini-2026-03-17\n" in out
    assert "FAKE" not in out
    assert "1 of 1 juror ready\n" in out
    assert "price per call $0.0" in out


def test_a_rejected_key_exits_2_naming_the_juror(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    served.server.inject(Fault.http(401, message="invalid x-api-key"), model="claude-haiku-5-5")
    assert main(["doctor", "--jury", jury_file(tmp_path, *JURORS)]) == 2
    captured = capsys.readouterr()
    assert "2 of 3 jurors ready" in captured.out
    assert "jury: doctor: anthropic/claude-haiku-5-5 cannot serve: AuthenticationError" in (
        captured.err
    )


def test_a_used_up_quota_and_a_missing_key_cannot_serve(
    served: ServerThread,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    served.server.inject(Fault.quota(), model="gpt-5.4-mini-2026-03-17")
    monkeypatch.delenv("GOOGLE_API_KEY")
    assert main(["doctor", "--jury", jury_file(tmp_path, *JURORS)]) == 2
    captured = capsys.readouterr()
    assert "QuotaExhaustedError: openai: HTTP 429 insufficient_quota" in captured.out
    assert "set GOOGLE_API_KEY or GEMINI_API_KEY" in captured.out
    # The first that cannot serve, in the panel's order.
    assert "jury: doctor: openai/gpt-5.4-mini-2026-03-17 cannot serve" in captured.err


def test_a_reply_that_ignores_the_schema_is_reported_but_serves(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    served.server.script("gemini-3.5-flash-lite", "Sure! I'm ready.")
    assert main(["doctor", "--jury", jury_file(tmp_path, JURORS[2])]) == 0
    out = capsys.readouterr().out
    assert "structured     no (" in out
    # Gemini's profile says its replies are held to the schema: this one was not.
    assert "the server ignored the schema it was sent (json_schema)" in out


def test_a_retired_model_cannot_serve_and_is_not_called(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = jury_file(tmp_path, "google/gemini-2.0-flash", JURORS[0])
    assert main(["doctor", "--jury", file]) == 2
    captured = capsys.readouterr()
    assert "gemini-2.0-flash was retired on 2026-06-01" in captured.err
    assert [r.model for r in served.requests] == ["claude-haiku-5-5"]


def test_the_offline_panel_needs_no_call(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert out.count("offline reference juror: no call needed") == 3
    assert "3 of 3 jurors ready" in out


def test_a_server_that_refuses_the_response_format_gets_the_fix_a_run_would_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # llama-cpp-python's server refuses a json_schema response format with an HTTP 500
    # (jury.testing._compatible): told to send one anyway, doctor says what to set, as the
    # stopped run does.
    thread = ServerThread(compatible="llama-cpp-python")
    try:
        for name, value in thread.server.env(service="local").items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("LOCAL_RESPONSE_FORMAT", "json_schema")
        assert main(["doctor", "--jury", jury_file(tmp_path, "openai-api/local/smollm2")]) == 2
    finally:
        thread.stop()
    captured = capsys.readouterr()
    assert "  fix            set LOCAL_RESPONSE_FORMAT=json_object+schema" in captured.out
    assert "fix: set LOCAL_RESPONSE_FORMAT=json_object+schema" in captured.err


def test_a_local_server_is_asked_what_it_is_and_doctor_shows_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    thread = ServerThread(compatible="llama-server", models=["smollm2"], slots=2)
    try:
        for name, value in thread.server.env(service="local").items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("LOCAL_RESPONSE_FORMAT", raising=False)
        jury = jury_file(tmp_path, "openai-api/local/smollm2", extra="timeout = 7\n")
        assert main(["doctor", "--jury", jury]) == 0
    finally:
        thread.stop()
    out = capsys.readouterr().out
    assert "  server         llama-server b6000-fake (found by GET /props); takes the schema" in out
    assert "2 slots; model file SmolLM2-135M-Instruct.Q4_1.gguf (98000000 bytes)" in out
    assert "  structured     yes" in out


def test_doctor_waits_as_long_as_the_jurys_own_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    thread = ServerThread(latency=1.5)
    try:
        for name, value in thread.server.env().items():
            monkeypatch.setenv(name, value)
        juror = "openai/gpt-5.4-mini-2026-03-17"
        assert main(["doctor", "--jury", jury_file(tmp_path, juror, extra="timeout = 1\n")]) == 2
        assert "no reply within 1s" in capsys.readouterr().out
        assert main(["doctor", "--jury", jury_file(tmp_path, juror, extra="timeout = 5\n")]) == 0
    finally:
        thread.stop()
