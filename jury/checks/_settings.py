"""The ``[checks]`` table of a jury file: which deterministic checks run, where, and how.

Every built-in check runs by default and applies to a case only when the case (or this
table) gives what it checks: a case without ``expected_tool`` is "not applicable" for tool
choice, not a pass. Each built-in has a sub-table with the common keys

``enabled``          run it at all (default true)
``required``         a failure fails the case and spares the judges (default true); false
                     makes the check advisory: reported, never deciding
``categories``       run it only on cases of these categories
``skip_categories``  never run it on cases of these categories

plus its own parameters. User checks are listed as ``[[checks.custom]]`` tables naming a
``function`` (``module:function`` or ``path/to/file.py:function``)::

    [checks.pii]
    allowed_emails = ["@shopnest.example"]

    [checks.blocklist]
    level = "medium"

    [checks.moderation]        # off by default: it sends the replies to OpenAI
    enabled = true
    ignore = ["violence"]

    [checks.json_schema]
    schema = "reply.schema.json"
    categories = ["structured"]

    [[checks.custom]]
    function = "my_checks:states_a_date"
    required = false
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator, model_validator

from ._pii import KINDS, PiiKind

__all__ = [
    "BlocklistRule",
    "CheckRule",
    "CheckSettings",
    "CitationRule",
    "CustomCheck",
    "GarbledRule",
    "JsonSchemaRule",
    "LengthRule",
    "Level",
    "ModerationRule",
    "PiiRule",
    "QuotesRule",
    "RedirectRule",
    "RefusalRule",
    "Stage",
]

#: The debugging stage a check belongs to (`jury.checks.STAGES` gives their order).
Stage = Literal["retrieval", "tool choice", "tool argument", "generation"]
#: Blocklist severities, most severe first.
Level = Literal["critical", "high", "medium"]

_STRICT = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


def _compiles(pattern: str, groups: int = 0) -> str:
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"not a valid regular expression: {exc}") from None
    if compiled.groups < groups:
        raise ValueError("needs a capturing group around the cited source")
    return pattern


class CheckRule(BaseModel):
    """Where a check runs and whether its failure decides the case."""

    model_config = _STRICT

    enabled: StrictBool = True
    required: StrictBool = True
    categories: tuple[str, ...] | None = None
    skip_categories: tuple[str, ...] = ()


class CitationRule(CheckRule):
    #: Also read citations from the answer's text (see `jury.checks`), not only the
    #: trace's ``cited_sources``.
    in_answer: StrictBool = True
    #: A regular expression whose first group is a cited source (or several, split by
    #: ";" or ","); replaces the built-in patterns.
    pattern: str | None = None

    @field_validator("pattern")
    @classmethod
    def _valid_pattern(cls, value: str | None) -> str | None:
        return None if value is None else _compiles(value, groups=1)


class PiiRule(CheckRule):
    kinds: tuple[PiiKind, ...] = KINDS
    #: Check e-mail addresses in every case. Otherwise only cases that give an
    #: ``allowed_emails`` list are checked for them: many answers rightly give a support
    #: address (the seed article's advice is to scope the e-mail check).
    email_everywhere: StrictBool = False
    #: Addresses (``a@b.example``) and domains (``@b.example``) allowed in every case.
    allowed_emails: tuple[str, ...] = ()


class JsonSchemaRule(CheckRule):
    #: The JSON Schema answers must meet: a table, or a path to a JSON file (relative to
    #: the jury file). A case's own ``json_schema`` takes precedence.
    json_schema: dict[str, Any] | str | None = Field(default=None, alias="schema")


class LengthRule(CheckRule):
    #: Bounds in words for cases that give none of their own.
    min_words: int | None = Field(default=None, ge=0)
    max_words: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _bounds_in_order(self) -> LengthRule:
        low, high = self.min_words, self.max_words
        if low is not None and high is not None and low > high:
            raise ValueError("min_words is more than max_words")
        return self


class RefusalRule(CheckRule):
    #: Phrases that count as a refusal, added to the built-in ones (case is ignored).
    phrases: tuple[str, ...] = ()


class RedirectRule(CheckRule):
    #: Regular expressions that count as a redirect, added to the built-in ones.
    patterns: tuple[str, ...] = ()

    @field_validator("patterns")
    @classmethod
    def _valid_patterns(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(_compiles(p) for p in value)


class BlocklistRule(CheckRule):
    #: The least severe level that fails: "high" catches critical and high terms.
    level: Level = "high"
    #: Terms by level, replacing the built-in lists. A term matches whole words, case
    #: ignored; a trailing ``*`` matches any ending ("damn*").
    terms: dict[Level, tuple[str, ...]] | None = None
    #: Terms by level, added to the lists in use.
    extra_terms: dict[Level, tuple[str, ...]] = {}


class ModerationRule(CheckRule):
    #: Off until asked for: it sends what the agent said to a provider's moderation model.
    enabled: StrictBool = False
    #: The moderation model, as ``provider/model``.
    model: str = "openai-moderation/omni-moderation-latest"
    #: Also fail on any category scored at or above this (0-1), besides the model's flags.
    threshold: float | None = Field(default=None, gt=0, le=1)
    #: Categories that never fail a case ("violence" for an agent that summarises news).
    ignore: tuple[str, ...] = ()


class QuotesRule(CheckRule):
    #: Advisory by default: a quote missing from what the agent retrieved is a retrieval miss
    #: or a gold to fix, for a reader to tell apart.
    required: StrictBool = False


Sign = Literal["truncated", "repetition", "mojibake", "markup"]


class GarbledRule(CheckRule):
    #: The signs of a spoiled answer to look for (`jury.checks._garbled`), all by default.
    signs: tuple[Sign, ...] = ("truncated", "repetition", "mojibake", "markup")


class CustomCheck(BaseModel):
    """A user's check, by import path; unset keys keep what its `@check` decorator says."""

    model_config = _STRICT

    function: str
    name: str | None = None
    stage: Stage | None = None
    required: StrictBool | None = None
    categories: tuple[str, ...] | None = None
    skip_categories: tuple[str, ...] | None = None

    @field_validator("function")
    @classmethod
    def _module_colon_function(cls, value: str) -> str:
        module, sep, attr = value.rpartition(":")
        if not sep or not module or not attr.isidentifier():
            raise ValueError(f"expected 'module:function' or 'file.py:function', got {value!r}")
        return value


