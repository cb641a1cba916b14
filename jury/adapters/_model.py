"""The judge-model seam: one abstract async method, and an overridable error classifier.

An adapter is a thin wire mapper. Retries, timeouts, rate limits, caching and fallback live
once, in the engine; an adapter never retries and never sleeps.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from .._errors import InvalidRequestError, ProviderError, TransientError
from ..engine._limits import ProviderLimits

if TYPE_CHECKING:
    from ..cases._case import Case
    from ._batch import BatchAPI
    from ._rubric import Rubric

__all__ = [
    "CallCache",
    "Finish",
    "JudgeModel",
    "JudgeReply",
    "JudgeRequest",
    "Message",
    "Usage",
    "call_key",
]


@dataclass(frozen=True, slots=True)
class Message:
    """One turn of the conversation with a judge."""

    role: Literal["user", "assistant"]
    content: str


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
    #: The fields below travel with the request but are never sent: offline reference
    #: jurors read the case and ask the rubric for their reply, and replayed jurors look up
    #: the recorded reply.
    case: Case | None = field(default=None, compare=False, repr=False)
    rubric: Rubric | None = field(default=None, compare=False, repr=False)
    #: Which of the rubric's prompts this is (pairwise asks "AB" and "BA"), and the sample.
    prompt: str = field(default="", compare=False)
    sample: int = field(default=0, compare=False)

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


class JudgeModel(ABC):
    """A judge model. Subclasses implement `complete` and may refine `classify_error`.

    `name` is the ``provider/model`` string; `family` is the model family used for the
    panel's diversity rules ("anthropic", "openai", "google", "llama", "offline"...);
    `account` groups models that share one rate limit (one API key on one base URL), and
    `default_limits` and `limit_names` say how that account is limited.
    """

    name: str = "model"
    family: str = "unknown"
    #: True for jurors that are not LLMs (offline heuristics, replayed records): every
    #: output labels their results.
    offline: bool = False
    #: The account's limits where the jury file sets none (it overrides them key by key).
    #: Adapters set calls in flight; request and token rates depend on the account's tier,
    #: which only its owner knows, so they stay unset and the limiter backs off on 429s.
    default_limits: ProviderLimits = ProviderLimits()

    @property
    def account(self) -> str:
        return self.name.split("/", 1)[0]

    @property
    def limit_names(self) -> tuple[str, ...]:
        """The jury file's ``[providers.<name>]`` keys that configure this model's account,
        most specific first. By default the account, then the provider prefix."""
        return tuple(dict.fromkeys((self.account, self.name.split("/", 1)[0])))

    @property
    def model_id(self) -> str:
        """The model's ID as its provider knows it (what price lookups use)."""
        return self.name.split("/", 1)[-1]

    @abstractmethod
    async def complete(self, request: JudgeRequest) -> JudgeReply:
        """Send one request and return the reply. Never retry here: the engine does."""

    def classify_error(self, exc: Exception) -> ProviderError:
        """Map a foreign exception to the project's error tree (one choke point per adapter).

        The default knows timeouts and connection errors; adapters add their SDK's tree.
        Anything unknown is not retried: retrying a bug only hides it.
        """
        if isinstance(exc, ProviderError):
            return exc
        if isinstance(exc, (TimeoutError, asyncio.TimeoutError, ConnectionError)):
            return TransientError(f"{type(exc).__name__}: {exc}".rstrip(": "))
        return InvalidRequestError(f"{type(exc).__name__}: {exc}")

    def price(self, reply: JudgeReply) -> float | None:
        """USD for one reply, or None when the price is unknown (never a guessed zero).

        Adapters of priced APIs answer from `jury.adapters.price`; the default knows nothing.
        """
        return None

    def batches(self) -> BatchAPI | None:
        """The model's provider batch API (see `jury.adapters.BatchAPI`), or None when it has
        none: then a batch run judges it online."""
        return None

    async def aclose(self) -> None:  # noqa: B027 - optional hook, a no-op by default
        """Release connections. The engine calls it once when a Jury is closed."""


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


def call_key(model: str, request: JudgeRequest, sample: int) -> str:
    """The content address of one judge call: the model, the exact request, the sample index.

    Two calls with the same key would be sent the same bytes, so one reply serves both. The
    address hashes one JSON array of those fields (sorted keys, no spaces); it is written
    piece by piece, the schema from a memo, which gives the very same text.
    """
    messages = _KEY_JSON([[m.role, m.content] for m in request.messages])
    tail = _KEY_JSON(
        [request.schema_name, request.temperature, request.max_tokens, request.seed, sample]
    )
    payload = (
        f"[{_KEY_JSON(model)},{_system_json(request.system)},{messages},"
        f"{_schema_json(request.schema)},{tail[1:]}"
    )
    return hashlib.sha256(payload.encode()).hexdigest()


class CallCache(Protocol):
    """Where judge replies are kept by `call_key`, so that no call is paid for twice."""

    async def get(self, key: str) -> JudgeReply | None: ...

    async def put(self, key: str, model: str, request: JudgeRequest, reply: JudgeReply) -> None: ...
