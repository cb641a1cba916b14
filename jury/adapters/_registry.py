"""Registries that resolve names lazily, so that `import jury` imports no provider SDK.

``provider/model`` strings resolve to a `JudgeModel` through a factory named by import path;
rubric names resolve to built-in rubric files. Third parties add providers through the
``aiojury.providers`` entry-point group, or at run time with `register_provider`.
"""

from __future__ import annotations

import importlib
import re
import tomllib
from collections.abc import Callable
from datetime import date
from importlib import metadata, resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import ConfigError, RubricError
from .._problems import read_toml, suggest
from ._model import JudgeModel
from ._rubric import Rubric

__all__ = [
    "build_rubric",
    "builtin_rubrics",
    "family_of",
    "images_refusal",
    "load_rubric",
    "model_status",
    "register_provider",
    "register_rubric_kind",
    "resolve_model",
    "tracks_lifecycle",
]

if TYPE_CHECKING:
    from ._account import ModelStatus

ModelFactory = Callable[[str], JudgeModel]

#: What a provider knows of a model's lifecycle: (model ID, the day) -> its status, or None.
Lifecycle = Callable[[str, date], "ModelStatus | None"]

RubricFactory = Callable[[dict[str, Any], str], Rubric]

#: The packages whose tables of built-ins the registry reads on first use (`BUILTIN`,
#: `KINDS`): the engine names no provider and no rubric kind itself.
PROVIDERS_PACKAGE = "jury.providers"
RUBRICS_PACKAGE = "jury.rubrics"

# Providers by the prefix before the first "/" ("module:callable" until first used), and the
# family of every model a provider serves where it serves one family.
_PROVIDERS: dict[str, str | ModelFactory] = {}
_PROVIDER_FAMILIES: dict[str, str] = {}
_LIFECYCLES: dict[str, str | Lifecycle] = {}
_LOGPROBS: dict[str, str | Callable[[str], str | None]] = {}
_EFFORTS: dict[str, str | Callable[[str, str], str | None]] = {}
_IMAGES: dict[str, str | Callable[[str], str | None]] = {}
_ROOMS: dict[str, str | Callable[[str, str | None], int]] = {}
_FAMILY_HOOKS: dict[str, str | Callable[[str], str | None]] = {}
_RUBRIC_KINDS: dict[str, str | RubricFactory] = {}
_RUBRIC_SCOPES: dict[str, str | None] = {}
_loaded: set[str] = set()


def _providers() -> dict[str, str | ModelFactory]:
    if PROVIDERS_PACKAGE not in _loaded:
        _loaded.add(PROVIDERS_PACKAGE)
        package = importlib.import_module(PROVIDERS_PACKAGE)
        builtin: dict[str, tuple[str, str | None]] = getattr(package, "BUILTIN", {})
        for prefix, (factory, family) in builtin.items():
            _PROVIDERS.setdefault(prefix, factory)
            if family is not None:
                _PROVIDER_FAMILIES.setdefault(prefix, family)
        hooks: tuple[tuple[str, dict[str, Any]], ...] = (
            ("LIFECYCLE", _LIFECYCLES),
            ("LOGPROBS", _LOGPROBS),
            ("EFFORTS", _EFFORTS),
            ("IMAGES", _IMAGES),
            ("ROOMS", _ROOMS),
            ("FAMILY", _FAMILY_HOOKS),
        )
        for name, table in hooks:
            for prefix, target in getattr(package, name, {}).items():
                table.setdefault(prefix, target)
    return _PROVIDERS


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
    *,
    family: str | None = None,
    lifecycle: Lifecycle | None = None,
) -> None:
    """Make ``prefix/model`` resolve through `factory(model_string)`. `family`: the family
    of every model it serves, when it serves one (else each model's name tells it).
    `lifecycle(model_id, day)`: the model's `jury.adapters.ModelStatus` on that day, or None
    when unknown (deprecated models are then warned about, retired ones refused)."""
    _providers()[prefix] = factory
    if family is not None:
        _PROVIDER_FAMILIES[prefix] = family
    else:
        _PROVIDER_FAMILIES.pop(prefix, None)
    if lifecycle is not None:
        _LIFECYCLES[prefix] = lifecycle
    else:
        _LIFECYCLES.pop(prefix, None)


def _hook(table: dict[str, Any], prefix: str) -> Any:
    """A provider's hook from one of the tables (imported the first time it is asked for),
    or None when the provider has none."""
    _providers()
    target = table.get(prefix)
    if isinstance(target, str):
        target = table[prefix] = _load(target)
    return target


