"""The exact prompts a run's jurors saw, for the HTML report's links from each vote.

A run records the cases it judged and its rubric's fingerprint and system-prompt hashes, not
every request: the prompts are rendered again from the recorded case with the recorded
rubric, which is deterministic (docs/architecture.md: pinned prompts). They are shown only when that
rubric still has the run's fingerprint and every system text hashes to what the manifest
recorded; otherwise the report says why it cannot show them rather than show other bytes.
The case is the recorded one: where the run redacted a text (``--redact``), the prompt shows
the redaction, not the secret.

A seat with a strategy (`jury.adapters.Strategy`) was sent the rubric's prompts as its strategy
asks them: the strategy's instructions after the system text, its fields first in the reply
schema. Those prompts are shown beside the rubric's, made by `seat_prompts` and `schema_text`,
the functions `jury prompts --snapshot` pins them with (one rendering, not a copy). A
strategy's words are case-independent and belong to the code that defines it: the run records
its name, not a hash of its text, so the page says which aiojury version rendered them.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._errors import ConfigError
from .._version import __version__
from ..adapters._registry import load_rubric
from ..adapters._rubric import Prompt, Rubric
from ..adapters._strategy import Strategy, strategy_named
from ..cases._case import Case
from ..panel._panel import Panel
from ._views import anchor

__all__ = ["PromptBook", "prompt_book", "schema_text", "seat_prompts"]


def schema_text(schema: Mapping[str, Any]) -> str:
    """A reply schema as the prompt page and `jury prompts` show it."""
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False)


def seat_prompts(
    rubric: Rubric, strategy: Strategy, prompts: Sequence[Prompt]
) -> tuple[Prompt, ...]:
    """The rubric's `prompts` (of one case) as a seat with `strategy` is sent them: what the
    vote layer sends (`Strategy.apply`), what `jury prompts` pins and the prompt page shows."""
    return strategy.apply(rubric, prompts)


@dataclass
class PromptBook:
    """The prompts of every case (by case ID), with the texts many cases share (system texts
    and reply schemas) kept once; `missing` says why there are none."""

    cases: dict[str, dict[str, Any]] = field(default_factory=dict)
    shared: dict[str, dict[str, Any]] = field(default_factory=dict)
    missing: str = ""
    #: The seats that judged with a strategy other than plain (seat -> strategy): their
    #: prompts are the rubric's with the strategy's additions, pinned by `jury prompts`.
    strategies: dict[str, str] = field(default_factory=dict)
    #: Each of those strategies (by name): its source, its instructions and fields as this
    #: rubric gets them, its seats; `error` says why its prompts cannot be shown.
    ways: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: The aiojury version that rendered the strategies' prompts, and the run's.
    version: str = __version__
    recorded_version: str = ""

    def share(self, kind: str, text: str, used: str = "the rubric's prompts") -> str:
        """The key of a text kept once; `used` says whose prompts send it."""
        digest = hashlib.sha256(text.encode()).hexdigest()
        key = f"{kind}-{digest[:12]}"
        shared = self.shared.get(key)
        if shared is None:
            shared = self.shared[key] = {"kind": kind, "text": text, "sha256": digest, "used": []}
        if used not in shared["used"]:
            shared["used"].append(used)
        return key


def _without_strategy(juror: Any) -> Any:
    if not isinstance(juror, dict) or juror.get("strategy", "plain") == "plain":
        return juror
    seat = {k: v for k, v in juror.items() if k != "strategy"}
    seat["name"] = juror.get("name") or f"{juror.get('model')}+{juror['strategy']}"
    return seat


def _recorded_rubric(manifest: Mapping[str, Any]) -> Rubric:
    # The seats' strategies are left out: only the rubric is wanted here, and a strategy this
    # process does not know (a third party's) is named on its own seats' prompts instead.
    # Each keeps its seat's name, so that two seats of one model are not taken for duplicates.
    jury = dict(manifest["jury"])
    jury["jurors"] = [_without_strategy(juror) for juror in jury.get("jurors", ())]
    panel = Panel.model_validate(jury)
    name = panel.rubric
    if name.endswith(".toml") and not os.path.isabs(name):
        name = os.path.join(manifest.get("cwd") or ".", name)
    return load_rubric(name, panel.thresholds)


def _strategy_seats(manifest: Mapping[str, Any]) -> dict[str, str]:
    """Each seat of the run's jury that had a strategy (a plain seat records none)."""
    seats = {}
    for juror in manifest.get("jury", {}).get("jurors", ()):
        strategy = juror.get("strategy", "plain") if isinstance(juror, dict) else "plain"
        if strategy != "plain":
            seats[juror.get("name") or f"{juror.get('model')}+{strategy}"] = strategy
    return seats


