"""The server's own word on retrying: ``x-should-retry``.

The anthropic and openai SDKs obey it before any rule of their own: "If the server
explicitly says whether or not to retry, obey" (``_base_client.py``, ``_should_retry``, in
both SDKs): ``true`` retries whatever the status, ``false`` never retries. Their adapters
honour it the same way, on both transports (the SDK transport runs with its own retries
off, so the engine's retry is the only one). A stop of the account (a refused key, a quota)
still stops the run: the header says whether one call may be tried again, not whether the
account can serve.
"""

from __future__ import annotations

from collections.abc import Mapping

from jury import AccountError, ProviderError
from jury.adapters import InvalidRequestError, TransientError

__all__ = ["honour_should_retry"]


def honour_should_retry(error: ProviderError, headers: Mapping[str, str] | None) -> ProviderError:
    """`error` as the reply's ``x-should-retry`` header makes it: retried when it says
    ``true``, never retried when it says ``false``, as it was when it says neither."""
    if headers is None or isinstance(error, AccountError):
        return error
    hint = str(headers.get("x-should-retry") or "").strip().lower()
    if hint == "false" and isinstance(error, TransientError):
        return InvalidRequestError(
            f"{error} (not retried: the server said x-should-retry: false)", status=error.status
        )
    if hint == "true" and isinstance(error, InvalidRequestError):
        return TransientError(
            f"{error} (retried: the server said x-should-retry: true)", status=error.status
        )
    return error