class CheckSettings(BaseModel):
    """The ``[checks]`` table. Built-in checks are listed in the order they run."""

    model_config = _STRICT

    #: False turns every check off (``jury run --no-checks`` does the same).
    enabled: StrictBool = True
    source: CheckRule = CheckRule()
    check_quotes: QuotesRule = QuotesRule()
    tool_choice: CheckRule = CheckRule()
    tool_order: CheckRule = CheckRule()
    tool_argument: CheckRule = CheckRule()
    tool_calls: CheckRule = CheckRule()
    tools_healthy: CheckRule = CheckRule()
    answer_present: CheckRule = CheckRule()
    garbled: GarbledRule = GarbledRule()
    cites_only_what_it_read: CitationRule = CitationRule()
    pii: PiiRule = PiiRule()
    json_schema: JsonSchemaRule = JsonSchemaRule()
    length: LengthRule = LengthRule()
    refusal: RefusalRule = RefusalRule()
    redirect: RedirectRule = RedirectRule()
    blocklist: BlocklistRule = BlocklistRule()
    moderation: ModerationRule = ModerationRule()
    must_find: CheckRule = CheckRule()
    custom: tuple[CustomCheck, ...] = ()

    def relative_to(self, folder: Path) -> CheckSettings:
        """Resolve the files this table names against the jury file's folder."""
        update: dict[str, Any] = {}
        schema = self.json_schema.json_schema
        if isinstance(schema, str) and not Path(schema).is_absolute():
            update["json_schema"] = self.json_schema.model_copy(
                update={"json_schema": str(folder / schema)}
            )
        custom = tuple(
            entry.model_copy(update={"function": f"{folder / module}:{attr}"})
            if module.endswith(".py") and not Path(module).is_absolute()
            else entry
            for entry in self.custom
            for module, _, attr in [entry.function.rpartition(":")]
        )
        if custom != self.custom:
            update["custom"] = custom
        return self.model_copy(update=update) if update else self
