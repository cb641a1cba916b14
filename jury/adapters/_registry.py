"""Registries that resolve names lazily, so that `import jury` imports no provider SDK.

``provider/model`` strings resolve to a `JudgeModel` through a factory named by import path,
and what the provider's models can do is its `ModelProfile` (`jury.adapters._profile`);
rubric names resolve to built-in rubric files. Third parties add providers through the
``aiojury.providers`` entry-point group, or at run time with `register_provider`.
"""

from __future__ import annotations

import importlib
import re
import tomllib
import warnings
from collections.abc import Callable
from datetime import date
from importlib import metadata, resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import ConfigError, RubricError
from .._problems import read_toml, suggest
from ._model import JudgeModel
from ._profile import (
    PROVIDERS_PACKAGE,
    STRUCTURED_OUTPUTS,
    Lifecycle,
    ModelProfile,
    StructuredOutput,
    factories,
    profile_of,
    resolved,
    set_provider,
)
from ._rubric import Rubric

__all__ = [
    "PROVIDERS_PACKAGE",
    "build_rubric",
    "builtin_rubrics",
    "effort_refusal",
    "family_of",
    "grammar_refusal",
    "images_refusal",
    "load_rubric",
    "logprobs_asked",
    "logprobs_refusal",
    "model_status",
    "output_room",
    "pin_refusal",
    "register_provider",
    "register_rubric_kind",
    "resolve_model",
    "structured_output",
    "tracks_lifecycle",
]

if TYPE_CHECKING:
    from ._account import ModelStatus

ModelFactory = Callable[[str], JudgeModel]

RubricFactory = Callable[[dict[str, Any], str], Rubric]

#: The package whose table of built-in rubric kinds (`KINDS`) the registry reads on first
#: use: the engine names no rubric kind itself.
RUBRICS_PACKAGE = "jury.rubrics"

_RUBRIC_KINDS: dict[str, str | RubricFactory] = {}
_RUBRIC_SCOPES: dict[str, str | None] = {}
_loaded: set[str] = set()


def _rubric_kinds() -> dict[str, str | RubricFactory]:
    if RUBRICS_PACKAGE not in _loaded:
        _loaded.add(RUBRICS_PACKAGE)
        package = importlib.import_module(RUBRICS_PACKAGE)
        kinds: dict[str, str] = getattr(package, "KINDS", {})
        for kind, factory in kinds.items():
            _RUBRIC_KINDS.setdefault(kind, factory)
        _RUBRIC_SCOPES.update(getattr(package, "SCOPES", {"conversation": None}))
    return _RUBRIC_KINDS


def _load(target: str) -> Any:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def register_provider(
    prefix: str,
    factory: str | ModelFactory,
    profile: ModelProfile | None = None,
    *,
    family: str | None = None,
    lifecycle: Lifecycle | None = None,
) -> None:
    """Make ``prefix/model`` resolve through `factory(model_string)` (a callable, or a
    ``"module:callable"`` string imported on first use), its models able to do what
    `profile` (a `jury.adapters.ModelProfile`) says: which take images, which give
    log-probabilities, their structured output, batch API, family and lifecycle. Without a
    profile, the provider's models take no images, give no log-probabilities, have no batch
    API and no lifecycle table, and their names tell their family. Registering a prefix
    again replaces the provider and its profile; the built-in providers are registered the
    same way (`jury.providers.BUILTIN`), and a prefix of theirs can be taken over.

    `family=` and `lifecycle=` are deprecated (they warn, and still work): pass
    ``ModelProfile(family=..., lifecycle=...)``."""
    if family is not None or lifecycle is not None:
        if profile is not None:
            raise TypeError(
                "register_provider: give family and lifecycle in the profile, not beside it"
            )
        warnings.warn(
            "register_provider(prefix, factory, family=..., lifecycle=...) is deprecated: "
            "pass register_provider(prefix, factory, ModelProfile(family=..., "
            "lifecycle=...)), where the provider also says which models take images, give "
            "log-probabilities and have a batch API",
            DeprecationWarning,
            stacklevel=2,
        )
        profile = ModelProfile(family=family, lifecycle=lifecycle)
    set_provider(prefix, factory, profile if profile is not None else ModelProfile())


def _split(spec: str) -> tuple[ModelProfile | None, str, str]:
    prefix, _, model = spec.partition("/")
    return profile_of(prefix), prefix, model


def _refusal(answer: bool | str | Callable[[str], str | None], model: str, no: str) -> str | None:
    """A profile's `images` or `logprobs` for `model`: None when it has them, else why not
    (`no` when the profile says False)."""
    if answer is True:
        return None
    if answer is False:
        return no
    check: Callable[[str], str | None] = resolved(answer)
    return check(model)


def model_status(spec: str, day: date) -> ModelStatus | None:
    """What the provider of ``provider/model`` knows of the model's lifecycle on `day`."""
    profile, _, model = _split(spec)
    if profile is None or profile.lifecycle is None or not model:
        return None
    lifecycle: Lifecycle = resolved(profile.lifecycle)
    return lifecycle(model, day)


