"""The exact prompts a run's jurors saw, for the HTML report's links from each vote.

A run records the cases it judged and its rubric's fingerprint and system-prompt hashes, not
every request: the prompts are rendered again from the recorded case with the recorded
rubric, which is deterministic (DESIGN.md: pinned prompts). They are shown only when that
rubric still has the run's fingerprint and every system text hashes to what the manifest
recorded; otherwise the report says why it cannot show them rather than show other bytes.
The case is the recorded one: where the run redacted a text (``--redact``), the prompt shows
the redaction, not the secret.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._errors import ConfigError
from ..adapters._registry import load_rubric
from ..adapters._rubric import Rubric
from ..cases._case import Case
from ..panel._panel import Panel
from ._views import anchor

__all__ = ["PromptBook", "prompt_book"]


@dataclass
class PromptBook:
    """The prompts of every case (by case ID), with the texts many cases share (system texts
    and reply schemas) kept once; `missing` says why there are none."""

    cases: dict[str, dict[str, Any]] = field(default_factory=dict)
    shared: dict[str, dict[str, str]] = field(default_factory=dict)
    missing: str = ""
    #: The seats that judged with a strategy other than plain (seat -> strategy): their
    #: prompts are the rubric's with the strategy's additions, pinned by `jury prompts`.
    strategies: dict[str, str] = field(default_factory=dict)

    def share(self, kind: str, text: str) -> str:
        digest = hashlib.sha256(text.encode()).hexdigest()
        key = f"{kind}-{digest[:12]}"
        if key not in self.shared:
            self.shared[key] = {"kind": kind, "text": text, "sha256": digest}
        return key


def _recorded_rubric(manifest: Mapping[str, Any]) -> Rubric:
    panel = Panel.model_validate(manifest["jury"])
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


def prompt_book(
    manifest: Mapping[str, Any], cases: Iterable[Case], rubric: Rubric | None = None
) -> PromptBook:
    """The prompts of `cases`, rendered with `rubric` (the run's, when the caller still holds
    it: `jury run`) or with the rubric the manifest names (loaded here)."""
    book = PromptBook(strategies=_strategy_seats(manifest))
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
    hashes: Mapping[str, str] = manifest.get("prompts") or {}
    for case in cases:
        try:
            prompts = rubric.prompts(case)
        except ValueError as exc:
            book.cases[case.id] = {"anchor": anchor("prompt", case.id), "error": str(exc)}
            book.cases[case.id]["prompts"] = []
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
            schema = json.dumps(prompt.schema, indent=2, sort_keys=True, ensure_ascii=False)
            views.append(
                {
                    "key": prompt.key,
                    "system": system,
                    "user": prompt.user,
                    "schema": book.share("schema", schema),
                    "schema_name": prompt.schema_name,
                }
            )
        book.cases[case.id] = {"anchor": anchor("prompt", case.id), "error": "", "prompts": views}
    return book
