"""Each adapter, through both transports, tells a server that cannot serve the juror apart
from one that failed a call (issue 31): a connection never made is an `UnreachableError`
under any SDK's wrapping, a model the server does not have is its 404 in the provider's own
words, and either one on a model's first call stops the run (`jury.JurorUnusable`) naming the
variable that sets the base URL."""

from __future__ import annotations

import socket

import pytest
from extras import needs_sdk
from provider_helpers import ALL_SPECS, FIRST_PARTY, judge, model_id, panel

from conftest import FAKE_KEY
from jury import JurorUnusable
from jury.adapters import UnreachableError
from jury.providers._wire._errors import error_message, named_setting
from jury.testing import FakeClock, FakeProviderServer

#: Where each provider's base URL is set, as the fix names it.
VARIABLES = {
    "anthropic": "ANTHROPIC_BASE_URL",
    "openai": "OPENAI_BASE_URL",
    "google": "GOOGLE_GEMINI_BASE_URL",
    "openai-api": "ACME_BASE_URL",
    "ollama": "OLLAMA_BASE_URL",
}


@pytest.fixture(params=["sdk", "direct"])
def transport(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("JURY_TRANSPORT", request.param)
    return str(request.param)


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@needs_sdk()
@pytest.mark.parametrize("spec", ALL_SPECS)
async def test_nothing_listening_is_unreachable_and_stops_the_run_through_either_transport(
    spec: str, transport: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "ACME_API_KEY"):
        monkeypatch.setenv(name, FAKE_KEY)
    for name in VARIABLES.values():
        monkeypatch.setenv(
            name, url if name in ("ANTHROPIC_BASE_URL", "GOOGLE_GEMINI_BASE_URL") else f"{url}/v1"
        )
    clock = FakeClock()
    with pytest.raises(JurorUnusable) as raised:
        await judge(panel(spec), clock)
    error = raised.value
    assert isinstance(error.error, UnreachableError), error.error
    assert error.attempts == 3  # the panel's retries, all spent: then it is said
    assert f"nothing answers at {url}" in error.fix
    assert VARIABLES[spec.split("/", 1)[0]] in error.fix


@needs_sdk()
@pytest.mark.parametrize("spec", FIRST_PARTY)
async def test_a_model_the_api_does_not_have_stops_the_run_in_the_providers_own_words(
    spec: str, server: FakeProviderServer, transport: str
) -> None:
    server.models = {"some-other-model"}
    with pytest.raises(JurorUnusable) as raised:
        await judge(panel(spec))
    error = raised.value
    assert error.error.status == 404
    assert model_id(spec) in str(error.error)
    # Not retried: a 404 is the same every time.
    assert [r.status for r in server.requests] == [404]
    assert "check the model name" in error.fix


@pytest.mark.parametrize(
    ("body", "setting"),
    [
        # OpenAI names the offending request field in the error object's `param`
        # (https://platform.openai.com/docs/guides/error-codes).
        ({"error": {"message": "Invalid schema", "param": "response_format"}}, "response_format"),
        (
            {"error": {"message": "bad", "param": "response_format.json_schema.schema"}},
            "response_format",
        ),
        # A field of the case's own content is no setting, whatever the message says.
        ({"error": {"message": "max_tokens too large", "param": "messages[0].content"}}, None),
        # llama-cpp-python's validation error names the field in its location.
        (
            {
                "error": {
                    "message": "1 validation error:\n  {'loc': ('body', 'response_format', "
                    "'type'), 'msg': \"Input should be 'text' or 'json_object'\"}",
                    "param": None,
                }
            },
            "response_format",
        ),
        # Azure OpenAI's words for a field a deployment does not take.
        (
            {"error": {"message": "Unrecognized request argument supplied: top_logprobs"}},
            "top_logprobs",
        ),
        ({"error": {"message": "Unrecognized request argument supplied: logprobs"}}, "logprobs"),
        # A case too long for the model names no setting.
        ({"error": {"message": "This model's maximum context length is 8192 tokens."}}, None),
        ("Internal Server Error", None),
    ],
)
def test_a_refusal_names_a_setting_only_where_the_server_names_a_request_setting(
    body: object, setting: str | None
) -> None:
    message = error_message(body)
    assert named_setting(body, message) == setting
