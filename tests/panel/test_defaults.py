"""The default panel: offline without keys, real judges of each keyed family with them."""

from __future__ import annotations

import re
from datetime import date

import pytest

from jury import default_panel
from jury.adapters._registry import model_status
from jury.panel._defaults import DEFAULT_JURORS, DEFAULT_MODELS, OFFLINE_JURORS
from jury.panel._warnings import panel_warnings


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
        # OpenAI publishes dated snapshots; Anthropic's IDs are pinned without a date since
        # Claude 4.6, and Gemini's stable IDs are pinned: their adapters say so.
        status = model_status(spec, date(2026, 11, 30))
        dated = re.search(r"\d{8}$|\d{4}-\d{2}-\d{2}$", model)
        assert dated or (status is not None and status.pinned), spec


def test_each_default_model_records_where_it_was_read_and_when() -> None:
    assert [d.model for d in DEFAULT_MODELS] == [spec for spec, _ in DEFAULT_JURORS]
    for default in DEFAULT_MODELS:
        assert default.source.startswith(("https://", "openai SDK", "anthropic SDK")), default
        assert default.read <= date(2026, 11, 30)


@pytest.mark.parametrize("day", [date(2026, 11, 30), date(2027, 5, 31)])
def test_no_default_model_is_deprecated_by_its_providers_lifecycle_data(day: date) -> None:
    # The SDKs' deprecation tables and the project's Gemini table; a model they do not list
    # (the dated OpenAI snapshot) has no retirement announced in them.
    for spec, _ in DEFAULT_JURORS:
        status = model_status(spec, day)
        assert status is None or status.state == "active", status


def test_the_default_panel_has_no_warning() -> None:
    keys = {"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k", "GEMINI_API_KEY": "k"}
    assert panel_warnings(default_panel(keys)) == []
