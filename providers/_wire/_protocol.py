"""The wire-mapping seam: one provider's protocol (where a request goes, its body from a
`JudgeRequest`, its reply read into a `JudgeReply`, the provider's own error wording),
independent of how the bytes travel."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

from jury import ProviderError
from jury.adapters import Endpoint, JudgeReply, JudgeRequest

__all__ = ["Wire"]

_NO_LOGPROBS = (
    "set `logprobs = false` on this juror in the jury file (the server gives no log-probabilities)"
)
#: The jury-file keys that shape a refused field, whatever the provider.
_FIXES = {
    "logprobs": _NO_LOGPROBS,
    "top_logprobs": _NO_LOGPROBS,
    "reasoning_effort": "remove `effort` from this juror in the jury file",
    "seed": "set `samples = 1` on this juror (a seed is sent only to tell its samples apart)",
}


class Wire(ABC):
    """One provider's protocol, independent of how the bytes travel."""

    #: The provider prefix ("openai", "anthropic", "google", "openai-api/<service>"...).
    provider: str
    #: The variable that holds the key, named in authentication errors.
    key_variable: str
    #: The variable that sets the base URL, named in the fix for a server that cannot be
    #: reached or has no such model (None: the adapter has none).
    url_variable: str | None = None
    #: Whether the API's ``x-should-retry`` header is obeyed, as its SDK obeys it (`_hints`).
    retry_hints: bool = False

    @abstractmethod
    def url(self, model: str) -> str:
        """Where the direct transport POSTs a request for `model`."""

    def endpoint(self, model: str) -> Endpoint:
        """Where calls for `model` go and how (`jury.adapters.Endpoint`), in the call cache's
        key. By default the URL the direct transport posts to, under the provider's name; a
        wire whose settings shape the request body or the reading of its reply (a response
        format, a tokens field, a model family's thinking settings...) names each of them.
        The transport is not part of it: the direct and SDK transports send the same body
        (the contract tests compare them)."""
        return Endpoint(self.url(model), self.provider)

    @abstractmethod
    def headers(self) -> dict[str, str]:
        """The direct transport's headers, the credential included."""

    @abstractmethod
    def body(self, model: str, request: JudgeRequest) -> dict[str, Any]:
        """The JSON body of one call: exactly what the SDK transport sends too."""

    @abstractmethod
    def parse(self, model: str, data: Mapping[str, Any]) -> JudgeReply:
        """Read a reply body; raise `MalformedReplyError` when it breaks the protocol."""

    def fix(self, setting: str) -> str | None:
        """What to change so that a server that refused the request's `setting` by name takes
        it (`jury.adapters.SettingRefusedError`); None when no setting of aiojury's changes
        it. A wire whose settings come from its own variables adds those."""
        return _FIXES.get(setting)

    def error(
        self, status: int, body: Any, headers: Mapping[str, str] | None
    ) -> ProviderError | None:
        """The project error for an error reply this provider words in its own way (a quota
        that no retry clears, a delay given in the body); None for the usual mapping of
        `error_for_status`. `body` is the reply's JSON, or its text."""
        return None
