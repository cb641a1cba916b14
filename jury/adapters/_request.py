"""What crosses the judge-model seam for one call: the request (`JudgeRequest`, its `Message`
turns), the reply (`JudgeReply`, its `Usage`, why it ended: `Finish`), and the content address
of a call (`call_key`: the endpoint, the model and the request) under which a `CallCache` keeps
its reply."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ..cases._images import Image
from ._endpoint import Endpoint

if TYPE_CHECKING:
    from ..cases._case import Case
    from ._rubric import Rubric

__all__ = [
    "CallCache",
    "Finish",
    "Image",
    "JudgeReply",
    "JudgeRequest",
    "Message",
    "TokenLogprob",
    "Usage",
    "call_key",
    "fake_key",
]

#: How many alternatives per token a judge is asked for when its juror asks for
#: log-probabilities: OpenAI's ``top_logprobs`` takes 0 to 20 (API reference, Chat
#: Completions), Gemini's ``logprobs`` 1 to 20 (google-genai ``GenerateContentConfig``).
TOP_LOGPROBS = 5


@dataclass(frozen=True, slots=True)
class Message:
    """One turn of the conversation with a judge: its text and the images that go with it.

    The text marks each image where it was in the case (``[image 1]``); `images` are those
    images in their order, and an adapter sends them in its protocol's shape, each after a
    text naming it (so that ``image 1`` is the first). Only a judge whose model takes images
    is sent any (`jury.adapters.images_refusal`)."""

    role: Literal["user", "assistant"]
    content: str
    images: tuple[Image, ...] = ()


@dataclass(slots=True)
class JudgeRequest:
    """Everything a judge is sent for one call. Adapters read it and never change it (it is
    not frozen only because a frozen dataclass costs three times as much to build, once per
    call).

    `system` is the static part (rubric and instructions), first so that providers' prompt
    caches apply; the case is in the last user message. `schema` is the JSON schema of the
    expected reply, for providers that can enforce it.
    """

    system: str
    messages: tuple[Message, ...]
    schema: dict[str, Any]
    schema_name: str = "verdict"
    temperature: float | None = 0.0
    max_tokens: int = 1024
    seed: int | None = None
    #: How hard a thinking model is to think ("low", "high"...), as the juror set it; None
    #: leaves it to the adapter, which picks per model family.
    effort: str | None = None
    #: The fields below travel with the request but are never sent: offline reference
    #: jurors read the case and ask the rubric for their reply, and replayed jurors look up
    #: the recorded reply.
    case: Case | None = field(default=None, compare=False, repr=False)
    rubric: Rubric | None = field(default=None, compare=False, repr=False)
    #: Which of the rubric's prompts this is (pairwise asks "AB" and "BA"), and the sample.
    prompt: str = field(default="", compare=False)
    sample: int = field(default=0, compare=False)
    #: Ask for the reply's token log-probabilities (the juror's ``logprobs = true``); never
    #: set for a model whose provider's profile says it gives none
    #: (`jury.adapters.ModelProfile.logprobs`: the panel warns at load instead). An adapter
    #: whose model cannot give them anyway does not send the ask.
    logprobs: bool = False
    #: The most characters a free-text field of the reply may hold, for a server that holds
    #: a schema with a grammar (the juror's ``reason_length``); None: the adapter's default.
    text_limit: int | None = None

    @property
    def user(self) -> str:
        """The text of the last user message (the rendered case)."""
        for message in reversed(self.messages):
            if message.role == "user":
                return message.content
        return ""


# Usage and JudgeReply are made once per call: plain (not frozen) dataclasses cost a third
# as much to build. Treat them as read-only.
@dataclass(slots=True)
class Usage:
    """Tokens a call used. `cached_tokens` is the part of `input_tokens` read from a cache,
    `cache_write_tokens` the part written to it (priced higher than plain input by some
    providers); `thinking_tokens` the part of `output_tokens` the model spent thinking."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    thinking_tokens: int = 0


#: Why a reply ended, in the provider's terms mapped to the engine's: "stop" (the model
#: finished), "length" (cut off at the output limit, thinking included), "refusal" (the model
#: declined to answer), "filtered" (the provider's safety filter blocked the prompt or reply).
Finish = Literal["stop", "length", "refusal", "filtered"]


