"""``openai-moderation/<model>``: OpenAI's moderation models (``POST /v1/moderations``), for the
``moderation`` check, not as a juror.

A request's user messages are the texts to classify, sent as one ``input`` array; the reply's
text is the JSON list of results, one per input, as the API gives them (``flagged``,
``categories`` and ``category_scores`` by the API's category names, such as
``harassment/threatening``). The endpoint is free (https://platform.openai.com/docs/guides/
moderation; the model page, https://platform.openai.com/docs/models/omni-moderation-latest:
"moderation models are free models"), so a call costs 0, and the run's accounting counts it
at 0 under its own row (`RunSummary.check_calls`). The retries, limits and cache of the
engine's call layer apply as to any juror; the account is the OpenAI account of the key,
shared with OpenAI jurors. Reads ``OPENAI_API_KEY`` and ``OPENAI_BASE_URL``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from jury.adapters import Endpoint, JudgeReply, JudgeRequest, Usage

from ._openai_sdk import OpenAISdkTransport
from ._wire import MalformedReplyError, Posted, Wire, posted, read_key
from .openai import DEFAULT_BASE_URL, KEY_VARIABLE, OpenAIJudge

__all__ = ["ModerationModel", "ModerationWire", "create"]


class ModerationWire(Wire):
    provider = "openai"
    key_variable = KEY_VARIABLE
    url_variable = "OPENAI_BASE_URL"

    def __init__(self, base_url: str, key: str) -> None:
        self.base_url = base_url.rstrip("/")
        self._key = key

    def url(self, model: str) -> str:
        return f"{self.base_url}/moderations"

    def endpoint(self, model: str) -> Endpoint:
        return Endpoint(self.base_url, "moderations")

    def headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self._key}"}

    def body(self, model: str, request: JudgeRequest) -> dict[str, Any]:
        return {"model": model, "input": [m.content for m in request.messages if m.role == "user"]}

    def parse(self, model: str, data: Mapping[str, Any]) -> JudgeReply:
        results = data.get("results")
        if not isinstance(results, list) or not all(
            isinstance(r, Mapping)
            and isinstance(r.get("flagged"), bool)
            and isinstance(r.get("category_scores"), Mapping)
            for r in results
        ):
            raise MalformedReplyError("reply has no results with flagged and category_scores")
        return JudgeReply(
            text=json.dumps(results), model=str(data.get("model") or model), usage=Usage(0, 0)
        )


class ModerationSdkTransport(OpenAISdkTransport):
    async def call(self, client: Any, model: str, body: dict[str, Any]) -> Posted:
        raw = await client.moderations.with_raw_response.create(**body)
        # By alias: the API's category names ("harassment/threatening"), not the SDK's.
        data: dict[str, Any] = raw.parse().model_dump(mode="json", by_alias=True)
        return posted(data, raw.headers.items())


class ModerationModel(OpenAIJudge):
    sdk = ModerationSdkTransport

    def price(self, reply: JudgeReply) -> float:
        return 0.0  # the moderation endpoint is free


def create(spec: str, *, transport: str | None = None) -> ModerationModel:
    """``openai-moderation/<model>``. Raises `MissingCredentialError` without OPENAI_API_KEY."""
    key = read_key("openai", KEY_VARIABLE)
    base_url = os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
    return ModerationModel(
        name=spec,
        model=spec.partition("/")[2],
        family="openai",
        wire=ModerationWire(base_url, key),
        key=key,
        base_url=base_url,
        transport=transport,
    )
