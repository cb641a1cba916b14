"""A case's images reach the system under test: a model agent's requests carry them in each
protocol's shape (through the judges' adapters, to the strict fake, whose image rules apply
to them as to a judge's), an HTTP agent is POSTed them as an ``images`` list (or where its
body template places ``{{images}}``), and a callable gets them with the case. A model agent
that cannot take images is not asked (`jury.providers.agents._model`)."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from images_helpers import BMP, PNG, PNG_URI, URL
from provider_helpers import ANTHROPIC, GOOGLE, OPENAI, model_id

from jury import Case, ConfigError
from jury.adapters import AgentError, Image, InvalidRequestError
from jury.adapters._request import call_key
from jury.panel._agent_spec import AgentSettings, resolve_agent
from jury.providers._images import openai_content
from jury.providers.agents._http import request_body
from jury.testing import FakeProviderServer

#: A question that shows two images: one inline, one by URL.
PICTURED = Case(
    id="cat-1",
    question="What animal is in [image 1], and is it the same as in [image 2]?",
    images=(Image(media_type="image/png", data=PNG), Image(url=URL)),
)

#: Each protocol's image parts after the question's text, as the judges are sent them.
PARTS = {
    ANTHROPIC: [
        {"type": "text", "text": "image 1:"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
        {"type": "text", "text": "image 2:"},
        {"type": "image", "source": {"type": "url", "url": URL}},
    ],
    OPENAI: [
        {"type": "text", "text": "image 1:"},
        {"type": "image_url", "image_url": {"url": PNG_URI}},
        {"type": "text", "text": "image 2:"},
        {"type": "image_url", "image_url": {"url": URL}},
    ],
    GOOGLE: [
        {"text": "image 1:"},
        {"inlineData": {"mime_type": "image/png", "data": PNG.replace("+", "-")}},
        {"text": "image 2:"},
        {"fileData": {"mime_type": "image/jpeg", "file_uri": URL}},
    ],
}


def _user_turns(body: dict[str, Any], spec: str) -> list[Any]:
    """The content of each user turn of a request body, in order."""
    if spec == GOOGLE:
        return [c["parts"] for c in body["contents"] if c["role"] == "user"]
    return [m["content"] for m in body["messages"] if m["role"] == "user"]


async def _answer(spec: str, case: Case, settings: AgentSettings | None = None) -> Any:
    agent = resolve_agent(spec, settings or AgentSettings())
    try:
        return await agent.respond(case)
    finally:
        await agent.aclose()


@pytest.mark.parametrize("spec", [ANTHROPIC, OPENAI, GOOGLE])
async def test_a_model_agent_is_sent_the_cases_images_in_its_protocols_shape(
    server: FakeProviderServer, spec: str
) -> None:
    server.script(model_id(spec), {"answer": "A cat, twice."})
    reply = await _answer(spec, PICTURED)
    assert reply.answer == "A cat, twice."
    (request,) = server.requests_for(model_id(spec))
    assert request.status == 200  # the fake's image rules took them
    (content,) = _user_turns(request.body, spec)
    assert "[image 1]" in content[0]["text"]
    assert content[1:] == PARTS[spec]


async def test_a_prompt_template_that_leaves_the_question_out_still_carries_the_images(
    server: FakeProviderServer, tmp_path: Path
) -> None:
    (tmp_path / "prompt.txt").write_text("Describe what you are shown.")
    server.script(model_id(OPENAI), {"answer": "Two cats."})
    agent = resolve_agent(OPENAI, AgentSettings(agent_prompt="prompt.txt"), base_dir=tmp_path)
    try:
        await agent.respond(PICTURED)
    finally:
        await agent.aclose()
    (content,) = _user_turns(server.requests[0].body, OPENAI)
    # The template marks neither image, so their marks are added where they are carried.
    assert content[0] == {
        "type": "text",
        "text": "Describe what you are shown.\n\n[image 1] [image 2]",
    }
    assert content[1:] == PARTS[OPENAI]


@pytest.mark.parametrize("spec", [ANTHROPIC, OPENAI, GOOGLE])
async def test_in_a_conversation_each_image_goes_with_the_user_turn_that_shows_it(
    server: FakeProviderServer, spec: str
) -> None:
    case = Case.model_validate(
        {
            "id": "two-turns",
            "turns": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "Here is my cat."},
                        {"type": "image_url", "image_url": {"url": PNG_URI}},
                    ],
                },
                {"role": "assistant", "content": "A fine cat."},
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "And this one?"},
                        {"type": "image_url", "image_url": {"url": URL}},
                    ],
                },
            ],
        }
    )
    assert len(case.images) == 2
    server.script(model_id(spec), {"answer": "Another cat."})
    await _answer(spec, case)
    (request,) = server.requests_for(model_id(spec))
    assert request.status == 200
    first, last = _user_turns(request.body, spec)
    # Each image after the text of the turn it was in, named by its number in the case.
    assert first[1:] == PARTS[spec][:2]
    assert last[1:] == PARTS[spec][2:]
    assert "[image 2]" in last[0]["text"]


async def test_an_image_no_user_turn_shows_goes_with_the_turn_the_model_answers(
    server: FakeProviderServer,
) -> None:
    case = Case.model_validate(
        {
            "id": "system-image",
            "turns": [
                {
                    "role": "system",
                    "content": [
                        {"type": "text", "text": "Our logo:"},
                        {"type": "image_url", "image_url": {"url": PNG_URI}},
                    ],
                },
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello!"},
                {"role": "user", "content": "Is our logo blue?"},
            ],
        }
    )
    agent = resolve_agent(OPENAI, AgentSettings())
    request = agent.request_for(case)
    assert "[image 1]" in request.system
    first, _, last = request.messages
    assert first.images == ()
    assert last.images == case.images  # not dropped: sent with the question answered


@pytest.mark.parametrize("spec", [ANTHROPIC, OPENAI, GOOGLE])
async def test_the_fakes_image_rules_apply_to_the_agents_requests(
    server: FakeProviderServer, spec: str
) -> None:
    bitmap = Case(
        id="bmp",
        question="What is in [image 1]?",
        images=(Image(media_type="image/bmp", data=BMP),),
    )
    server.script(model_id(spec), {"answer": "never served"})
    agent = resolve_agent(spec, AgentSettings())
    try:
        with pytest.raises(Exception, match="400") as raised:
            await agent.respond(bitmap)
        assert agent.model is not None
        # Refused as a judge's request is: not retried, the case's agent failed.
        assert isinstance(agent.model.classify_error(raised.value), InvalidRequestError)
    finally:
        await agent.aclose()
    (request,) = server.requests_for(model_id(spec))
    assert request.status == 400


async def test_the_agents_request_is_addressed_by_its_images(server: FakeProviderServer) -> None:
    agent = resolve_agent(OPENAI, AgentSettings())
    assert agent.model is not None
    other = PICTURED.model_copy(
        update={"images": (Image(media_type="image/png", data=PNG), Image(url=URL + "?v=2"))}
    )
    keys = {
        call_key(agent.name, agent.request_for(case), 0, endpoint=agent.model.endpoint)
        for case in (PICTURED, PICTURED.model_copy(), other)
    }
    # The same images give the same address (a rerun is served from the cache); a changed
    # image is a new call.
    assert len(keys) == 2


async def test_a_model_that_takes_no_images_is_not_asked_about_a_case_that_has_them(
    server: FakeProviderServer,
) -> None:
    # Retired, but still the plainest text-only model: the rule is what is tested.
    agent = resolve_agent("openai/gpt-3.5-turbo-0125", AgentSettings())
    assert agent.blind == "gpt-3.5-turbo-0125 takes text only"
    with pytest.raises(AgentError, match=r"the case has 2 image\(s\) and gpt-3.5-turbo-0125"):
        agent.request_for(PICTURED)
    # A case without images is asked as before.
    assert agent.request_for(Case(id="t", question="Hi?")).messages[0].images == ()


async def test_agent_images_true_sends_a_compatible_servers_model_the_images(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACME_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("ACME_API_KEY", "sk-acme")
    spec = "openai-api/acme/qwen2.5-vl-7b-instruct"
    assert resolve_agent(spec, AgentSettings()).blind is not None
    server.script("qwen2.5-vl-7b-instruct", {"answer": "A cat."})
    await _answer(spec, PICTURED, AgentSettings(agent_images=True))
    (request,) = server.requests_for("qwen2.5-vl-7b-instruct")
    assert _user_turns(request.body, OPENAI)[0][1:] == PARTS[OPENAI]


def test_agent_images_is_refused_for_an_agent_that_is_no_model(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="agent_images: for a provider/model agent"):
        resolve_agent("http://127.0.0.1:9/ask", AgentSettings(agent_images=True))


# --- an HTTP endpoint as the agent -------------------------------------------------------


@pytest.fixture
async def endpoint() -> AsyncIterator[Callable[[], Any]]:
    """An endpoint at /ask on 127.0.0.1 that answers "ok"; the bodies it got are kept."""
    runners: list[web.AppRunner] = []

    async def start() -> tuple[str, list[Any]]:
        seen: list[Any] = []

        async def ask(request: web.Request) -> web.StreamResponse:
            seen.append(await request.json())
            return web.json_response({"answer": "ok"})

        # Bodies up to 64 MB, as an endpoint that takes photographs would (aiohttp: 1 MiB).
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/ask", ask)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        runners.append(runner)
        host, port = runner.addresses[0][:2]
        return f"http://{host}:{port}/ask", seen

    yield start
    for runner in runners:
        await runner.cleanup()


async def test_an_endpoint_is_posted_the_images_as_a_list_of_data_uris_and_urls(
    endpoint: Any,
) -> None:
    url, seen = await endpoint()
    await _answer(url, PICTURED)
    (body,) = seen
    assert body["images"] == [PNG_URI, URL]
    assert body["question"] == PICTURED.question  # the text still marks where each was
    assert base64.b64decode(body["images"][0].split(",", 1)[1]).startswith(b"\x89PNG")


async def test_an_endpoint_is_posted_no_images_key_for_a_case_without_images(
    endpoint: Any,
) -> None:
    url, seen = await endpoint()
    await _answer(url, Case(id="t", question="Hi?"))
    assert "images" not in seen[0]


async def test_a_body_template_places_the_images_where_it_names_them(endpoint: Any) -> None:
    url, seen = await endpoint()
    template = {"input": {"text": "{{question}}", "pictures": "{{ images }}"}}
    settings = AgentSettings(agent_body=template)
    assert resolve_agent(url, settings).blind is None
    await _answer(url, PICTURED, settings)
    assert seen[0] == {"input": {"text": PICTURED.question, "pictures": [PNG_URI, URL]}}


def test_a_body_template_that_places_no_images_says_the_endpoint_is_blind_to_them() -> None:
    agent = resolve_agent("http://127.0.0.1:9/ask", AgentSettings(agent_body={"q": "{{question}}"}))
    assert agent.blind == "its agent_body places no {{images}}"


# --- a Python callable as the agent --------------------------------------------------------


async def test_a_callable_gets_the_case_with_its_images(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(
        "def answer(case):\n    return ' '.join(image.data_uri for image in case.images)\n"
    )
    agent = resolve_agent("agent.py:answer", AgentSettings(), base_dir=tmp_path)
    assert agent.blind is None
    reply = await agent.respond(PICTURED)
    assert reply.answer == f"{PNG_URI} {URL}"


# --- a request over a megabyte (a photograph) -----------------------------------------------

#: A 2 MB PNG: above the 1 MiB over which aiohttp warns of raw bytes (ResourceWarning, an
#: error in this suite), far below every API's image limit.
BIG = base64.b64encode(base64.b64decode(PNG) + bytes(2_000_000)).decode()
PHOTO = Case(
    id="photo",
    question="What is in [image 1]?",
    images=(Image(media_type="image/png", data=BIG),),
)


@pytest.mark.parametrize("spec", [ANTHROPIC, OPENAI, GOOGLE])
async def test_a_model_agent_sends_a_request_over_a_megabyte_on_the_direct_transport(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch, spec: str
) -> None:
    # The direct transport (the default) streams it; the SDKs' own aiohttp clients send raw
    # bytes, which aiohttp warns of, out of this project's reach.
    monkeypatch.setenv("JURY_TRANSPORT", "direct")
    server.script(model_id(spec), {"answer": "A cat."})
    reply = await _answer(spec, PHOTO)
    assert reply.answer == "A cat."
    (request,) = server.requests_for(model_id(spec))
    assert request.status == 200
    assert len(json.dumps(request.body)) > 2_000_000


async def test_an_endpoint_is_posted_a_body_over_a_megabyte(endpoint: Any) -> None:
    url, seen = await endpoint()
    await _answer(url, PHOTO)
    assert seen[0]["images"] == [PHOTO.images[0].data_uri]


def test_an_image_carried_with_a_later_turn_is_labelled_by_its_own_number(
    server: FakeProviderServer,
) -> None:
    # Image 2 is the system turn's, carried with the last user turn beside its own image 3:
    # each keeps the number the text marks it by, never a label an earlier turn used.
    case = Case.model_validate(
        {
            "id": "labels",
            "turns": [
                {"role": "system", "content": "Reference chart: [image 2]"},
                {"role": "user", "content": "Here is my photo [image 1]. What is it?"},
                {"role": "assistant", "content": "A cat."},
                {"role": "user", "content": "Compare it with this one [image 3] and the chart."},
            ],
            "images": [
                Image(media_type="image/png", data=PNG),
                Image(url=URL),
                Image(url=URL + "?3"),
            ],
        }
    )
    request = resolve_agent(OPENAI, AgentSettings()).request_for(case)
    first, _, last = request.messages
    assert first.images == case.images[:1]
    assert last.images == case.images[1:]
    parts = openai_content(last)
    assert isinstance(parts, list)
    labels = [part["text"] for part in parts if part["type"] == "text"]
    assert labels[1:] == ["image 2:", "image 3:"]
    assert labels[0].endswith("[image 2]")


#: A recorded conversation whose answer (the assistant turn an agent's answer replaces) holds
#: an image of its own: what the recorded system drew is no part of the question.
DRAWN = Case.model_validate(
    {
        "id": "drawn",
        "messages": [
            {"role": "user", "content": "Draw me a cat."},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Here it is:"},
                    {"type": "image_url", "image_url": {"url": PNG_URI}},
                ],
            },
        ],
    }
)


def test_the_recorded_answers_image_is_not_sent_to_the_system_under_test(
    server: FakeProviderServer,
) -> None:
    assert len(DRAWN.images) == 1
    assert "[image 1]" in (DRAWN.answer or "")
    request = resolve_agent(OPENAI, AgentSettings()).request_for(DRAWN)
    assert [m.images for m in request.messages] == [()]
    assert request.messages[-1].content == "Draw me a cat."
    assert "images" not in request_body(DRAWN)


def test_a_cases_own_variable_named_images_fills_a_body_templates_images() -> None:
    case = Case.model_validate(
        {
            "id": "vars",
            "question": "What is shown?",
            "metadata": {"vars": {"images": ["https://example.com/a.png"]}},
        }
    )
    body = request_body(case, {"q": "{{question}}", "urls": "{{images}}"})
    assert body == {"q": "What is shown?", "urls": ["https://example.com/a.png"]}
