"""Panel warnings: shared families, the family under test, and model aliases."""

from __future__ import annotations

import pytest

from jury import Juror, Panel
from jury.panel._warnings import is_snapshot, panel_warnings
from jury.providers.replay import Record, ReplayModel
from jury.testing import ScriptedModel


@pytest.mark.parametrize(
    ("model_id", "snapshot"),
    [
        ("claude-3-5-sonnet-20241022", True),
        ("gpt-4o-2024-08-06", True),
        ("gpt-4-0613", True),
        ("gemini-1.5-pro-002", True),
        ("claude-sonnet-4-5@20250929", True),
        ("gpt-4-1106-preview", True),
        ("svc/mistral-large-2407", True),
        ("gpt-4o", False),
        ("claude-3-5-sonnet-latest", False),
        ("llama3.1:8b", False),
        ("llama-3.1-405b", False),
        ("gemini-2.0-flash", False),
    ],
)
def test_dated_snapshots_are_told_from_aliases(model_id: str, snapshot: bool) -> None:
    assert is_snapshot(model_id) is snapshot


def test_two_jurors_of_one_family_and_the_family_under_test() -> None:
    panel = Panel(
        jurors=(
            Juror(model="openai/gpt-5.4-mini-2026-03-17"),
            Juror(model="ollama/llama3.1:8b", name="local"),
            Juror(model="openai-api/together/Meta-Llama-3.1-70B-Instruct-Turbo-20240723"),
        ),
        system_under_test="anthropic/claude-3-5-haiku-20241022",
    )
    warnings = panel_warnings(panel)
    assert any("local, openai-api/together/" in w and "meta family" in w for w in warnings)
    assert not any("system under test" in w for w in warnings)
    named = "local: llama3.1:8b is only what its server calls a model file"
    assert any(named in w for w in warnings)
    assert len(warnings) == 2
    under_test = panel.model_copy(update={"system_under_test": "openai/gpt-4.1-mini"})
    warned = [w for w in panel_warnings(under_test) if "system under test" in w]
    assert warned == [
        "juror openai/gpt-5.4-mini-2026-03-17 is of the openai family, like the system under test "
        "(openai/gpt-4.1-mini): judges tend to prefer answers like their own"
    ]


def test_a_diverse_dated_panel_has_no_warning() -> None:
    panel = Panel(
        jurors=(
            Juror(model="anthropic/claude-haiku-4-5-20251001"),
            Juror(model="openai/gpt-5.4-mini-2026-03-17"),
            Juror(model="google/gemini-3.5-flash-lite"),
        ),
        system_under_test="ollama/qwen2.5:7b",
    )
    assert panel_warnings(panel) == []


def test_an_explicit_family_wins_and_fallbacks_are_checked_for_aliases() -> None:
    panel = Panel(
        jurors=(
            Juror(model="openai-api/acme/house-model-20240101", family="google"),
            Juror(model="google/gemini-1.5-pro-002", fallbacks=("google/gemini-1.5-pro",)),
        )
    )
    warnings = panel_warnings(panel)
    assert any("google family" in w for w in warnings)
    assert any("gemini-1.5-pro is an alias" in w for w in warnings)


def test_offline_replayed_and_scripted_jurors_are_not_llm_families() -> None:
    replay = ReplayModel("replay/x", [Record("c1", "{}")])
    panel = Panel(
        jurors=(
            Juror(model="offline/reference"),
            Juror(model="offline/facts"),
            Juror(model=replay, name="r1"),
            Juror(model=ReplayModel("replay/y", [Record("c1", "{}")]), name="r2"),
            Juror(model=ScriptedModel(["{}"])),
        )
    )
    assert panel_warnings(panel) == []


def test_a_registered_provider_can_declare_the_family_of_every_model_it_serves() -> None:
    from jury.adapters import ModelProfile, family_of, register_provider
    from jury.testing import ScriptedModel

    register_provider(
        "acme-gw", lambda spec: ScriptedModel([{}], name=spec), ModelProfile(family="acme")
    )
    try:
        assert family_of("acme-gw/whatever-model") == "acme"
        register_provider("acme-gw", lambda spec: ScriptedModel([{}], name=spec))
        assert family_of("acme-gw/llama-3-70b") == "meta"
    finally:
        register_provider("acme-gw", lambda spec: ScriptedModel([{}], name=spec))
    assert family_of("anthropic/any-name") == "anthropic"
    assert family_of("offline/reference") == "offline"
