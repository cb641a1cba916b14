"""What a provider's models can do, declared once (`ModelProfile`), and the table of providers.

The built-in providers declare theirs in `jury.providers.BUILTIN`, an outside one with
`jury.adapters.register_provider`: one type and one table, so that the engine, the panel's
warnings and the batch runner hold every adapter to the same rules (DESIGN 14). This module
imports no judge model (`JudgeModel.batches` reads the table through it); the registry
resolves ``provider/model`` strings over the same table.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any, Literal

from ._account import ModelStatus

if TYPE_CHECKING:
    from ._batch import BatchAPI

__all__ = [
    "Lifecycle",
    "ModelProfile",
    "StructuredOutput",
    "batch_api",
    "factories",
    "profile_of",
    "resolved",
    "set_provider",
]

#: How a model's reply is held to the rubric's JSON schema: by the provider, to the schema
#: (``json_schema``: OpenAI's strict structured outputs, Anthropic's ``output_config``,
#: Gemini's ``responseJsonSchema``); by the provider, to any JSON object (``json_object``);
#: or only by the prompt (``none``). aiojury validates every reply whatever the answer.
StructuredOutput = Literal["json_schema", "json_object", "none"]
STRUCTURED_OUTPUTS: tuple[StructuredOutput, ...] = ("json_schema", "json_object", "none")

#: What a provider knows of a model's lifecycle: (model ID, the day) -> its status, or None.
Lifecycle = Callable[[str, date], ModelStatus | None]

#: Why a model lacks something (a model ID -> the reason, or None when it has it).
Refusal = Callable[[str], str | None]


@dataclass(frozen=True, slots=True)
class ModelProfile:
    """What the models of one provider can do: given to `jury.adapters.register_provider`
    with the provider's factory, as the built-in providers give theirs. The engine, the
    panel's warnings and the batch runner read it, and hold an outside adapter to the same
    rules as the built-in ones.

    Each field that depends on the model is a function of the model's ID (what follows
    ``provider/``), or a ``"module:function"`` string naming one, imported the first time it
    is asked for (so that a profile costs no import of an SDK).

    - `family`: the family of every model the provider serves ("acme"), for the panel's
      warnings about jurors of one family and jurors of the family under test; or a function
      of the model ID giving the family its user named, or None (a local server's
      ``<SERVICE>_FAMILY``); None, or a function's None: each model's name tells (``llama``
      is meta, ``qwen`` is qwen: `jury.adapters.family_of`).
    - `images`: which models are sent a case's images. True: all; False (the default): none,
      and a juror whose model takes none abstains on a case with images, saying why; or a
      function of the model ID giving why a model takes none (None when it takes them). A
      juror's ``images = true`` or ``false`` in the jury file overrides it.
    - `logprobs`: which models give token log-probabilities (a juror's ``logprobs = true``),
      in the same forms. A juror asking a model that gives none is warned about when the
      panel loads, and the adapter is expected not to send the ask
      (`jury.adapters.JudgeRequest.logprobs`); a reply's `JudgeReply.logprobs` give its vote
      a probability.
    - `structured_output`: how the models' replies are held to the rubric's schema:
      "json_schema", "json_object" or "none" (the default: the prompt alone asks for the
      JSON), or a function of the model ID giving one. `jury doctor` shows it beside what the
      reply did; every reply is validated whatever it is.
    - `batch`: the provider's batch API: a function of the `JudgeModel` (as the factory made
      it) returning its `jury.adapters.BatchAPI`, or None for a model that has none. None
      (the default): the provider has no batch API, and a batch run judges its models online
      and says so. It is called when a run needs the model's batch API (pricing it and
      running it may each call it): build connections lazily, and close them in
      `BatchAPI.aclose`.
    - `lifecycle`: (model ID, day) -> the model's `jury.adapters.ModelStatus`, or None when
      unknown. A deprecated model is warned about, a retired one refused before anything is
      paid (unless the jury file allows it), a model the table does not know named once.
      None: the provider keeps no lifecycle table.
    - `effort`: (model ID, a juror's ``effort``) -> why the model does not take it, or None
      when it does; a juror whose model does not take its effort is refused when the panel
      loads. None: not checked (the adapter decides).
    - `output_room`: (model ID, the juror's effort or None) -> the output tokens the adapter
      adds to a juror's ``max_tokens`` for the model's thinking, which `jury estimate`
      counts. None: it adds none.
    - `grammar`: whether the provider's servers hold a reply's schema with a grammar, a
      string's ``maxLength`` included (llama.cpp, vLLM's guided decoding): then a juror's
      ``reason_length`` is sent (`JudgeRequest.text_limit`); else it is refused at load.
    - `model_files`: whether the provider's models are files its server can name: then a
      juror may be ``pinned`` to one (`JudgeModel.pinned`, checked by the adapter in
      `JudgeModel.prepare`); else it is refused at load (a hosted model is pinned by a dated
      ID).
    """

    family: str | Callable[[str], str | None] | None = None
    images: bool | str | Refusal = False
    logprobs: bool | str | Refusal = False
    structured_output: StructuredOutput | str | Callable[[str], StructuredOutput] = "none"
    # The model's own class, not `JudgeModel`: a factory typed with its adapter's class
    # (`def batches(model: AcmeJudge)`) is not a function of every judge model.
    batch: str | Callable[[Any], BatchAPI | None] | None = None
    lifecycle: str | Lifecycle | None = None
    effort: str | Callable[[str, str], str | None] | None = None
    output_room: str | Callable[[str, str | None], int] | None = None
    grammar: bool = False
    model_files: bool = False

    def __post_init__(self) -> None:
        family = self.family
        if (
            family is not None
            and not callable(family)
            and (not isinstance(family, str) or not family)
        ):
            raise ValueError(
                f"family: expected a name, a function of the model ID or None, got {family!r}"
            )
        output = self.structured_output
        if isinstance(output, str) and output not in STRUCTURED_OUTPUTS and ":" not in output:
            raise ValueError(
                "structured_output: expected one of json_schema, json_object, none, or a "
                f"function of the model ID, got {output!r}"
            )
        for name in ("images", "logprobs", "batch", "lifecycle", "effort", "output_room"):
            value = getattr(self, name)
            if isinstance(value, str) and not _is_target(value):
                raise ValueError(f"{name}: expected 'module:function', got {value!r}")


def _is_target(value: str) -> bool:
    module, sep, attr = value.partition(":")
    return bool(module and sep and attr)


#: "module:function" targets already imported (a profile is frozen: it keeps the string).
_IMPORTED: dict[str, Any] = {}


def resolved(target: Any) -> Any:
    """A profile's field as a value: a ``"module:function"`` string imported (once), any
    other value as it is."""
    if not isinstance(target, str) or not _is_target(target):
        return target
    found = _IMPORTED.get(target)
    if found is None:
        module, _, attr = target.partition(":")
        found = _IMPORTED[target] = getattr(importlib.import_module(module), attr)
    return found


#: The package whose table of built-in providers (`BUILTIN`: prefix -> (factory, profile))
#: is read on first use: the engine names no provider itself.
PROVIDERS_PACKAGE = "jury.providers"

# Providers by the prefix before the first "/": the factory of a model from its
# ``provider/model`` string ("module:callable" until first used; typed loosely here, where no
# judge model is imported, and checked where models are made), and the provider's profile.
_FACTORIES: dict[str, str | Callable[[str], Any]] = {}
_PROFILES: dict[str, ModelProfile] = {}
_loaded: list[bool] = []


def _builtins() -> None:
    if not _loaded:
        _loaded.append(True)
        package = importlib.import_module(PROVIDERS_PACKAGE)
        table: dict[str, tuple[str, ModelProfile]] = getattr(package, "BUILTIN", {})
        for prefix, (factory, profile) in table.items():
            _FACTORIES.setdefault(prefix, factory)
            _PROFILES.setdefault(prefix, profile)


def factories() -> dict[str, str | Callable[[str], Any]]:
    """Every provider's factory, by prefix (the built-ins read on first use)."""
    _builtins()
    return _FACTORIES


def set_provider(prefix: str, factory: str | Callable[[str], Any], profile: ModelProfile) -> None:
    """Make `prefix` a provider, replacing what it was."""
    factories()[prefix] = factory
    _PROFILES[prefix] = profile


def profile_of(spec: str) -> ModelProfile | None:
    """The profile of the provider of ``provider/model`` (or of a bare prefix); None when no
    provider of that prefix is known."""
    _builtins()
    return _PROFILES.get(spec.partition("/")[0])


def batch_api(model: Any) -> BatchAPI | None:
    """The batch API the profile of `model`'s provider names for it (`ModelProfile.batch`),
    or None when it names none."""
    profile = profile_of(model.name)
    if profile is None or profile.batch is None:
        return None
    make: Callable[[Any], BatchAPI | None] = resolved(profile.batch)
    return make(model)
