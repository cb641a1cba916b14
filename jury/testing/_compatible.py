"""OpenAI-compatible servers the fake can play on its OpenAI route
(``FakeProviderServer(compatible=...)``): each refuses what that server refuses, in its words,
so that a test meets what a user of that server meets.

``llama-cpp-python``: its server (llama_cpp/server, 0.3.x) types ``response_format.type`` as
``Literal["text", "json_object"]`` (llama_cpp/llama_types.py,
``ChatCompletionRequestResponseFormat``); any other type fails that validation inside the
route, and its error handler (llama_cpp/server/errors.py, ``error_message_wrapper``) answers
every such exception with HTTP 500 ``internal_server_error`` whose message is the validation
error's text, the same on every attempt. The words below are those it sent to aiojury on
2026-12-04 (llama-cpp-python 0.3.36). It serves any model name it is asked for.
"""

from __future__ import annotations

from typing import Any

__all__ = ["COMPATIBLE", "compatible_refusal"]

COMPATIBLE = ("llama-cpp-python",)

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
