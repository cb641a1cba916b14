"""Every exception class each installed SDK defines maps to a project error, at the
adapter's one choke point, by the rule docs/architecture.md draws (status first, then kind)."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from extras import needs
from provider_helpers import ANTHROPIC, GOOGLE, OPENAI

from jury import AuthenticationError, ProviderError
from jury.adapters import InvalidRequestError, RateLimitedError, TransientError
from jury.providers._wire import WireModel

REQUEST = httpx2.Request("POST", "http://127.0.0.1:9/v1/messages")


def _subclasses(base: type[Any]) -> Iterator[type[Any]]:
    for sub in base.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def sdk_exceptions(package: str, modules: tuple[str, ...], base: str) -> list[type[Any]]:
    """Every subclass of the SDK's base error defined anywhere in the SDK, after importing
    its exception modules (the anthropic one imports every typed error class)."""
    root = importlib.import_module(package)
    for module in modules:
        importlib.import_module(module)
    base_class = getattr(root, base)
    found = {base_class, *_subclasses(base_class)}
    return sorted(
        (c for c in found if c.__module__.startswith(package)), key=lambda c: c.__qualname__
    )


def expected(status: int) -> type[ProviderError]:
    if status == 429:
        return RateLimitedError
    if status in (408, 409, 425) or status >= 500:
        return TransientError
    if status in (401, 403):
        return AuthenticationError
    return InvalidRequestError


def response(status: int, headers: dict[str, str] | None = None) -> httpx2.Response:
    return httpx2.Response(status, headers=headers or {}, request=REQUEST)


def status_map(make: Any, known: dict[type, int]) -> dict[type, int]:
    """Which status each status-error class stands for, from the SDK's own factory."""
    mapping = dict(known)
    for status in [*range(400, 452), *range(499, 600)]:
        cls = type(make("m", body=None, response=response(status)))
        mapping.setdefault(cls, status)
    return mapping


def status_of(cls: type, mapping: dict[type, int]) -> int:
    for klass in cls.__mro__:
        literal = getattr(klass, "status_code", None)
        if isinstance(literal, int):
            return literal
        if klass in mapping:
            return mapping[klass]
    raise AssertionError(f"no status for {cls}")


def build(
    cls: type[Any],
    status_base: type[Any],
    validation: type[Any],
    connection: type[Any],
    status: int,
) -> Any:
    if issubclass(cls, status_base):
        headers = {"retry-after": "3"} if status == 429 else {}
        try:
            return cls("m", response=response(status, headers), body=None)
        except TypeError:  # a class that words its own message (openai's OAuthError)
            return cls(response=response(status, headers), body=None)
    if issubclass(cls, validation):
        return cls(response=response(200), body=None)
    if issubclass(cls, connection):
        return cls(request=REQUEST)
    try:
        return cls("something went wrong")
    except TypeError:
        # A class whose constructor wants SDK objects: build it bare, as pickling would.
        exc: Exception = Exception.__new__(cls)
        Exception.__init__(exc, "something went wrong")
        return exc


def check(model: WireModel, exc: Exception, status: int | None) -> ProviderError:
    error: ProviderError | None = model.classify_sdk_error(exc)
    assert error is not None, f"{type(exc).__qualname__} is not mapped"
    assert model.classify_error(exc) is not None
    if status is not None:
        assert isinstance(error, expected(status)), (type(exc), status, type(error))
        if status == 429:
            assert isinstance(error, RateLimitedError)
            assert error.retry_after == 3.0
        if isinstance(error, AuthenticationError):
            assert error.variable == model.wire.key_variable
    return error


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k-anthropic-0123456789")
    monkeypatch.setenv("OPENAI_API_KEY", "k-openai-0123456789")
    monkeypatch.setenv("GOOGLE_API_KEY", "k-google-0123456789")
    monkeypatch.setenv("JURY_TRANSPORT", "sdk")


@needs("anthropic")
def test_every_anthropic_exception_maps_to_a_project_error() -> None:
    import anthropic
    from anthropic._error_classes import ERROR_CLASSES, make_status_error

    from jury.providers.anthropic import create

    model = create(ANTHROPIC)
    classes = sdk_exceptions(
        "anthropic", ("anthropic._exceptions", "anthropic._error_classes"), "AnthropicError"
    )
    # The typed error classes alone are dozens: the walk found them.
    assert len(classes) > 60
    known = {cls: status for (status, _code), cls in ERROR_CLASSES.items()}
    mapping = status_map(make_status_error, known)
    for cls in classes:
        status = (
            status_of(cls, mapping)
            if issubclass(cls, anthropic.APIStatusError) and cls is not anthropic.APIStatusError
            else None
        )
        exc = build(
            cls,
            anthropic.APIStatusError,
            anthropic.APIResponseValidationError,
            anthropic.APIConnectionError,
            status or 400,
        )
        error = check(model, exc, status)
        if issubclass(cls, anthropic.APIConnectionError):
            assert isinstance(error, TransientError)


@needs("openai")
def test_every_openai_exception_maps_to_a_project_error() -> None:
    import openai

    from jury.providers.openai import create

    model = create(OPENAI)
    classes = sdk_exceptions("openai", ("openai._exceptions",), "OpenAIError")
    assert {c.__name__ for c in classes} >= set(openai._exceptions.__all__) - {
        "InvalidWebhookSignatureError"  # a ValueError raised by webhook helpers only
    }
    client = openai.OpenAI(api_key="k", base_url="http://127.0.0.1:9")
    try:
        mapping = status_map(client._make_status_error, {})
    finally:
        client.close()
    for cls in classes:
        status = (
            status_of(cls, mapping)
            if issubclass(cls, openai.APIStatusError) and cls is not openai.APIStatusError
            else None
        )
        exc = build(
            cls,
            openai.APIStatusError,
            openai.APIResponseValidationError,
            openai.APIConnectionError,
            status or 400,
        )
        error = check(model, exc, status)
        if issubclass(cls, openai.APIConnectionError):
            assert isinstance(error, TransientError)


@needs("google")
def test_every_google_genai_exception_maps_to_a_project_error() -> None:
    from google.genai import errors

    from jury.providers.google import create

    model = create(GOOGLE)
    classes = [
        cls
        for _, cls in inspect.getmembers(errors, inspect.isclass)
        if issubclass(cls, Exception) and cls.__module__ == errors.__name__
    ]
    assert errors.ClientError in classes
    assert errors.ServerError in classes
    for cls in classes:
        if issubclass(cls, errors.APIError):
            if cls is errors.ClientError:
                statuses = [400, 401, 403, 404, 408, 409, 422, 429]
            elif cls is errors.ServerError:
                statuses = [500, 503, 504]
            else:
                statuses = [400, 429, 503]
            for status in statuses:
                body = {"error": {"code": status, "message": "m", "status": "X"}}
                headers = {"retry-after": "3"} if status == 429 else {}
                exc: Exception = cls(status, body, response(status, headers))
                check(model, exc, status)
        else:
            error = check(model, build(cls, type(None), type(None), type(None), 0), None)
            assert isinstance(error, InvalidRequestError)
