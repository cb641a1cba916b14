"""Test helpers, shipped as product: a fake provider server, a scripted judge, a fake clock.

Test your own harness against the real provider SDKs without a key or a network::

    from jury.testing import FakeProviderServer, Fault

    async def test_my_harness(monkeypatch):
        async with FakeProviderServer() as server:
            for name, value in server.env().items():
                monkeypatch.setenv(name, value)
            server.inject(Fault.http(429, retry_after=2), model="gpt-4.1-mini-2025-04-14")
            ...  # run your code; the SDKs now talk to 127.0.0.1
            assert server.requests[0].body["response_format"]["type"] == "json_schema"

`FakeProviderServer` speaks OpenAI Chat Completions (``POST /v1/chat/completions``), Anthropic
Messages (``POST /v1/messages``) and Gemini ``generateContent``
(``POST /v1beta/models/{model}:generateContent``, and Vertex AI's path) on 127.0.0.1 only.
It is strict by default: it refuses what the real APIs refuse, with their status and error
body, and answers their awkward cases as they do (``strict=False`` answers any body). Each
model answers a valid reply for the JSON schema its request carries, unless `script` says
otherwise (a reply, or a callable of the `LoggedRequest`). `inject` queues a `Fault` for the
next calls of one model or of all: an HTTP status with ``retry-after``/``retry-after-ms``,
latency, a hang, a dropped connection, a malformed body, a truncated reply, an out-of-range or
missing field, a used-up quota, an overload, a refusal, a safety filter, an empty reply.
`requests` logs every call (method, path, headers with credentials redacted, parsed body,
model, the status sent). ``rpm={"openai": 600}`` adds a per-provider rate limit that answers
429 with the delay where the provider puts it. ``python -m jury.testing --latency 0.1 --rpm
openai=600`` runs it on its own.

It serves the providers' batch APIs too: OpenAI Batch and Files, Anthropic Message Batches and
Gemini batch mode. Each request inside a batch gets what its online call would; a batch ends
``batch_delay`` seconds after it is created; ``server.batches.faults(errored=..., expired=...,
expire_batches=...)`` makes shares of requests error or expire; ``inject(..., model="batches")``
refuses batch creates; ``server.batched`` logs every request submitted inside a batch.

`ScriptedModel` is a judge without a server (replies from a list or a callable); `FakeClock`
makes the engine's retries and rate limits sleep without waiting::

    async with jury.Jury(panel, clock=FakeClock()) as j: ...
"""

from types import FunctionType
from typing import TYPE_CHECKING, Any

from .._clock import Clock, FakeClock
from ._faults import Fault, ScriptReply, retry_after_date, valid_reply
from ._log import LoggedRequest
from ._logprobs import Confident
from ._scripted import ScriptedModel

if TYPE_CHECKING:
    from ._server import FakeProviderServer

__all__ = [
    "Clock",
    "Confident",
    "FakeClock",
    "FakeProviderServer",
    "Fault",
    "LoggedRequest",
    "ScriptReply",
    "ScriptedModel",
    "retry_after_date",
    "valid_reply",
]


def __getattr__(name: str) -> Any:
    # The server needs aiohttp's web server: imported when first asked for, so that a test
    # (or a benchmark) that only needs `ScriptedModel` or `FakeClock` does not pay for it.
    if name == "FakeProviderServer":
        from ._server import FakeProviderServer

        FakeProviderServer.__module__ = __name__
        return FakeProviderServer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Each public name says where to import it from (jury.testing.X), not the private module that
# defines it: reprs, tracebacks and the API reference read the same door.
for _name in __all__:
    if _name == "FakeProviderServer":
        continue  # imported when first asked for (`__getattr__`), and said there
    if isinstance(_value := globals()[_name], type | FunctionType):
        _value.__module__ = __name__
del _name, _value