def _ways(book: PromptBook, rubric: Rubric) -> dict[str, Strategy]:
    """The strategies of the run's strategy seats that can be shown (each described in
    `book.ways`); one that is not registered here, or cannot judge with `rubric`, is
    described with the reason instead."""
    found: dict[str, Strategy] = {}
    for seat, name in book.strategies.items():
        way = book.ways.get(name)
        if way is not None:
            way["seats"].append(seat)
            continue
        way = book.ways[name] = {"name": name, "seats": [seat], "error": "", "source": ""}
        way["anchor"] = anchor("strategy", name)
        try:
            strategy = strategy_named(name)
        except ConfigError as exc:
            way["error"] = f"it is not known here ({exc})"
            continue
        refused = strategy.refuses(rubric)
        if refused is not None:
            way["error"] = refused
            continue
        way["source"] = strategy.source
        way["instructions"] = strategy.instructions_for(rubric).strip()
        way["fields"] = dict(strategy.fields)
        found[name] = strategy
    return found


def _strategy_views(
    book: PromptBook,
    rubric: Rubric,
    case_id: str,
    prompts: Sequence[Prompt],
    ways: Mapping[str, Strategy],
) -> list[dict[str, Any]]:
    """The prompts each strategy's seats were sent for one case: its system texts and reply
    schemas (kept once, with the rubric's), and a user text only where it is not the rubric's."""
    views = []
    for name, way in book.ways.items():
        view: dict[str, Any] = {
            "name": name,
            "seats": way["seats"],
            "anchor": anchor("seat-prompt", f"{case_id}\x00{name}"),
            "error": way["error"],
            "prompts": [],
        }
        views.append(view)
        strategy = ways.get(name)
        if strategy is None:
            continue
        try:
            sent = seat_prompts(rubric, strategy, prompts)
        except ValueError as exc:
            view["error"] = str(exc)
            continue
        # By key, not by position: a strategy of a third party may ask more or fewer prompts.
        users = {prompt.key: prompt.user for prompt in prompts}
        for prompt in sent:
            view["prompts"].append(
                {
                    "key": prompt.key,
                    "system": book.share("system", prompt.system, f"strategy {name}"),
                    "schema": book.share("schema", schema_text(prompt.schema), f"strategy {name}"),
                    "schema_name": prompt.schema_name,
                    "user": prompt.user if users.get(prompt.key) != prompt.user else None,
                }
            )
    return views


def prompt_book(
    manifest: Mapping[str, Any], cases: Iterable[Case], rubric: Rubric | None = None
) -> PromptBook:
    """The prompts of `cases`, rendered with `rubric` (the run's, when the caller still holds
    it: `jury run`) or with the rubric the manifest names (loaded here)."""
    book = PromptBook(strategies=_strategy_seats(manifest))
    book.recorded_version = str(manifest.get("versions", {}).get("aiojury", ""))
    try:
        rubric = _recorded_rubric(manifest) if rubric is None else rubric
    except (ConfigError, ValueError, KeyError, OSError) as exc:
        book.missing = f"the run's rubric cannot be loaded here ({exc})"
        return book
    recorded = manifest.get("rubric", {}).get("fingerprint")
    if rubric.fingerprint() != recorded:
        book.missing = (
            f"the rubric {rubric.name!r} changed since the run (fingerprint {recorded}, now "
            f"{rubric.fingerprint()}): its prompts now are not the ones the jurors saw"
        )
        return book
    ways = _ways(book, rubric)
    hashes: Mapping[str, str] = manifest.get("prompts") or {}
    for case in cases:
        try:
            prompts = rubric.prompts(case)
        except ValueError as exc:
            book.cases[case.id] = {"anchor": anchor("prompt", case.id), "error": str(exc)}
            book.cases[case.id]["prompts"] = []
            book.cases[case.id]["strategies"] = []
            continue
        views = []
        for prompt in prompts:
            system = book.share("system", prompt.system)
            if prompt.key in hashes and book.shared[system]["sha256"] != hashes[prompt.key]:
                book.cases.clear()
                book.missing = (
                    f"the system prompt {prompt.key!r} no longer hashes to the one the run "
                    "recorded: the prompts now are not the ones the jurors saw"
                )
                return book
            views.append(
                {
                    "key": prompt.key,
                    "system": system,
                    "user": prompt.user,
                    "schema": book.share("schema", schema_text(prompt.schema)),
                    "schema_name": prompt.schema_name,
                }
            )
        book.cases[case.id] = {
            "anchor": anchor("prompt", case.id),
            "error": "",
            "prompts": views,
            "strategies": _strategy_views(book, rubric, case.id, prompts, ways),
        }
    return book
