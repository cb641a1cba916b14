"""A case's images reach the judges whose models take them, in each protocol's own shape, on
both transports (the SDK's and the direct one), and the strict fake takes them; the bodies
validate against the installed SDKs' request types. A juror whose model takes none abstains,
saying why (`jury.panel._images`)."""

from __future__ import annotations

from typing import Any

import pytest
from extras import sdk_params
from images_helpers import PNG, PNG_URI, URL
from provider_helpers import ANTHROPIC, COMPATIBLE, GOOGLE, OPENAI, judge, model_id, panel

from jury import Case, Juror, VoteStatus
from jury.adapters import Image, JudgeRequest, Message
from jury.adapters._registry import resolve_model
from jury.providers._wire import WireModel
from jury.testing import FakeProviderServer


@pytest.fixture(autouse=True)
def _compatible(server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACME_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("ACME_API_KEY", "sk-acme")


#: A case whose question shows two images: one inline, one by URL.
CASE = Case(
    id="cat-1",
    question="What animal is in [image 1], and is it the same as in [image 2]?",
    answer="A cat, and yes: the same cat.",
    images=(Image(media_type="image/png", data=PNG), Image(url=URL)),
)


def _user(body: dict[str, Any], provider: str) -> Any:
    """The content of the first user turn of a request body."""
    if provider == "google":
        return body["contents"][0]["parts"]
    first = next(m for m in body["messages"] if m["role"] == "user")
    return first["content"]


EXPECTED = {
    "anthropic": [
        {"type": "text", "text": "image 1:"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
        {"type": "text", "text": "image 2:"},
        {"type": "image", "source": {"type": "url", "url": URL}},
    ],
    "openai": [
        {"type": "text", "text": "image 1:"},
        {"type": "image_url", "image_url": {"url": PNG_URI}},
        {"type": "text", "text": "image 2:"},
        {"type": "image_url", "image_url": {"url": URL}},
    ],
    "google": [
        {"text": "image 1:"},
        # URL-safe base64, as google-genai writes bytes (both transports send the same).
        {"inlineData": {"mime_type": "image/png", "data": PNG.replace("+", "-")}},
        {"text": "image 2:"},
        {"fileData": {"mime_type": "image/jpeg", "file_uri": URL}},
    ],
}
PROVIDER = {ANTHROPIC: "anthropic", OPENAI: "openai", GOOGLE: "google"}


@pytest.mark.parametrize("spec", sdk_params(ANTHROPIC, OPENAI, GOOGLE))
async def test_each_adapter_sends_the_images_in_its_protocols_shape_on_both_transports(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch, spec: str
) -> None:
    provider = PROVIDER[spec]
    sent = {}
    for transport in ("sdk", "direct"):
        monkeypatch.setenv("JURY_TRANSPORT", transport)
        server.clear()
        verdict = await judge(panel(spec), case=CASE)
        assert verdict.votes[0].status is VoteStatus.VALID, verdict.votes[0].error
        (request,) = server.requests_for(model_id(spec))
        assert request.status == 200
        content = _user(request.body, provider)
        # The case's text first (it marks each image where it was), then each image, named.
        text = content[0]["text"]
        assert "[image 1]" in text
        assert "[image 2]" in text
        assert content[1:] == EXPECTED[provider]
        sent[transport] = request.body
    assert sent["sdk"] == sent["direct"]


def materialized(value: Any) -> Any:
    """A validated value with the SDK types' lazy iterables read out (a key the types do not
    know is dropped by validation, and shows as a difference)."""
    if isinstance(value, dict):
        return {key: materialized(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)) or hasattr(value, "__next__"):
        return [materialized(item) for item in value]
    return value


def _request(*images: Image) -> JudgeRequest:
    return JudgeRequest(
        "Judge the case.",
        (Message("user", "Is [image 1] a cat?", images),),
        {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
    )


@pytest.mark.parametrize("spec", sdk_params(ANTHROPIC, OPENAI, GOOGLE))
def test_a_body_with_images_validates_against_the_sdks_request_types(
    server: FakeProviderServer, spec: str
) -> None:
    model = resolve_model(spec)
    assert isinstance(model, WireModel)
    body = model.wire.body(model.model, _request(*CASE.images))
    if model.wire.provider == "google":
        from google.genai import types

        for content in body["contents"]:
            parsed = types.Content.model_validate(content)
            assert parsed.parts is not None
            assert parsed.parts[2].inline_data is not None
            assert parsed.parts[4].file_data is not None
            assert parsed.parts[4].file_data.file_uri == URL
        return
    from pydantic import TypeAdapter

    params: Any
    if model.wire.provider == "openai":
        from openai.types.chat import completion_create_params

        params = completion_create_params.CompletionCreateParamsNonStreaming
    else:
        from anthropic.types import message_create_params

        params = message_create_params.MessageCreateParamsNonStreaming
    # A part the SDK's types do not know is dropped by validation, and shows as a difference.
    # Kept while the lazy iterables are read: they validate with the adapter's schema.
    adapter: TypeAdapter[Any] = TypeAdapter(params)
    validated = adapter.validate_python(body)
    assert materialized(validated)["messages"] == body["messages"]


@pytest.mark.parametrize("spec", [ANTHROPIC, OPENAI, GOOGLE])
def test_a_message_without_images_is_sent_as_it_was_before(
    spec: str, server: FakeProviderServer
) -> None:
    model = resolve_model(spec)
    assert isinstance(model, WireModel)
    body = model.wire.body(model.model, _request())
    content = _user(body, model.wire.provider)
    assert content == (
        [{"text": "Is [image 1] a cat?"}] if spec == GOOGLE else "Is [image 1] a cat?"
    )


async def test_an_openai_compatible_juror_abstains_on_images_unless_it_says_it_takes_them(
    server: FakeProviderServer,
) -> None:
    verdict = await judge(panel(COMPATIBLE), case=CASE)
    (vote,) = verdict.votes
    assert vote.status is VoteStatus.ABSTAINED
    assert "the case has 2 image(s)" in (vote.reason or "")
    assert "set images = true on the juror" in (vote.reason or "")
    assert server.requests_for(model_id(COMPATIBLE)) == []  # nothing sent, nothing paid


async def test_a_compatible_juror_that_says_images_true_is_sent_them(
    server: FakeProviderServer,
) -> None:
    vision = "openai-api/acme/qwen2.5-vl-7b-instruct"
    verdict = await judge(panel(Juror(model=vision, images=True)), case=CASE)
    assert verdict.votes[0].status is VoteStatus.VALID, verdict.votes[0].error
    (request,) = server.requests_for("qwen2.5-vl-7b-instruct")
    assert _user(request.body, "openai")[1:] == EXPECTED["openai"]


async def test_a_text_only_openai_model_is_not_sent_images_and_abstains(
    server: FakeProviderServer,
) -> None:
    # Retired, but still the plainest text-only model: the rule is what is tested.
    verdict = await judge(panel("openai/gpt-3.5-turbo-0125", allow_retired=True), case=CASE)
    (vote,) = verdict.votes
    assert vote.status is VoteStatus.ABSTAINED
    assert "gpt-3.5-turbo-0125 takes text only" in (vote.reason or "")
    assert server.requests_for("gpt-3.5-turbo-0125") == []


async def test_a_juror_that_says_images_false_abstains_even_on_a_model_that_takes_them(
    server: FakeProviderServer,
) -> None:
    verdict = await judge(panel(Juror(model=ANTHROPIC, images=False)), case=CASE)
    assert verdict.votes[0].status is VoteStatus.ABSTAINED
    assert "the juror says images = false" in (verdict.votes[0].reason or "")


async def test_a_case_without_images_is_judged_by_every_juror_as_before(
    server: FakeProviderServer,
) -> None:
    plain = Case(id="p", question="Is [image 1] here?", answer="No image.")
    verdict = await judge(panel(COMPATIBLE), case=plain)
    assert verdict.votes[0].status is VoteStatus.VALID
