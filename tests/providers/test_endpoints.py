"""Each adapter says where its calls go and how (`JudgeModel.endpoint`): the server's URL and
every setting that shapes the request body or the reading of its reply, so that the call cache
never reuses a reply across them. The transport is not part of it (both send the same body)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from provider_helpers import ANTHROPIC, COMPATIBLE, GOOGLE, OPENAI

from conftest import scores
from jury.adapters import Endpoint, JudgeModel, JudgeReply, JudgeRequest
from jury.adapters._registry import resolve_model
from jury.providers import anthropic, google, openai
from jury.testing import ScriptedModel

BASE = "http://127.0.0.1:9"


@pytest.fixture(autouse=True)
def _addresses(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every provider at one address (no call is made here)."""
    for variable, value in {
        "OPENAI_BASE_URL": f"{BASE}/v1",
        "ANTHROPIC_BASE_URL": BASE,
        "GOOGLE_GEMINI_BASE_URL": BASE,
        "ACME_BASE_URL": f"{BASE}/v1",
    }.items():
        monkeypatch.setenv(variable, value)
    for variable in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "ACME_API_KEY"):
        monkeypatch.setenv(variable, "k")
    monkeypatch.delenv("ACME_RESPONSE_FORMAT", raising=False)
    monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI", raising=False)


def endpoint(spec: str) -> Endpoint:
    return resolve_model(spec).endpoint


@pytest.mark.parametrize(
    ("spec", "url", "api"),
    [
        (OPENAI, f"{BASE}/v1", "chat/completions"),
        (COMPATIBLE, f"{BASE}/v1", "chat/completions"),
        (ANTHROPIC, f"{BASE}/v1", f"messages anthropic-version={anthropic.API_VERSION}"),
        (GOOGLE, f"{BASE}/v1beta", "generateContent"),
    ],
)
def test_each_adapter_names_its_server_and_its_api(spec: str, url: str, api: str) -> None:
    found = endpoint(spec)
    assert found.url == url
    assert str(found) == url  # what messages name
    assert found.wire.startswith(api)
    assert found.origin == BASE


@pytest.mark.parametrize("spec", [OPENAI, ANTHROPIC, GOOGLE, COMPATIBLE])
def test_the_transport_is_not_part_of_the_endpoint(
    spec: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JURY_TRANSPORT", "direct")
    direct = endpoint(spec)
    monkeypatch.setenv("JURY_TRANSPORT", "sdk")
    assert endpoint(spec) == direct


def test_another_base_url_is_another_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    before = {spec: endpoint(spec) for spec in (OPENAI, ANTHROPIC, GOOGLE, COMPATIBLE)}
    for variable in ("OPENAI_BASE_URL", "ACME_BASE_URL"):
        monkeypatch.setenv(variable, "http://127.0.0.1:10/v1")
    for variable in ("ANTHROPIC_BASE_URL", "GOOGLE_GEMINI_BASE_URL"):
        monkeypatch.setenv(variable, "http://127.0.0.1:10")
    for spec, was in before.items():
        assert endpoint(spec) != was, spec


def test_the_response_format_and_the_tokens_field_shape_a_compatible_servers_endpoint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen = set()
    for fmt in ("json_schema", "json_object", "none"):
        monkeypatch.setenv("ACME_RESPONSE_FORMAT", fmt)
        found = endpoint(COMPATIBLE)
        assert f"response_format={fmt}" in found.wire
        assert "tokens=max_tokens" in found.wire
        seen.add(found)
    assert len(seen) == 3
    # OpenAI itself is sent the newer field name.
    assert "tokens=max_completion_tokens" in endpoint(OPENAI).wire


def test_what_a_models_family_is_sent_is_part_of_its_endpoint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A change to what a family is sent (as an upgrade of aiojury may make) is a new endpoint
    # for that model's calls: its cached replies were asked another way.
    reasoning = "openai/gpt-5.4-mini-2026-03-17"
    thinking = "anthropic/claude-opus-5-5"
    gemini = "google/gemini-3.5-flash"
    before = {spec: endpoint(spec) for spec in (reasoning, thinking, gemini)}
    monkeypatch.setattr(openai, "REASONING_ROOM", openai.REASONING_ROOM * 2)
    kind = anthropic.family("claude-opus-5-5")
    assert kind is not None
    monkeypatch.setattr(anthropic, "family", lambda model: replace(kind, effort="medium"))
    level = replace(google.family("gemini-3.5-flash"), thinking={"thinking_level": "HIGH"})
    monkeypatch.setattr(google, "family", lambda model: level)
    for spec, was in before.items():
        assert endpoint(spec) != was, spec


def test_vertex_ai_is_named_by_its_project_and_location(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "acme")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "europe-west4")
    found = endpoint(GOOGLE)
    assert found.url == "vertex:acme/europe-west4/v1beta1"
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "us-central1")
    assert endpoint(GOOGLE).url == "vertex:acme/us-central1/v1beta1"


class OwnJudge(JudgeModel):
    """A third party's adapter that says nothing of where its calls go."""

    name = "own/judge"

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        raise NotImplementedError


def test_a_model_that_names_no_endpoint_is_known_by_its_adapters_class() -> None:
    assert OwnJudge().endpoint == Endpoint(f"adapter:{__name__}.OwnJudge")
    scripted = ScriptedModel([scores(5)])
    assert scripted.endpoint.url == "adapter:jury.testing.ScriptedModel"  # its public door
    assert scripted.endpoint.origin == scripted.endpoint.url