def tracks_lifecycle(spec: str) -> bool:
    """Whether the provider of ``provider/model`` keeps a lifecycle table (then a model it
    does not know is worth a word: it may be retired, or served by another model)."""
    profile = profile_of(spec)
    return profile is not None and profile.lifecycle is not None


def logprobs_refusal(spec: str) -> str | None:
    """Why ``provider/model`` gives no token log-probabilities, or None when it gives them
    (what its provider's profile says; a provider without a profile gives none)."""
    profile, prefix, model = _split(spec)
    no = f"the {prefix} provider gives no token log-probabilities"
    return no if profile is None else _refusal(profile.logprobs, model, no)


def logprobs_asked(spec: str) -> bool:
    """Whether a juror's ``logprobs = true`` is passed on to ``provider/model``
    (`JudgeRequest.logprobs`): unless its provider's profile says the model gives none, so
    that no adapter is asked for what its profile refuses (the panel warns at load). A model
    whose provider has no profile (a judge model given as an object) is asked: its adapter
    decides."""
    return profile_of(spec) is None or logprobs_refusal(spec) is None


def images_refusal(spec: str) -> str | None:
    """Why ``provider/model`` is sent no images ("gpt-3.5-turbo takes text only"), or None
    when it takes them: what its provider's `ModelProfile.images` says (a provider without
    a profile takes none). A juror's ``images = true`` or ``false`` overrides it."""
    profile, prefix, model = _split(spec)
    no = f"the {prefix} provider takes no images"
    return no if profile is None else _refusal(profile.images, model, no)


def effort_refusal(spec: str, effort: str) -> str | None:
    """Why ``provider/model`` does not take a juror's `effort` ("it is not a reasoning
    model"), or None when it does (what its provider's profile says; a provider whose
    profile says nothing is not checked)."""
    profile, _, model = _split(spec)
    if profile is None or profile.effort is None:
        return None
    check: Callable[[str, str], str | None] = resolved(profile.effort)
    return check(model, effort)


def grammar_refusal(spec: str) -> str | None:
    """Why ``provider/model`` would not hold a juror's `reason_length`, or None when it does:
    its provider's profile says its servers hold the schema with a grammar
    (`jury.adapters.ModelProfile.grammar`)."""
    profile = profile_of(spec)
    if profile is not None and profile.grammar:
        return None
    return (
        "only a server that holds the schema with a grammar does (openai-api/..., ollama/..., "
        "vllm/..., or a provider whose profile says grammar=True); hosted structured outputs "
        "do not hold a length"
    )


def pin_refusal(spec: str) -> str | None:
    """Why ``provider/model`` cannot be pinned to a model file (a juror's `pinned`), or None
    when it can: its provider's profile says its models are files its server names
    (`jury.adapters.ModelProfile.model_files`); a hosted model is pinned by its dated ID."""
    profile = profile_of(spec)
    if profile is not None and profile.model_files:
        return None
    return "only a local server's model is pinned by its file; pin a hosted one by a dated ID"


def output_room(spec: str, effort: str | None = None) -> int:
    """The output tokens the adapter of ``provider/model`` adds to a juror's ``max_tokens``
    for the model's thinking (billed as output), at the juror's `effort`: what its
    provider's profile says; a provider whose profile says nothing adds none."""
    profile, _, model = _split(spec)
    if profile is None or profile.output_room is None or not model:
        return 0
    room: Callable[[str, str | None], int] = resolved(profile.output_room)
    return room(model, effort)


def structured_output(spec: str) -> StructuredOutput:
    """How the replies of ``provider/model`` are held to a rubric's schema, as its
    provider's profile says ("none" for a provider without a profile)."""
    profile, _, model = _split(spec)
    if profile is None:
        return "none"
    output = profile.structured_output
    for held in STRUCTURED_OUTPUTS:
        if output == held:
            return held
    found: StructuredOutput = resolved(output)(model)
    return found


def register_rubric_kind(kind: str, factory: str | RubricFactory) -> None:
    """Make rubric files with ``kind = "<kind>"`` load through `factory(data, source)`."""
    _rubric_kinds()[kind] = factory


def _provider_factory(prefix: str) -> ModelFactory:
    target = factories().get(prefix)
    if target is None:
        for entry in metadata.entry_points(group="aiojury.providers"):
            if entry.name == prefix:
                target = entry.value
                break
    if target is None:
        known = sorted(factories())
        raise ConfigError(
            f"unknown provider {prefix!r}{suggest(prefix, known)}; known: {', '.join(known)}"
        )
    if isinstance(target, str):
        try:
            factory: ModelFactory = _load(target)
        except ModuleNotFoundError as exc:
            raise ConfigError(
                f"provider {prefix!r} needs a package that is not installed ({exc.name}); "
                f"install aiojury[{prefix}]"
            ) from None
        factories()[prefix] = factory
        return factory
    return target