def model_status(spec: str, day: date) -> ModelStatus | None:
    """What the provider of ``provider/model`` knows of the model's lifecycle on `day`."""
    prefix, _, model = spec.partition("/")
    lifecycle: Lifecycle | None = _hook(_LIFECYCLES, prefix)
    if lifecycle is None or not model:
        return None
    return lifecycle(model, day)


def tracks_lifecycle(spec: str) -> bool:
    """Whether the provider of ``provider/model`` keeps a lifecycle table (then a model it
    does not know is worth a word: it may be retired, or served by another model)."""
    return _hook(_LIFECYCLES, spec.partition("/")[0]) is not None


def logprobs_refusal(spec: str) -> str | None:
    """Why ``provider/model`` gives no token log-probabilities, or None when it gives them
    (what the provider's ``LOGPROBS`` entry says; a provider without one gives none)."""
    prefix, _, model = spec.partition("/")
    check: Callable[[str], str | None] | None = _hook(_LOGPROBS, prefix)
    if check is None:
        return f"the {prefix} provider gives no token log-probabilities"
    return check(model)


def images_refusal(spec: str) -> str | None:
    """Why ``provider/model`` is sent no images ("gpt-3.5-turbo takes text only"), or None
    when it takes them (what the provider's ``IMAGES`` entry says; a provider without one,
    the offline jurors' included, takes none). A juror's ``images = true`` overrides it."""
    prefix, _, model = spec.partition("/")
    check: Callable[[str], str | None] | None = _hook(_IMAGES, prefix)
    if check is None:
        return f"the {prefix} provider takes no images"
    return check(model)


def effort_refusal(spec: str, effort: str) -> str | None:
    """Why ``provider/model`` does not take a juror's `effort` ("it is not a reasoning
    model"), or None when it does (what the provider's ``EFFORTS`` entry says; a provider
    without one is not checked)."""
    prefix, _, model = spec.partition("/")
    check: Callable[[str, str], str | None] | None = _hook(_EFFORTS, prefix)
    return None if check is None else check(model, effort)


#: The providers whose servers hold a reply's schema with a grammar, a string's
#: ``maxLength`` included (llama.cpp's json-schema-to-grammar; vLLM's guided decoding).
_GRAMMAR_SERVERS = frozenset({"openai-api", "ollama", "vllm"})


def grammar_refusal(spec: str) -> str | None:
    """Why ``provider/model`` would not hold a juror's `reason_length`, or None when it does."""
    if spec.partition("/")[0] in _GRAMMAR_SERVERS:
        return None
    return (
        "only a server that holds the schema with a grammar does (openai-api/..., ollama/..., "
        "vllm/...); hosted structured outputs do not hold a length"
    )


def pin_refusal(spec: str) -> str | None:
    """Why ``provider/model`` cannot be pinned to a model file (a juror's `pinned`), or None
    when it can: a hosted model is pinned by its dated ID, a local server's by its file."""
    if spec.partition("/")[0] in _GRAMMAR_SERVERS:
        return None
    return "only a local server's model is pinned by its file; pin a hosted one by a dated ID"


def output_room(spec: str, effort: str | None = None) -> int:
    """The output tokens the adapter of ``provider/model`` adds to a juror's ``max_tokens``
    for the model's thinking (billed as output), at the juror's `effort`: what the provider's
    ``ROOMS`` entry says; a provider without one adds none."""
    prefix, _, model = spec.partition("/")
    room: Callable[[str, str | None], int] | None = _hook(_ROOMS, prefix)
    return 0 if room is None or not model else room(model, effort)


def register_rubric_kind(kind: str, factory: str | RubricFactory) -> None:
    """Make rubric files with ``kind = "<kind>"`` load through `factory(data, source)`."""
    _rubric_kinds()[kind] = factory


def _provider_factory(prefix: str) -> ModelFactory:
    target = _providers().get(prefix)
    if target is None:
        for entry in metadata.entry_points(group="aiojury.providers"):
            if entry.name == prefix:
                target = entry.value
                break
    if target is None:
        known = sorted(_providers())
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
        _PROVIDERS[prefix] = factory
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
    prefix, _, rest = spec.partition("/")
    _providers()
    fixed = _PROVIDER_FAMILIES.get(prefix)
    if fixed is not None:
        return fixed
    named: Callable[[str], str | None] | None = _hook(_FAMILY_HOOKS, prefix)
    said = named(spec) if named is not None else None
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
