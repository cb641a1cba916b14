"""The request-shape contract of each adapter, for every built-in rubric: the body the direct
transport sends validates against the installed SDK's request types (so an SDK upgrade that
changes them shows here), and the SDK transport sends the same JSON document, as the fake
server received it. The SDK versions checked are in the test IDs."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from extras import needs, require
from provider_helpers import ANTHROPIC, GOOGLE, OPENAI, judge, model_id, panel

from jury import Case, VoteStatus, load_cases, load_rubric
from jury.adapters import JudgeRequest, Message
from jury.adapters._registry import builtin_rubrics, resolve_model
from jury.providers._wire import WireModel
from jury.testing import FakeProviderServer

#: Each SDK's distribution, and the extra that installs it.
SDK = {"anthropic": "anthropic", "openai": "openai", "google-genai": "google"}


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not-installed"


#: Each adapter with models of its families that are sent different settings: the defaults,
#: a reasoning OpenAI model, a Gemini 2.5 model (thinking budget) and a Gemini 3 Flash.
MODELS = {
    "anthropic": (ANTHROPIC, "anthropic/claude-haiku-4-5-20251001"),
    "openai": (OPENAI, "openai/gpt-5.4-mini-2026-03-17"),
    "google-genai": (GOOGLE, "google/gemini-2.5-flash", "google/gemini-3.8-flash"),
}
SPECS = [
    pytest.param(spec, id=f"{sdk}-{_version(sdk)}-{spec.partition('/')[2]}", marks=needs(SDK[sdk]))
    for sdk, specs in MODELS.items()
    for spec in specs
]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "shopnest"


def case_for(rubric: str) -> Case:
    """A case the rubric can judge, from the examples."""
    file = {"pairwise-preference": "pairwise", "shopnest-points": "points"}.get(rubric, "cases")
    return load_cases(EXAMPLES / f"{file}.jsonl")[0]


def requests_for(rubric_name: str) -> Iterator[JudgeRequest]:
    rubric = load_rubric(rubric_name)
    case = case_for(rubric_name)
    for prompt in rubric.prompts(case):
        first = (Message("user", prompt.user),)
        # The first ask, and a re-ask after a bad reply (the conversation grows).
        for messages in (first, (*first, Message("assistant", "{"), Message("user", "again"))):
            yield JudgeRequest(prompt.system, messages, prompt.schema, prompt.schema_name)


def materialized(value: Any) -> Any:
    """A validated value with the SDK types' lazy iterables read out, to compare with the
    body: a key the types do not know is dropped by validation, and shows as a difference."""
    if isinstance(value, dict):
        return {key: materialized(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)) or hasattr(value, "__next__"):
        return [materialized(item) for item in value]
    return value


def validate(provider: str, body: dict[str, Any]) -> None:
    """The body as the provider's SDK's request types read it."""
    if provider in ("openai", "anthropic"):
        from pydantic import TypeAdapter

        require(provider)
        params: Any
        if provider == "openai":
            from openai.types.chat import completion_create_params

            params = completion_create_params.CompletionCreateParamsNonStreaming
        else:
            from anthropic.types import message_create_params

            params = message_create_params.MessageCreateParamsNonStreaming
        # Kept while the lazy iterables are read: they validate with the adapter's schema.
        adapter: TypeAdapter[Any] = TypeAdapter(params)
        assert materialized(adapter.validate_python(body)) == body
    else:
        require("google")
        from google.genai import types

        assert set(body) == {"contents", "systemInstruction", "generationConfig"}
        for content in (*body["contents"], body["systemInstruction"]):
            types.Content.model_validate(content)
        # google-genai's config holds the system instruction and every generation setting;
        # it forbids a key it does not know.
        types.GenerateContentConfig.model_validate(
            {"system_instruction": body["systemInstruction"], **body["generationConfig"]}
        )


@pytest.mark.parametrize("rubric", builtin_rubrics())
@pytest.mark.parametrize("spec", SPECS)
def test_the_direct_body_validates_against_the_sdks_request_types(
    server: FakeProviderServer, spec: str, rubric: str
) -> None:
    model = resolve_model(spec)
    assert isinstance(model, WireModel)
    for request in requests_for(rubric):
        validate(model.wire.provider, model.wire.body(model.model, request))


@pytest.mark.parametrize("rubric", builtin_rubrics())
@pytest.mark.parametrize("spec", SPECS)
async def test_both_transports_send_the_same_body_and_the_strict_fake_takes_it(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch, spec: str, rubric: str
) -> None:
    case = case_for(rubric)
    sent = {}
    for transport in ("sdk", "direct"):
        monkeypatch.setenv("JURY_TRANSPORT", transport)
        server.clear()
        verdict = await judge(panel(spec, rubric=rubric), case=case)
        assert verdict.votes[0].status is VoteStatus.VALID, verdict.votes[0].error
        sent[transport] = [(r.path, r.body) for r in server.requests_for(model_id(spec))]
        assert all(r.status == 200 for r in server.requests)
    assert sent["sdk"] == sent["direct"]