@dataclass(slots=True)
class JudgeReply:
    """What a judge sent back.

    `parsed` is set when the provider enforced the schema and returned an object; the engine
    validates it exactly as it validates `text`. `finish` says why the reply ended, when the
    provider says (a reply cut off, refused or filtered is an invalid vote with that reason).
    `rate_limits` holds the rate-limit headers of the reply (``x-ratelimit-*``,
    ``anthropic-ratelimit-*``), from which the account limiter learns the account's rate.
    `batch` names the provider batch that served it (None for an online call): it is priced
    at the batch rate and reported as batched.
    """

    text: str
    model: str
    usage: Usage = field(default_factory=Usage)
    parsed: Any = None
    finish: Finish | None = None
    rate_limits: Mapping[str, str] | None = None
    batch: str | None = None
    #: In a batch run: how many times its request was sent (into batches, the last online
    #: under ``batch_fallback = "online"``); the last answered it, the others expired or
    #: errored. Each was an attempt, and is counted so.
    sends: int = 1
    #: The reply's tokens with their log-probabilities, when they were asked for and the
    #: provider gave them (None otherwise); their texts, joined, are the reply's text.
    logprobs: tuple[TokenLogprob, ...] | None = None
    #: The reply came from `jury.testing`'s fake provider server (it sent `FAKE_HEADER`): not
    #: a real judge's, priced $0, labelled FAKE in every output, and never served from the
    #: cache to a server that has not shown it is the fake too.
    fake: bool = False


@dataclass(frozen=True, slots=True)
class TokenLogprob:
    """One token of a reply: its text, its natural-log probability, and the most likely
    alternatives the provider listed at that position (``(text, logprob)``, best first)."""

    token: str
    logprob: float
    top: tuple[tuple[str, float], ...] = ()


_KEY_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode
#: What `call_key` writes out for a rubric's schema (by identity: a rubric sends one schema
#: object with every call) and its system text: the same with every call, and writing them
#: out was most of a key's cost.
_SCHEMAS: dict[int, tuple[dict[str, Any], str]] = {}
_SYSTEMS: dict[str, str] = {}
_KEPT = 64


def _schema_json(schema: dict[str, Any]) -> str:
    entry = _SCHEMAS.get(id(schema))
    if entry is None or entry[0] is not schema:
        if len(_SCHEMAS) >= _KEPT:
            _SCHEMAS.clear()
        entry = _SCHEMAS[id(schema)] = (schema, _KEY_JSON(schema))
    return entry[1]


def _system_json(system: str) -> str:
    written = _SYSTEMS.get(system)
    if written is None:
        if len(_SYSTEMS) >= _KEPT:
            _SYSTEMS.clear()
        written = _SYSTEMS[system] = _KEY_JSON(system)
    return written


#: By identity too: a caller sends one endpoint object with every call.
_ENDPOINTS: dict[int, tuple[Endpoint, str]] = {}


def _endpoint_json(endpoint: Endpoint) -> str:
    entry = _ENDPOINTS.get(id(endpoint))
    if entry is None or entry[0] is not endpoint:
        if len(_ENDPOINTS) >= _KEPT:
            _ENDPOINTS.clear()
        entry = _ENDPOINTS[id(endpoint)] = (endpoint, _KEY_JSON([endpoint.url, endpoint.wire]))
    return entry[1]


def call_key(model: str, request: JudgeRequest, sample: int, *, endpoint: Endpoint) -> str:
    """The content address of one judge call: where it goes and how (`endpoint`), the model,
    the exact request, the sample index.

    Two calls with the same key would be sent the same bytes by the same server, so one reply
    serves both. The address hashes one JSON array of those fields (sorted keys, no spaces);
    it is written piece by piece, the endpoint, the system text and the schema from memos,
    which gives the very same text.
    """
    # An image counts by its content's digest, and only where there is one: a changed image
    # is a new call.
    messages = _KEY_JSON(
        [
            [m.role, m.content, [i.digest for i in m.images]] if m.images else [m.role, m.content]
            for m in request.messages
        ]
    )
    fields: list[Any] = [
        request.schema_name,
        request.temperature,
        request.max_tokens,
        request.seed,
        sample,
    ]
    if request.effort is not None:
        fields.append(request.effort)
    if request.logprobs:
        # A reply without log-probabilities cannot serve a call that wants them.
        fields.append("logprobs")
    if request.text_limit is not None:
        fields.append(f"text_limit={request.text_limit}")
    tail = _KEY_JSON(fields)
    payload = (
        f"[{_endpoint_json(endpoint)},{_KEY_JSON(model)},{_system_json(request.system)},"
        f"{messages},{_schema_json(request.schema)},{tail[1:]}"
    )
    return hashlib.sha256(payload.encode()).hexdigest()


def fake_key(key: str) -> str:
    """Where a reply from `jury.testing`'s fake is kept for the call of address `key`: apart
    from real replies, so that a real server's reply is never hidden behind the fake's, and the
    fake's is looked up only where the server has shown it is the fake (`JudgeReply.fake`)."""
    return f"{key}:fake"


class CallCache(Protocol):
    """Where judge replies are kept by `call_key`, so that no call is paid for twice."""

    async def get(self, key: str) -> JudgeReply | None: ...

    async def put(self, key: str, model: str, request: JudgeRequest, reply: JudgeReply) -> None: ...
