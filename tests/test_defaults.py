"""The default panel: offline without keys, real judges of each keyed family with them."""

from __future__ import annotations

import re

import pytest

from jury import default_panel
from jury._defaults import DEFAULT_JURORS, OFFLINE_JURORS


def models(env: dict[str, str]) -> list[str]:
    return [str(j.model) for j in default_panel(env).jurors]


def test_no_key_means_offline_jurors() -> None:
    assert models({}) == list(OFFLINE_JURORS)
    assert models({"OPENAI_API_KEY": ""}) == list(OFFLINE_JURORS)


@pytest.mark.parametrize(
    ("env", "families"),
    [
        ({"ANTHROPIC_API_KEY": "k"}, ["anthropic"]),
        ({"OPENAI_API_KEY": "k", "GEMINI_API_KEY": "k"}, ["openai", "google"]),
        (
            {"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k", "GOOGLE_API_KEY": "k"},
            ["anthropic", "openai", "google"],
        ),
    ],
)
def test_keys_bring_real_jurors_of_their_families(env: dict[str, str], families: list[str]) -> None:
    assert [m.partition("/")[0] for m in models(env)] == families


def test_default_models_are_pinned_ids_not_aliases() -> None:
    for spec, _ in DEFAULT_JURORS:
        model = spec.partition("/")[2]
        assert "latest" not in model
        assert "preview" not in model
        # Anthropic and OpenAI publish dated snapshots; Gemini's stable IDs are pinned.
        if not spec.startswith("google/"):
            assert re.search(r"\d{8}$|\d{4}-\d{2}-\d{2}$", model), spec
