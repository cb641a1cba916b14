"""The suite of checks a run applies: the built-ins, configured by the ``[checks]`` table, and
the user's own. A `CheckSuite` is the engine's `Checker`: ``suite(case)`` runs every check
that applies to the case's category and returns their results in stage order."""

from __future__ import annotations

import importlib
import importlib.util
import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from .._errors import ConfigError
from .._verdict import STAGES, CheckResult
from ..cases._case import Case
from . import _output as output
from . import _trace as trace
from ._core import Check, CheckFunction, check
from ._garbled import garbled
from ._moderation import CallLayer, bound_moderation, unbound_moderation
from ._quotes import check_quotes
from ._settings import CheckRule, CheckSettings, CustomCheck, ModerationRule, Stage

__all__ = ["BUILTIN_CHECKS", "CheckSuite"]


def _plain(function: CheckFunction) -> Callable[[Any], CheckFunction]:
    """For a check without parameters: the same function whatever its rule."""
    return lambda rule: function


# name -> (stage, the check function made from its rule). In run order: by stage, then the
# seed article's order within a stage.
_BUILTINS: dict[str, tuple[Stage, Callable[[Any], CheckFunction]]] = {
    "source": ("retrieval", _plain(trace.source)),
    "check_quotes": ("retrieval", _plain(check_quotes)),
    "tool_choice": ("tool choice", _plain(trace.tool_choice)),
    "tool_order": ("tool choice", _plain(trace.tool_order)),
    "tool_argument": ("tool argument", _plain(trace.tool_argument)),
    "tool_calls": ("tool argument", _plain(trace.tool_calls)),
    "tools_healthy": ("tool argument", _plain(trace.tools_healthy)),
    "answer_present": ("generation", _plain(output.answer_present)),
    "garbled": ("generation", garbled),
    "cites_only_what_it_read": ("generation", trace.cites_only_what_it_read),
    "pii": ("generation", output.pii),
    "json_schema": ("generation", lambda rule: output.json_schema(_schema_validator(rule))),
    "length": ("generation", output.length),
    "refusal": ("generation", output.refusal),
    "redirect": ("generation", output.redirect),
    "blocklist": ("generation", output.blocklist),
    "moderation": ("generation", unbound_moderation),
    "must_find": ("generation", _plain(output.must_find)),
}

#: The built-in checks' names, in the order they run.
BUILTIN_CHECKS: tuple[str, ...] = tuple(_BUILTINS)


