"""The judge-model seam: one abstract async method, and an overridable error classifier.

An adapter is a thin wire mapper. Retries, timeouts, rate limits, caching and fallback live
once, in the engine; an adapter never retries and never sleeps.
"""

from __future__ import annotations

import asyncio
import socket
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from .._errors import (
    InvalidRequestError,
    ProviderError,
    SettingRefusedError,
    TransientError,
    UnreachableError,
)
from ._account import ProviderLimits
from ._endpoint import Endpoint

if TYPE_CHECKING:
    from ._batch import BatchAPI
    from ._request import JudgeReply, JudgeRequest

__all__ = ["JudgeModel"]


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
    #: The model file the juror pins (the jury file's ``pinned``, set by the engine): an
    #: adapter that can tell which file its server serves checks it in `prepare`.
    pinned: str | None = None
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

    @property
    def endpoint(self) -> Endpoint:
        """Where this model's calls go and how (read-only): part of every call's cache key, so
        that a reply is reused only for a call to the same server, spoken to the same way.

        The default names the adapter's class (``adapter:package.module.Class``): enough for a
        model that answers in this process (offline jurors, replays, scripted models), whose
        replies depend on nothing else. An adapter that sends calls somewhere it is configured
        to (a base URL, a response format, a setting read from the environment) overrides it
        with the URL and those settings, or its replies would be reused across them."""
        kind = type(self)
        return Endpoint(f"adapter:{kind.__module__}.{kind.__qualname__}")

    async def prepare(self) -> None:  # noqa: B027 - optional hook, a no-op by default
        """Learn, once and before the first call, what `endpoint` and `default_limits` depend
        on that only the server can say (a local server's dialect, its slots, the file behind
        its model). The engine awaits it before its first cache lookup of this model, so that
        a reply is keyed by what was learned. It never raises for a server that does not
        answer: the first call then says what is wrong."""

    @property
    def learned(self) -> tuple[str, ...]:
        """What `prepare` found that the user should hear, one line each (a run prints them
        as notes and records them in its manifest); empty by default."""
        return ()

    @abstractmethod
    async def complete(self, request: JudgeRequest) -> JudgeReply:
        """Send one request and return the reply. Never retry here: the engine does."""

    def classify_error(self, exc: Exception) -> ProviderError:
        """Map a foreign exception to the project's error tree (one choke point per adapter).

        The default knows timeouts and connection errors (a connection never made is an
        `UnreachableError`); adapters add their SDK's tree.
        Anything unknown is not retried: retrying a bug only hides it.
        """
        if isinstance(exc, ProviderError):
            return exc
        if isinstance(exc, ConnectionRefusedError | socket.gaierror):
            return UnreachableError(f"{type(exc).__name__}: {exc}".rstrip(": "))
        if isinstance(exc, (TimeoutError, asyncio.TimeoutError, ConnectionError)):
            return TransientError(f"{type(exc).__name__}: {exc}".rstrip(": "))
        return InvalidRequestError(f"{type(exc).__name__}: {exc}")

    def fix_for(self, error: ProviderError) -> str:
        """What to change when this model's first calls fail for good with `error` (the run
        stops with `jury.JurorUnusable`, and says this). Adapters that know where their
        settings come from (a variable, a jury-file key) name it."""
        endpoint = self.endpoint
        return fix_for(error, endpoint.url, endpoint.variable)

    def price(self, reply: JudgeReply) -> float | None:
        """USD for one reply, or None when the price is unknown (never a guessed zero).

        Adapters of priced APIs answer from `jury.adapters.price`; the default knows nothing.
        """
        return None

    def batches(self) -> BatchAPI | None:
        """The model's provider batch API (see `jury.adapters.BatchAPI`), or None when it has
        none: then a batch run judges it online. What its provider's profile names
        (`jury.adapters.ModelProfile.batch`), asked each time; adapters that keep one open
        may hold on to it."""
        from ._profile import batch_api

        return batch_api(self)

    async def aclose(self) -> None:  # noqa: B027 - optional hook, a no-op by default
        """Release connections. The engine calls it once when a Jury is closed."""


def fix_for(error: ProviderError, url: str, variable: str | None = None) -> str:
    """The fix for a model whose first calls fail for good, by how they failed; `variable`
    is where its base URL is set, when the adapter knows."""
    where = f"the base URL ({variable}={url})" if variable else f"the base URL ({url})"
    if isinstance(error, SettingRefusedError):
        return error.fix or f"the server refuses `{error.setting}` as aiojury sends it"
    if isinstance(error, UnreachableError):
        return f"nothing answers at {url}: start the server, or correct {where}"
    if error.status in (404, 405):
        return (
            f"check the model name (the server lists what it serves at GET /models) and "
            f"{where} (an OpenAI-compatible server's usually ends in /v1)"
        )
    if error.status is not None and error.status >= 500:
        # It answered: the URL is not in question. Say what is known, not a guess at a cause.
        return (
            f"the server gives the same error to every attempt at {url}: it cannot handle this "
            "model or request (its words above say why), or it is failing; `jury doctor` asks it "
            "again, and a provider that is down can be tried again later (`--resume`)"
        )
    return f"the server gives the same error to every attempt: check {where}"
