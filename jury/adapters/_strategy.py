"""The strategy seam: a way of judging, so that a seat is a model and a strategy.

A strategy changes what a juror is asked, never how its reply is decided: it adds its own
instructions after the rubric's system text and asks the judge to write some fields before
its verdict (the questions that matter, its own answer, its reasoning). Those fields come
first in the reply's JSON schema, so that a model writing the object in order has written
them before it commits to a verdict; they are read and checked here, and what is left is
the rubric's reply, read by the rubric as it always is. Re-asks and validation are the
engine's, unchanged: a missing or empty field is an invalid reply like any other.

The built-in strategies are listed in ``jury.rubrics`` (``STRATEGIES``) and loaded on first
use; a third party adds one with `register_strategy`.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .._errors import ConfigError, InvalidReply
from .._problems import suggest
from ._rubric import Prompt, Rubric

__all__ = ["PLAIN", "Strategy", "known_strategies", "register_strategy", "strategy_named"]

#: The package whose ``STRATEGIES`` table of built-ins is read on first use.
_BUILTINS_PACKAGE = "jury.rubrics"
#: The default: the rubric's own prompt, unchanged.
PLAIN = "plain"


# eq=False: a strategy is itself (hashed by identity), so that a seat holding one stays
# hashable though its fields are a mapping.
@dataclass(frozen=True, eq=False)
class Strategy:
    """A way of judging: instructions added to the rubric's, and the fields the judge
    writes before its verdict.

    `fields` maps each field to what it holds, in the order the judge writes them; they go
    first in the reply schema and are recorded with the vote (``Vote.generated``).
    `instructions` is added after the rubric's system text (it must not depend on the case,
    so that it can be pinned). `kinds` lists the rubric kinds it applies to (empty: any kind
    whose reply is a JSON object). `source` says where it comes from. Subclass to word the
    instructions per rubric (`instructions_for`) or to check the fields further (`read`).
    """

    name: str
    instructions: str = ""
    fields: Mapping[str, str] = field(default_factory=dict)
    kinds: tuple[str, ...] = ()
    source: str = ""

    def refuses(self, rubric: Rubric) -> str | None:
        """Why this strategy cannot judge with `rubric`, or None when it can."""
        if self.kinds and rubric.kind not in self.kinds:
            return (
                f"strategy {self.name!r} applies to {' and '.join(self.kinds)} rubrics only, "
                f"not to {rubric.name!r} ({rubric.kind})"
            )
        return None

    def instructions_for(self, rubric: Rubric) -> str:
        """The instructions added to `rubric`'s system text."""
        return self.instructions

    def apply(self, rubric: Rubric, prompts: Sequence[Prompt]) -> tuple[Prompt, ...]:
        """`prompts` as this strategy asks them: its instructions after the system text,
        its fields first in the schema. A strategy with neither leaves them as they are."""
        text = self.instructions_for(rubric).strip()
        if not text and not self.fields:
            return tuple(prompts)
        out = []
        for prompt in prompts:
            properties = prompt.schema.get("properties")
            if prompt.schema.get("type") != "object" or not isinstance(properties, dict):
                raise ValueError(
                    f"strategy {self.name!r} needs a reply that is a JSON object; "
                    f"the {rubric.kind} rubric's prompt {prompt.key!r} asks for another"
                )
            clash = sorted(set(self.fields) & set(properties))
            if clash:
                raise ValueError(
                    f"strategy {self.name!r}: the rubric's reply already has {', '.join(clash)}"
                )
            schema = {
                **prompt.schema,
                "properties": {
                    **{
                        name: {"type": "string", "description": what}
                        for name, what in self.fields.items()
                    },
                    **properties,
                },
                "required": [*self.fields, *prompt.schema.get("required", ())],
            }
            out.append(replace(prompt, system=self._system(prompt.system, text), schema=schema))
        return tuple(out)

    def _system(self, system: str, text: str) -> str:
        parts = [system, f"How to judge ({self.name}):\n{text}" if text else ""]
        if self.fields:
            start = ", ".join(f'"{name}": "<{what}>"' for name, what in self.fields.items())
            parts.append(
                "Write these fields before the ones the form above gives, in this order: "
                f"the JSON object starts {{{start}, and goes on with the fields above."
            )
        return "\n\n".join(part for part in parts if part)

    def read(self, data: Any) -> tuple[dict[str, str], Any]:
        """The strategy's fields of a parsed reply, checked (each a non-empty string), and
        the rest of the reply for the rubric to read. Raise `InvalidReply` (re-asked)."""
        if not self.fields or not isinstance(data, dict):
            return {}, data
        generated: dict[str, str] = {}
        problems = []
        for name in self.fields:
            value = data.get(name)
            if name not in data:
                problems.append(f"{name}: missing")
            elif not isinstance(value, str):
                problems.append(f"{name}: expected a string")
            elif not value.strip():
                problems.append(f"{name}: empty")
            else:
                generated[name] = value.strip()
        if problems:
            raise InvalidReply("; ".join(problems))
        return generated, {k: v for k, v in data.items() if k not in self.fields}


_STRATEGIES: dict[str, str | Strategy] = {}
_loaded: list[bool] = []


def _strategies() -> dict[str, str | Strategy]:
    if not _loaded:
        _loaded.append(True)
        package = importlib.import_module(_BUILTINS_PACKAGE)
        for name, target in getattr(package, "STRATEGIES", {}).items():
            _STRATEGIES.setdefault(name, target)
    return _STRATEGIES


def register_strategy(strategy: Strategy) -> None:
    """Make ``strategy = "<strategy.name>"`` (a jury file's seat, a `jury.Juror`) judge the
    way `strategy` says. A name registered before is replaced."""
    if not isinstance(strategy, Strategy):
        raise TypeError(f"expected a jury.adapters.Strategy, got {type(strategy).__name__}")
    _strategies()[strategy.name] = strategy


def known_strategies() -> list[str]:
    """The names a seat's ``strategy`` may take, the built-in ones and those registered."""
    return sorted(_strategies())


def strategy_named(name: str) -> Strategy:
    """The strategy of that name; `ConfigError` naming the known ones when there is none."""
    table = _strategies()
    target = table.get(name)
    if target is None:
        known = known_strategies()
        raise ConfigError(
            f"unknown strategy {name!r}{suggest(name, known)}; known: {', '.join(known)}"
        )
    if isinstance(target, str):
        module, _, attr = target.partition(":")
        target = table[name] = getattr(importlib.import_module(module), attr)
    assert isinstance(target, Strategy)
    return target