def _schema_validator(rule: Any) -> Any | None:
    schema = rule.json_schema
    if schema is None:
        return None
    key = "checks.json_schema.schema"
    if isinstance(schema, str):
        try:
            schema = json.loads(Path(schema).read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(f"{key}: cannot read {schema}: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise ConfigError(f"{key}: {rule.json_schema} is not valid JSON: {exc}") from None
        if not isinstance(schema, dict):
            raise ConfigError(f"{key}: {rule.json_schema} does not hold a JSON object")
    from jsonschema.exceptions import SchemaError

    try:
        return output.compile_schema(schema)
    except SchemaError as exc:
        raise ConfigError(f"{key}: not a valid JSON schema: {exc.message}") from None


def _scope(rule: CheckRule | CustomCheck) -> dict[str, Any]:
    scope: dict[str, Any] = {}
    if rule.categories is not None:
        scope["categories"] = frozenset(rule.categories)
    if rule.skip_categories is not None:
        scope["skip_categories"] = frozenset(rule.skip_categories)
    return scope


# Check files loaded by path, so that two entries naming one file share its module.
_loaded_files: dict[Path, Any] = {}


def _load_file(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(f"_jury_checks_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _import(target: str, key: str) -> Any:
    where, _, attr = target.rpartition(":")
    try:
        if where.endswith(".py"):
            path = Path(where).resolve()
            module = _loaded_files.get(path)
            if module is None:
                module = _loaded_files[path] = _load_file(path)
        else:
            module = importlib.import_module(where)
    except FileNotFoundError:
        raise ConfigError(f"{key}: no such file: {where}") from None
    except Exception as exc:
        raise ConfigError(f"{key}: cannot import {where}: {type(exc).__name__}: {exc}") from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise ConfigError(f"{key}: {where} has no {attr!r}") from None


def _custom(entry: CustomCheck, key: str) -> Check:
    found = _import(entry.function, key)
    if not isinstance(found, Check):
        if not callable(found):
            raise ConfigError(f"{key}: {entry.function} is not a function")
        found = check(found)
    changes: dict[str, Any] = _scope(entry)
    for field in ("name", "stage", "required"):
        value = getattr(entry, field)
        if value is not None:
            changes[field] = value
    return found.replace(**changes) if changes else found


class CheckSuite:
    """Checks to run on each case, in order; callable as the engine's `Checker`.

    ``CheckSuite.from_settings(panel.checks)`` builds the built-ins and the jury file's own
    checks; ``CheckSuite([...])`` runs exactly the checks given.
    """

    def __init__(
        self, checks: Iterable[Check], *, moderation: ModerationRule | None = None
    ) -> None:
        self.checks = tuple(checks)
        names = [c.name for c in self.checks]
        doubled = sorted({name for name in names if names.count(name) > 1})
        if doubled:
            raise ConfigError(f"two checks are named {', '.join(doubled)}")
        #: The rule of the moderation check, to ask its model once the suite is bound.
        self.moderation = moderation if "moderation" in names else None

    @classmethod
    def from_settings(
        cls,
        settings: CheckSettings | None = None,
        *,
        extra: Iterable[Check | CheckFunction] = (),
    ) -> CheckSuite:
        """The built-in checks as `settings` configure them, then its custom checks, then
        `extra` (functions are wrapped with `check`). Raises `ConfigError` naming the key of
        a schema or function that cannot be loaded."""
        settings = settings or CheckSettings()
        if not settings.enabled:
            return cls(())
        checks: list[Check] = []
        for name, (stage, make) in _BUILTINS.items():
            rule: CheckRule = getattr(settings, name)
            if rule.enabled:
                checks.append(Check(name, make(rule), stage, rule.required, **_scope(rule)))
        checks.extend(
            _custom(entry, f"checks.custom[{index}].function")
            for index, entry in enumerate(settings.custom)
        )
        checks.extend(c if isinstance(c, Check) else check(c) for c in extra)
        checks.sort(key=lambda c: STAGES.index(c.stage))
        return cls(checks, moderation=settings.moderation)

    @property
    def is_async(self) -> bool:
        """Some check asks a model: run the suite with ``await suite.run(case)``."""
        return any(c.is_async for c in self.checks)

    def __call__(self, case: Case) -> tuple[CheckResult, ...]:
        if self.is_async:
            raise TypeError("this suite has checks that ask a model: await suite.run(case)")
        return tuple(c(case) for c in self.checks if c.applies_to(case))

    async def run(self, case: Case) -> tuple[CheckResult, ...]:
        """Every check that applies, in order, awaiting those that ask a model."""
        return tuple([await c.run(case) for c in self.checks if c.applies_to(case)])

    def bind(self, calls: CallLayer) -> CheckSuite:
        """This suite, its model checks (moderation) asking through a jury's call layer:
        the jury's cache, account limits, retries and clock. `Jury` binds its suite."""
        rule = self.moderation
        if rule is None:
            return self
        bound = bound_moderation(rule, calls)
        return CheckSuite(
            (c.replace(function=bound) if c.name == "moderation" else c for c in self.checks),
            moderation=rule,
        )

    def __getitem__(self, name: str) -> Check:
        for c in self.checks:
            if c.name == name:
                return c
        raise KeyError(name)

    def __iter__(self) -> Iterator[Check]:
        return iter(self.checks)

    def __len__(self) -> int:
        return len(self.checks)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.checks)

    def __repr__(self) -> str:
        return f"CheckSuite({', '.join(self.names)})"
