"""What OpenAI's Chat Completions refuses of one model and not another: the reasoning efforts
each model takes, the older tokens field on reasoning models, and function tools beside a
reasoning effort on the newest families. Each rule names its source; the adapter is held to
them by running against the fake (`jury.providers.openai` keeps its own table of efforts).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fnmatch import fnmatchcase
from typing import Any

from aiohttp import web

from ._wire import Refusal, bearer

__all__ = ["EFFORTS", "FIRST_PARTY", "add_model_route", "model_efforts", "model_refusal"]

#: Model names only OpenAI serves: a call to one must carry OpenAI's key. Compatible servers
#: (Ollama, vLLM), served on the same route, take none.
FIRST_PARTY = re.compile(r"^(gpt-|o\d|chatgpt-|omni-moderation|text-moderation)")

#: Every value ``reasoning_effort`` has: openai SDK 3.60 types/shared/reasoning_effort.py
#: ("none", "minimal", "low", "medium", "high", "xhigh", "max"); its docstring in
#: types/chat/completion_create_params.py: "Not all reasoning models support every value".
EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
_NONE_TO_XHIGH = ("none", "low", "medium", "high", "xhigh")

#: The values each model takes, by name pattern, the first match winning; a reasoning model
#: matching none takes every value (no rule known to refuse it).
_BY_MODEL: tuple[tuple[str, tuple[str, ...]], ...] = (
    # Issue 34 (the review of 2026-12-03): "max" is listed for gpt-6-astra, gpt-6.2-sol and
    # gpt-6-luna ("effort none...max"); "none" is absent on gpt-6.2-astra and gpt-6.2-sol.
    ("gpt-6.2-astra*", ("low", "medium", "high", "xhigh", "max")),
    ("gpt-6.2-sol*", ("low", "medium", "high", "xhigh", "max")),
    ("gpt-6-astra*", (*_NONE_TO_XHIGH, "max")),
    ("gpt-6-luna*", (*_NONE_TO_XHIGH, "max")),
    # The other GPT-6 models: no source lists "max" for them (issue 34 lists it for three).
    ("gpt-6*", _NONE_TO_XHIGH),
    # GPT-5.2 and later: "none" to "xhigh" (gpt-5.4 run at "medium/high/xhigh" in
    # https://github.com/openai/openai-openapi/issues/541; gpt-5.6's highest is "xhigh":
    # https://github.com/aaif-goose/goose/issues/11413 maps its Max to xhigh).
    ("gpt-5.[2-9]*", _NONE_TO_XHIGH),
    # GPT-5.1 dropped "minimal" and added "none": "Unsupported value: 'minimal' is not
    # supported with the 'gpt-5.1' model. Supported values are: 'none', 'low', 'medium', and
    # 'high'." (https://github.com/openai/openai-agents-python/issues/2089,
    # https://github.com/anomalyco/opencode/issues/4451).
    ("gpt-5.1*", ("none", "low", "medium", "high")),
    # GPT-5 added "minimal" (https://github.com/ag2ai/ag2/issues/2008); "none" came with 5.1.
    ("gpt-5*", ("minimal", "low", "medium", "high")),
    # "Earlier reasoning models like o3 supported only low, medium, and high" (OpenAI's GPT-5
    # guide, quoted in https://github.com/QuantumNous/new-api/pull/1525).
    ("o[1-9]*", ("low", "medium", "high")),
)

#: Function tools with a reasoning effort on Chat Completions. gpt-5.4: "Function tools with
#: reasoning_effort are not supported for gpt-5.4 in /v1/chat/completions. Please use
#: /v1/responses instead." (https://github.com/pipecat-ai/pipecat/issues/4043, the effort
#: sent). gpt-5.6 and gpt-6: "... To use function tools, use /v1/responses or set
#: reasoning_effort to 'none'." (gpt-5.6-terra: https://github.com/GEMISIS/leviath/issues/333;
#: gpt-5.6-luna: https://github.com/laurent22/joplin/pull/16451, where the effort was not sent
#: at all and the model's own default was refused; gpt-6-astra:
#: https://github.com/Wei-Shaw/sub2api/issues/6740).
_TOOLS_WITH_EFFORT_SENT = ("gpt-5.4*",)
_TOOLS_WITH_ANY_EFFORT = ("gpt-5.6*", "gpt-6*")


def _matches(model: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatchcase(model, pattern) for pattern in patterns)


def model_efforts(model: str) -> tuple[str, ...]:
    """The ``reasoning_effort`` values a reasoning `model` takes."""
    return next((taken for pattern, taken in _BY_MODEL if fnmatchcase(model, pattern)), EFFORTS)


def _listed(values: tuple[str, ...]) -> str:
    quoted = [f"'{value}'" for value in values]
    return ", ".join(quoted[:-1]) + f", and {quoted[-1]}" if len(quoted) > 1 else quoted[0]


def _effort_refusal(body: dict[str, Any], model: str) -> Refusal | None:
    effort = body.get("reasoning_effort")
    if effort is None:
        return None
    taken = model_efforts(model)
    if effort in taken:
        return None
    return Refusal(
        f"Unsupported value: '{effort}' is not supported with the '{model}' model. Supported "
        f"values are: {_listed(taken)}.",
        param="reasoning_effort",
        code="unsupported_value",
    )


def _tokens_refusal(body: dict[str, Any]) -> Refusal | None:
    # The SDK's completion_create_params.py: max_tokens "is now deprecated in favor of
    # `max_completion_tokens`, and is not compatible with o-series models"; the API's words,
    # param and code (o1, o3-mini: https://github.com/teilomillet/gollm/issues/33; gpt-5:
    # https://github.com/griptape-ai/ComfyUI-Griptape/issues/312; gpt-5.4:
    # https://github.com/koosoli/ESPHomeDesigner/issues/379).
    if "max_tokens" not in body:
        return None
    return Refusal(
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
        "'max_completion_tokens' instead.",
        param="max_tokens",
        code="unsupported_parameter",
    )


def _tools_refusal(body: dict[str, Any], model: str) -> Refusal | None:
    tools = body.get("tools") or ()
    if not any(isinstance(t, dict) and t.get("type") == "function" for t in tools):
        return None
    effort = body.get("reasoning_effort")
    if _matches(model, _TOOLS_WITH_ANY_EFFORT) and effort != "none":
        fix = "To use function tools, use /v1/responses or set reasoning_effort to 'none'."
    elif _matches(model, _TOOLS_WITH_EFFORT_SENT) and effort not in (None, "none"):
        fix = "Please use /v1/responses instead."
    else:
        return None
    return Refusal(
        f"Function tools with reasoning_effort are not supported for {model} in "
        f"/v1/chat/completions. {fix}",
        param="reasoning_effort",
    )


def model_refusal(body: dict[str, Any], model: str, reasoning: bool) -> Refusal | None:
    """What Chat Completions refuses of `body` for this `model` (a reasoning one or not)."""
    if not reasoning:
        return None
    return _effort_refusal(body, model) or _tokens_refusal(body) or _tools_refusal(body, model)


def add_model_route(app: web.Application, shutdowns: Mapping[str, str]) -> None:
    """``GET /v1/models/{model}``: the model as OpenAI describes it, its ``shutdown_date``
    what `shutdowns` says (null when not announced; openai SDK 3.60 types/model.py: "The date
    when the model will shut down, or null if not announced"). A call without a key is a 401,
    a model OpenAI does not serve a 404 (as on Chat Completions)."""

    async def model(request: web.Request) -> web.Response:
        name = request.match_info["model"]
        if not bearer(request.headers):
            error = {"message": "You didn't provide an API key.", "type": "invalid_request_error"}
            return web.json_response({"error": error}, status=401)
        if not FIRST_PARTY.match(name):
            error = {
                "message": f"The model `{name}` does not exist or you do not have access to it.",
                "type": "invalid_request_error",
                "code": "model_not_found",
            }
            return web.json_response({"error": error}, status=404)
        described = {"id": name, "object": "model", "created": 0, "owned_by": "system"}
        return web.json_response({**described, "shutdown_date": shutdowns.get(name)})

    app.router.add_get("/v1/models/{model}", model)
