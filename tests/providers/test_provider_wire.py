"""The adapters' shared rules: retry-after, status classes, accounts, credentials, names,
transport choice, lazy imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from provider_helpers import ANTHROPIC, GOOGLE, OPENAI

from jury import (
    AuthenticationError,
    ConfigError,
    Jury,
    MissingCredentialError,
    ProviderError,
    load_panel,
)
from jury.adapters import InvalidRequestError, RateLimitedError, TransientError
from jury.adapters._registry import resolve_model
from jury.providers._wire import WireModel, error_for_status, parse_retry_after
from jury.testing import retry_after_date

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in (
        "JURY_TRANSPORT",
        "ANTHROPIC_BASE_URL",
        "OPENAI_BASE_URL",
        "GOOGLE_GEMINI_BASE_URL",
        "GEMINI_API_KEY",
        "GOOGLE_GENAI_USE_VERTEXAI",
        "OLLAMA_BASE_URL",
        "VLLM_BASE_URL",
    ):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "anthropic-key-0123456789")
    monkeypatch.setenv("OPENAI_API_KEY", "openai-key-0123456789")
    monkeypatch.setenv("GOOGLE_API_KEY", "google-key-0123456789")


def wire_model(spec: str) -> WireModel:
    model = resolve_model(spec)
    assert isinstance(model, WireModel)
    return model


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after-ms": "1500"}, 1.5),
        ({"retry-after": "12"}, 12.0),
        ({"retry-after": "0.5"}, 0.5),
        ({"retry-after": "3", "retry-after-ms": "2200"}, 2.2),
        ({"retry-after": "soon"}, None),
        ({}, None),
        (None, None),
    ],
)
def test_retry_after_in_milliseconds_or_seconds(
    headers: dict[str, str] | None, expected: float | None
) -> None:
    assert parse_retry_after(headers) == expected


def test_retry_after_as_an_http_date() -> None:
    delay = parse_retry_after({"retry-after": retry_after_date(90)})
    assert delay is not None
    assert 88 <= delay <= 91


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (400, InvalidRequestError),
        (404, InvalidRequestError),
        (422, InvalidRequestError),
        (401, AuthenticationError),
        (403, AuthenticationError),
        (408, TransientError),
        (409, TransientError),
        (429, RateLimitedError),
        (500, TransientError),
        (503, TransientError),
        (529, TransientError),
    ],
)
def test_statuses_map_to_the_error_tree(status: int, kind: type[Exception]) -> None:
    error = error_for_status(status, "m", headers={"retry-after": "4"}, variable="X_API_KEY")
    assert type(error) is kind
    assert isinstance(error, ProviderError)
    assert error.status == status
    if isinstance(error, RateLimitedError):
        assert error.retry_after == 4.0
    if isinstance(error, AuthenticationError):
        assert error.variable == "X_API_KEY"


def test_models_on_one_key_share_an_account_and_the_key_is_not_in_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    haiku, sonnet = wire_model(ANTHROPIC), wire_model("anthropic/claude-sonnet-4-6")
    assert haiku.account == sonnet.account
    assert "anthropic-key" not in haiku.account
    assert haiku.account != wire_model(OPENAI).account
    monkeypatch.setenv("ANTHROPIC_API_KEY", "another-key-0123456789")
    assert wire_model(ANTHROPIC).account != haiku.account
    monkeypatch.setenv("ANTHROPIC_API_KEY", "anthropic-key-0123456789")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
    assert wire_model(ANTHROPIC).account != haiku.account


def test_families_are_fixed_for_first_party_apis() -> None:
    assert [wire_model(s).family for s in (ANTHROPIC, OPENAI, GOOGLE)] == [
        "anthropic",
        "openai",
        "google",
    ]


def test_an_openai_compatible_service_reads_its_own_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(MissingCredentialError, match="TOGETHER_AI_BASE_URL"):
        resolve_model("openai-api/together-ai/meta-llama/Llama-3.3-70B")
    monkeypatch.setenv("TOGETHER_AI_BASE_URL", "http://127.0.0.1:1/v1")
    with pytest.raises(MissingCredentialError, match="TOGETHER_AI_API_KEY"):
        resolve_model("openai-api/together-ai/meta-llama/Llama-3.3-70B")
    monkeypatch.setenv("TOGETHER_AI_API_KEY", "together-key-0123456789")
    model = wire_model("openai-api/together-ai/meta-llama/Llama-3.3-70B")
    assert model.model == "meta-llama/Llama-3.3-70B"
    assert model.family == "meta"
    assert model.wire.url(model.model) == "http://127.0.0.1:1/v1/chat/completions"
    assert model.wire.key_variable == "TOGETHER_AI_API_KEY"
    with pytest.raises(ConfigError, match="openai-api/<service>/<model>"):
        resolve_model("openai-api/only-a-service")


def test_ollama_and_vllm_default_to_their_local_addresses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ollama, vllm = wire_model("ollama/qwen2.5:7b"), wire_model("vllm/mistral-7b-instruct")
    assert ollama.wire.url(ollama.model) == "http://localhost:11434/v1/chat/completions"
    assert vllm.wire.url(vllm.model) == "http://localhost:8000/v1/chat/completions"
    assert (ollama.family, vllm.family) == ("qwen", "mistral")
    monkeypatch.setenv("OLLAMA_BASE_URL", "http://127.0.0.1:5/v1")
    moved = wire_model("ollama/qwen2.5:7b")
    assert moved.wire.url(moved.model) == "http://127.0.0.1:5/v1/chat/completions"


def test_the_jury_file_sets_the_family_of_a_custom_model(tmp_path: Path) -> None:
    jury_file = tmp_path / "jury.toml"
    jury_file.write_text('[[juror]]\nmodel = "vllm/house-judge-v2"\nfamily = "meta"\n')
    jury = Jury(load_panel(jury_file))
    # The adapter cannot tell from the name; the seat takes the jury file's word.
    assert [m.family for m in jury.models] == ["unknown"]
    assert [seat.family for seat in jury._seats] == ["meta"]


def test_the_transport_is_direct_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    assert wire_model(OPENAI).transport.name == "direct"
    monkeypatch.setenv("JURY_TRANSPORT", "sdk")
    assert {wire_model(s).transport.name for s in (ANTHROPIC, OPENAI, GOOGLE)} == {"sdk"}
    monkeypatch.setenv("JURY_TRANSPORT", "carrier-pigeon")
    with pytest.raises(ConfigError, match="JURY_TRANSPORT"):
        resolve_model(OPENAI)


def test_vertex_settings_go_through_the_sdk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GOOGLE_API_KEY")
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
    monkeypatch.delenv("GOOGLE_CLOUD_PROJECT", raising=False)
    with pytest.raises(MissingCredentialError, match="GOOGLE_CLOUD_PROJECT"):
        resolve_model(GOOGLE)
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "my-project")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "europe-west4")
    model = wire_model(GOOGLE)
    assert model.transport.name == "sdk"
    assert "my-project" in model.account


def test_import_jury_imports_no_provider_sdk() -> None:
    code = (
        "import sys, jury, jury.testing\n"
        "print([m for m in ('anthropic', 'openai', 'google.genai', 'httpx2') if m in sys.modules])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


def test_the_direct_transport_needs_no_sdk(monkeypatch: pytest.MonkeyPatch) -> None:
    code = (
        "import sys\n"
        "from jury.adapters._registry import resolve_model\n"
        "for spec in ('anthropic/a', 'openai/b', 'google/c', 'ollama/d'): resolve_model(spec)\n"
        "print([m for m in ('anthropic', 'openai', 'google.genai') if m in sys.modules])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
