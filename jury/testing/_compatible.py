"""OpenAI-compatible servers the fake can play on its OpenAI route
(``FakeProviderServer(compatible=...)``): each refuses what that server refuses, in its words,
answers its read-only endpoints as it does (what `jury.providers._servers` asks before a
juror's first call), and shapes its replies as it does, so that a test meets what a user of
that server meets.

``llama-cpp-python``: its server (llama_cpp/server, 0.3.x) types ``response_format.type`` as
``Literal["text", "json_object"]`` (llama_cpp/llama_types.py,
``ChatCompletionRequestResponseFormat``); any other type fails that validation inside the
route, and its error handler (llama_cpp/server/errors.py, ``error_message_wrapper``) answers
every such exception with HTTP 500 ``internal_server_error`` whose message is the validation
error's text, the same on every attempt. The words below are those it sent to aiojury on
2026-12-04 (llama-cpp-python 0.3.36). It serves any model name it is asked for; ``GET
/openapi.json`` is titled "🦙 llama.cpp Python API"; ``GET /v1/models`` lists its alias
``owned_by: "me"`` (both as that server answered them on 2026-12-04).

``llama-server`` (llama.cpp, tools/server/server.cpp): ``GET /v1/models`` lists the model
``owned_by: "llamacpp"`` with a ``meta`` (``size``...), ``GET /props`` gives
``total_slots`` and ``model_path``; it takes ``json_schema``; and it trims a markdown fence
off the reply's content but not off its log-probability tokens (issue 32: on 2026-12-03 its
replies' tokens began with the fence its content did not have).

``ollama``: ``GET /api/version`` answers ``{"version": ...}`` and ``GET /api/tags`` lists
each model with its ``digest`` (ollama docs/api.md); its OpenAI route takes ``json_schema``.

``vllm``: ``GET /v1/models`` lists the model ``owned_by: "vllm"`` with its ``root`` (the
path it was loaded from) and ``max_model_len`` (vllm/entrypoints/openai/protocol.py,
``ModelCard``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from aiohttp import web

__all__ = ["COMPATIBLE", "add_compatible_routes", "compatible_refusal", "compatible_reply"]

COMPATIBLE = ("llama-cpp-python", "llama-server", "ollama", "vllm")
#: What the fake's llama-server says of the file it serves (a made-up file, of its size).
LLAMA_SERVER_FILE = ("/models/SmolLM2-135M-Instruct.Q4_1.gguf", 98_000_000)
#: The digest the fake's Ollama lists for every model.
OLLAMA_DIGEST = "5f2a7c1e9b0d4e3a8c6f1b2d7e9a0c3b5d8f1e4a7c0b3d6e9f2a5c8b1e4d7a0f"
_FENCED = re.compile(r"\A```(?:json)?\s*\n(.*?)\n?```\s*\Z", re.S)

_LLAMA_CPP_PYTHON_500 = (
    "1 validation error:\n  {{'type': 'literal_error', 'loc': ('body', 'response_format', "
    "'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': {kind!r}, "
    "'ctx': {{'expected': \"'text' or 'json_object'\"}}}}\n\n  File "
    '"llama_cpp/server/app.py", line 376, in create_chat_completion\n'
    "    POST /v1/chat/completions"
)


def compatible_refusal(server: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
    """The status and body with which `server` refuses a chat completion `body`, or None."""
    if server == "llama-cpp-python":
        given = body.get("response_format")
        kind = given.get("type") if isinstance(given, dict) else None
        if kind is not None and kind not in ("text", "json_object"):
            error = {
                "message": _LLAMA_CPP_PYTHON_500.format(kind=kind),
                "type": "internal_server_error",
                "param": None,
                "code": None,
            }
            return 500, {"error": error}
    return None


def _models(server: str, served: Iterable[str] | None) -> dict[str, Any]:
    names = sorted(served or ()) or ["model"]
    owner = {"llama-cpp-python": "me", "llama-server": "llamacpp", "ollama": "library"}
    data: list[dict[str, Any]] = []
    for name in names:
        entry: dict[str, Any] = {"id": name, "object": "model", "owned_by": owner.get(server)}
        if server == "llama-cpp-python":
            entry["permissions"] = []
        elif server == "llama-server":
            entry.update(created=0, meta={"size": LLAMA_SERVER_FILE[1], "n_params": 134515008})
        elif server == "vllm":
            entry.update(owned_by="vllm", root=f"/models/{name}", max_model_len=8192)
        data.append(entry)
    return {"object": "list", "data": data}


def add_compatible_routes(
    app: web.Application, server: str, served: Callable[[], Iterable[str] | None], slots: int
) -> None:
    """The read-only endpoints `server` answers, as it answers them."""

    async def models(request: web.Request) -> web.Response:
        return web.json_response(_models(server, served()))

    app.router.add_get("/v1/models", models)
    if server == "llama-cpp-python":

        async def openapi(request: web.Request) -> web.Response:
            info = {"title": "🦙 llama.cpp Python API", "version": "0.3.36"}
            return web.json_response({"openapi": "3.1.0", "info": info, "paths": {}})

        app.router.add_get("/openapi.json", openapi)
    elif server == "llama-server":

        async def props(request: web.Request) -> web.Response:
            return web.json_response(
                {
                    "total_slots": slots,
                    "model_path": LLAMA_SERVER_FILE[0],
                    "build_info": "b6000-fake",
                }
            )

        app.router.add_get("/props", props)
    elif server == "ollama":

        async def version(request: web.Request) -> web.Response:
            return web.json_response({"version": "0.13.0"})

        async def tags(request: web.Request) -> web.Response:
            listed = [
                {"name": f"{name}:latest", "model": f"{name}:latest", "digest": OLLAMA_DIGEST}
                for name in sorted(served() or ())
            ]
            return web.json_response({"models": listed})

        app.router.add_get("/api/version", version)
        app.router.add_get("/api/tags", tags)


def compatible_reply(server: str, body: dict[str, Any]) -> dict[str, Any]:
    """A chat completion's reply as `server` sends it: llama-server trims a markdown fence
    off the content and leaves it in the log-probability tokens."""
    if server == "llama-server":
        for choice in body.get("choices") or ():
            message = choice.get("message") or {}
            fenced = _FENCED.match(message.get("content") or "")
            if fenced:
                message["content"] = fenced.group(1)
    return body