def resolve_model(spec: str) -> JudgeModel:
    """Turn ``provider/model`` into a judge model (split on the first "/")."""
    prefix, sep, rest = spec.partition("/")
    if not sep or not rest:
        raise ConfigError(f"expected 'provider/model', got {spec!r}")
    return _provider_factory(prefix)(spec)


# Model-name fragments to families, for servers that host many (Ollama, vLLM, ...).
_FAMILIES: tuple[tuple[str, str], ...] = (
    (r"claude", "anthropic"),
    (r"\bgpt|\bo[1-9]\b|\bo[1-9]-|davinci|chatgpt", "openai"),
    (r"gemini|gemma|palm|bison", "google"),
    (r"llama|codellama", "meta"),
    (r"qwen|qwq", "qwen"),
    (r"mistral|mixtral|codestral|ministral|magistral", "mistral"),
    (r"deepseek", "deepseek"),
    (r"\bphi", "microsoft"),
    (r"command|aya", "cohere"),
    (r"grok", "xai"),
    (r"falcon", "tii"),
    (r"granite", "ibm"),
    (r"nemotron", "nvidia"),
    (r"\byi\b|\byi-", "01-ai"),
    (r"glm", "zhipu"),
    (r"kimi|moonshot", "moonshot"),
    (r"smollm", "huggingface"),
)


def family_of(spec: str) -> str:
    """The model family of ``provider/model``: the provider's own where it serves one family
    (a first-party API, the offline jurors), else what the model's name tells."""
    profile, _, rest = _split(spec)
    if profile is not None and profile.family is not None:
        found: str | Callable[[str], str | None] = resolved(profile.family)
        if isinstance(found, str):
            return found
        # A function of the model ID: the family its user names (a local server's
        # ``<SERVICE>_FAMILY``), or None, when the model's name tells.
        said = found(rest)
        if said:
            return said
    name = rest.lower()
    for pattern, family in _FAMILIES:
        if re.search(pattern, name):
            return family
    return "unknown"


def builtin_rubrics() -> list[str]:
    """Names of the rubric files shipped in `rubrics/builtin/`."""
    folder = resources.files(RUBRICS_PACKAGE) / "builtin"
    return sorted(
        p.name.removesuffix(".toml") for p in folder.iterdir() if p.name.endswith(".toml")
    )


def _read_rubric_file(name_or_path: str) -> tuple[dict[str, Any], str]:
    path = Path(name_or_path)
    if name_or_path.endswith(".toml") or path.is_file():
        return read_toml(path, lambda reason: RubricError(f"{path}: {reason}")), str(path)
    entry = resources.files(RUBRICS_PACKAGE) / "builtin" / f"{name_or_path}.toml"
    if not entry.is_file():
        known = builtin_rubrics()
        raise RubricError(
            f"unknown rubric {name_or_path!r}{suggest(name_or_path, known)}; "
            f"built-in: {', '.join(known)}, or a rubric file's path"
        )
    return tomllib.loads(entry.read_text(encoding="utf-8")), f"{name_or_path} (built-in)"


def load_rubric(name_or_path: str, thresholds: dict[str, float] | None = None) -> Rubric:
    """Load a built-in rubric by name, or a rubric file by path, with threshold overrides."""
    data, source = _read_rubric_file(name_or_path)
    return build_rubric(data, source, thresholds)


def build_rubric(
    data: dict[str, Any], source: str = "<code>", thresholds: dict[str, float] | None = None
) -> Rubric:
    """A rubric from the contents of a rubric file (``{"kind": "criterion", ...}``)."""
    kind = data.get("kind")
    if not isinstance(kind, str):
        raise RubricError(f"{source}: kind: missing (one of {', '.join(_rubric_kinds())})")
    target = _rubric_kinds().get(kind)
    if target is None:
        raise RubricError(
            f"{source}: kind: unknown kind {kind!r}{suggest(kind, _RUBRIC_KINDS)}; "
            f"one of {', '.join(_RUBRIC_KINDS)}"
        )
    # Every kind takes ``scope``: what the rubric judges of a conversation (`jury.rubrics._scope`).
    scope = data.pop("scope", "conversation")
    if scope not in _RUBRIC_SCOPES:
        raise RubricError(
            f"{source}: scope: expected one of {', '.join(_RUBRIC_SCOPES)}, got {scope!r}"
        )
    factory = _load(target) if isinstance(target, str) else target
    rubric: Rubric = factory(data, source)
    wrap = _RUBRIC_SCOPES[scope]
    if wrap is not None:
        try:
            rubric = _load(wrap)(rubric)
        except ValueError as exc:
            raise RubricError(f"{source}: scope: {exc}") from None
    if thresholds:
        try:
            rubric = rubric.with_thresholds(thresholds)
        except (KeyError, ValueError) as exc:
            raise RubricError(f"thresholds: {exc.args[0]}") from None
    return rubric
