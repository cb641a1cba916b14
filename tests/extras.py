"""What a test needs beyond ``pip install .`` and pytest's plugins: an optional extra of
pyproject.toml, said by the test (issue 33, item 7).

The suite itself needs pytest and the plugins its configuration names (pytest-timeout,
pytest-asyncio; hypothesis; anyio comes with the package's own dependencies). Everything else
is an extra: the provider SDKs (``anthropic``, ``openai``, ``google``), ``parquet``,
``datasets``, ``otel``, the other tools' own code (``tool-files``), and ``test``, the
independent implementations the statistics are checked against and the readers the tests use
(krippendorff, scikit-learn, statsmodels, xmlschema, PyYAML, sybil, websockets for the
browser, opentelemetry-sdk, hatchling for the wheel).

A test says what it needs with the ``extra`` marker: ``@needs("anthropic")`` on a test or a
module (``pytestmark``), ``sdk_params(*specs)`` for the cases of a test parametrized by
``provider/model`` that goes through each provider's SDK, and ``@needs_sdk("google")`` for a
test that needs an SDK only when its ``transport`` parameter is "sdk" (``needs_sdk()``: the
SDK of its ``spec`` parameter's provider); a test whose need is known only at run time calls
`require`.
A test module imports an extra's module inside the tests that use it (or for the type checker
only), so that collecting it needs nothing; a module that cannot be written without one at
its top (a parser class subclasses sybil's) calls `require` before importing it. When a module
of the extra cannot be imported the test is skipped, naming the extra and how to install it
(the conftest marks it at collection, `skip_missing`); with ``JURY_ALL_EXTRAS=1`` (set by
``.ci/run``, which installs every extra) the session stops instead, naming each such test
(and a test calling `require` fails), so that in CI nothing is skipped for a missing extra.
The real-server suite (tests/local_server) needs more than an extra (a model file), and says
so in its own conftest, failing likewise under ``JURY_REQUIRE_LOCAL_SERVER=1``.
"""

from __future__ import annotations

import functools
import importlib
import os

import pytest

__all__ = [
    "ALL_EXTRAS",
    "EXTRAS",
    "missing",
    "needs",
    "needs_sdk",
    "reason",
    "require",
    "required_by",
    "sdk",
    "sdk_params",
    "skip_missing",
]

#: Each extra, by the modules of it that tests import (the first that cannot be imported is
#: named in the skip).
EXTRAS: dict[str, tuple[str, ...]] = {
    "anthropic": ("anthropic",),
    "openai": ("openai",),
    "google": ("google.genai",),
    "parquet": ("pyarrow", "pyarrow.parquet"),
    "datasets": ("datasets",),
    "otel": ("opentelemetry.trace",),
    "tool-files": (
        "braintrust",
        "langsmith",
        "mlflow",
        "httpx",
        "opentelemetry.instrumentation.openai_v2",
        "opentelemetry.util.genai",
        "opentelemetry.exporter.otlp.json.file",
    ),
    "test": (
        "krippendorff",
        "sklearn",
        "statsmodels",
        "xmlschema",
        "yaml",
        "sybil",
        "websockets",
        "opentelemetry.sdk",
        "hatchling",
    ),
}

#: The variable that turns a missing extra into a failure (`.ci/run` sets it).
ALL_EXTRAS = "JURY_ALL_EXTRAS"


@functools.cache
def missing(extra: str) -> str | None:
    """The first module of `extra` that cannot be imported, or None when all can."""
    for module in EXTRAS[extra]:
        try:
            importlib.import_module(module)
        except ImportError:
            return module
    return None


def _known(extra: str) -> None:
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}: one of {', '.join(EXTRAS)}")


def reason(extra: str) -> str | None:
    """Why a test that needs `extra` cannot run (naming the extra and how to install it), or
    None when it is installed."""
    _known(extra)
    module = missing(extra)
    if module is None:
        return None
    return (
        f"needs the extra aiojury[{extra}] ({module} is not installed): "
        f"pip install 'aiojury[{extra}]'"
    )


def every_extra_installed() -> bool:
    """Whether ``JURY_ALL_EXTRAS=1`` says every extra is installed (as in CI)."""
    return os.environ.get(ALL_EXTRAS) == "1"


def require(*extras: str) -> None:
    """Skip the running test (fail it under ``JURY_ALL_EXTRAS=1``) when one of `extras` is
    not installed, naming it."""
    for extra in extras:
        why = reason(extra)
        if why is None:
            continue
        if every_extra_installed():
            pytest.fail(f"{why}; {ALL_EXTRAS}=1 says every extra is installed")
        pytest.skip(why, allow_module_level=True)


def skip_missing(items: list[pytest.Item]) -> None:
    """Mark each collected test whose ``extra`` markers ask for an extra that is not installed
    skipped, naming the extra; under ``JURY_ALL_EXTRAS=1``, stop the session instead, naming
    every such test."""
    refused: list[str] = []
    for item in items:
        why = next(filter(None, map(reason, required_by(item))), None)
        if why is None:
            continue
        if every_extra_installed():
            refused.append(f"{item.nodeid}: {why}")
        else:
            item.add_marker(pytest.mark.skip(reason=why))
    if refused:
        raise pytest.UsageError(
            f"{ALL_EXTRAS}=1 says every extra is installed, but:\n" + "\n".join(refused)
        )


def needs(*extras: str) -> pytest.MarkDecorator:
    """The marker of a test that needs `extras` (read when the suite is collected)."""
    for extra in extras:
        _known(extra)
    return pytest.mark.extra(*extras)


def needs_sdk(*extras: str) -> pytest.MarkDecorator:
    """The marker of a test that needs `extras` (none: the SDK of its ``spec`` parameter's
    provider) only when its ``transport`` parameter is "sdk"."""
    for extra in extras:
        _known(extra)
    return pytest.mark.extra(*extras, transport="sdk")


def required_by(item: pytest.Item) -> list[str]:
    """The extras the ``extra`` markers of a collected test ask for, with its parameters."""
    callspec = getattr(item, "callspec", None)
    params: dict[str, object] = callspec.params if callspec is not None else {}
    found: list[str] = []
    for mark in item.iter_markers("extra"):
        transport = mark.kwargs.get("transport")
        if transport is not None and params.get("transport") != transport:
            continue
        if mark.args:
            found += mark.args
        elif isinstance(spec := params.get("spec"), str):
            found.append(sdk(spec))
        else:
            raise ValueError(f"{item.nodeid}: needs_sdk() without a spec parameter names no SDK")
    return found


def sdk_params(*specs: str) -> list[object]:
    """`specs` as parameters of a test that calls each through its provider's SDK."""
    return [pytest.param(spec, marks=needs(sdk(spec))) for spec in specs]


def sdk(spec: str) -> str:
    """The extra whose SDK the ``provider/model`` `spec` is called through on the SDK
    transport."""
    prefix = spec.partition("/")[0]
    if prefix in ("anthropic", "google"):
        return prefix
    return "openai"  # openai, openai-moderation and the OpenAI-compatible servers
